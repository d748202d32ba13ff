import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { jsonApiHeaders, tempDir } from '../helpers/agent.js';
import { repoRoot, selloJson, startServe } from '../helpers/cli.js';
import type { Benchmark } from './run.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Figures> {
  // A short warm-up, then the measured run.
  await autocannon({ url, headers, connections, duration: 2 });
  const result = await autocannon({ url, headers, connections, duration: seconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

async function startKoaHello(): Promise<{ baseUrl: string; stop(): void }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'test/bench/fixtures/koa-hello.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  return { baseUrl: (JSON.parse(line) as { base_url: string }).base_url, stop: () => child.kill('SIGTERM') };
}

const benchmark: Benchmark = {
  description: `authenticated GET /api/v1/webhook-endpoints?page[limit]=20 over 200 endpoints vs a bare Koa hello (${connections} connections, ${seconds} s each)`,
  async run() {
    const dir = tempDir('sello-bench-');
    selloJson(['books', 'create', 'bench', '--tenant', 'bench', '--data-dir', dir]);
    const { key } = selloJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'bench', '--data-dir', dir]);
    const serve = await startServe(dir, { SELLO_RATE_LIMIT_PER_MINUTE: '1000000000' });
    const hello = await startKoaHello();
    try {
      for (let i = 0; i < 200; i++) {
        const res = await fetch(`${serve.baseUrl}/api/v1/webhook-endpoints`, {
          method: 'POST',
          headers: jsonApiHeaders(key),
          body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: `https://erp${i}.example/hooks`, secret: `secreto-${i}-largo` } } }),
        });
        if (res.status !== 201) throw new Error(`seeding failed: ${res.status}`);
      }
      const koa = await load(`${hello.baseUrl}/`, {});
      const sello = await load(`${serve.baseUrl}/api/v1/webhook-endpoints?page[limit]=20`, { Authorization: `Bearer ${key}`, Accept: 'application/vnd.api+json' });
      const rows = [
        ['bare Koa hello', koa],
        ['Sello list (20 of 200)', sello],
      ] as const;
      console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
      console.log('| server | req/s | p50 ms | p99 ms | errors | non-2xx |');
      console.log('|---|---:|---:|---:|---:|---:|');
      for (const [name, f] of rows) console.log(`| ${name} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${f.errors} | ${f.non2xx} |`);
      console.log(`\nratio Sello / Koa hello: ${(sello.rps / koa.rps).toFixed(2)} (goal ≥ 0.5)`);
    } finally {
      hello.stop();
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  },
};

export default benchmark;
