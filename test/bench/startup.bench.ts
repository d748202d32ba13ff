/**
 * Cold start (issue 17, point 7): `sello serve` from the build (`npm run build`, run here into a
 * temporary folder from the current sources) until its first answered HTTP request, and its
 * memory after idling, next to a bare Node HTTP server started the same way in the same run,
 * and to `sello serve` from the sources under tsx (what every start cost before the build).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { tempDir } from '../helpers/agent.js';
import { repoRoot } from '../helpers/cli.js';
import type { Benchmark } from './run.js';

const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);

interface Variant {
  name: string;
  /** The command, given a fresh data folder; it prints `{"base_url": …}` once it listens. */
  args(dataDir: string): string[];
  env?: NodeJS.ProcessEnv;
  /**
   * The first request, as a client that just read the line would send it: given the line's
   * `base_url` and `admin_url` and what `prepare` returned.
   */
  first(line: { base_url: string; admin_url?: string }, prepared: Record<string, string>): { url: string; headers?: Record<string, string> };
  /** Prepares the data folder before the clock starts (the restart case). */
  prepare?(dataDir: string): Record<string, string>;
  /** Whether the memory after idling is measured (10 s a run). */
  idle: boolean;
}

interface Sample {
  /** From spawn to the line that says it listens. */
  listeningMs: number;
  /** From spawn to the end of the first answer. */
  answerMs: number;
  /** CPU time of the process (every thread) at its first answer. */
  cpuMs: number | undefined;
  /** Resident memory after idling, MB. */
  rssMb: number | undefined;
}

function procStatus(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** User + system CPU time of a process in ms (Linux), from /proc. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function measure(variant: Variant, dataDir: string): Promise<Sample> {
  const prepared = variant.prepare?.(dataDir) ?? {};
  const t0 = performance.now();
  const child = spawn(process.execPath, variant.args(dataDir), {
    env: { ...process.env, NODE_OPTIONS: '', SELLO_LOG_LEVEL: 'warn', ...variant.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const line = await Promise.race([
      new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
      exited.then((code) => {
        throw new Error(`${variant.name} exited ${code}: ${stderr}`);
      }),
    ]);
    const listeningMs = performance.now() - t0;
    const request = variant.first(JSON.parse(line) as { base_url: string; admin_url?: string }, prepared);
    const res = await fetch(request.url, { redirect: 'manual', ...(request.headers ? { headers: request.headers } : {}) });
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${variant.name}: GET ${request.url} → ${res.status}`);
    const answerMs = performance.now() - t0;
    const cpu = cpuMs(child.pid!);
    let rssMb: number | undefined;
    if (variant.idle) {
      await new Promise((r) => setTimeout(r, idleSeconds * 1000));
      rssMb = procStatus(child.pid!, 'VmRSS');
    }
    return { listeningMs, answerMs, cpuMs: cpu, rssMb };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (x: number): number => Math.round(x);

const notes = `
Each run starts every variant once, in a rotating order, each on a data folder of its own. The
clock runs from \`spawn\` to the end of the first answer, sent as soon as the process prints the
line that says where it listens:

- "built": an empty data folder (a new install: the database is created and migrated), and the
  first request is the one-time admin link that \`sello serve\` prints (a 303 to /ui/ with the
  session cookie), what a person opens first;
- "built, restart": a folder made by \`sello books create\` and \`sello keys create\` before the
  clock starts, and the first request is the ERP's: \`GET /api/v1/webhook-endpoints\` with that
  key;
- the bare server answers \`GET /\` with a 17-byte JSON.

"CPU" is the process's user + system time at that answer (every thread), the steadier figure on
a busy machine. Memory is VmRSS after \`BENCH_IDLE_SECONDS\` (10) of idling.
\`BENCH_STARTUP_RUNS\` (5) sets the runs; figures are medians.
`;

const benchmark: Benchmark = {
  description: `cold start of the built \`sello serve\` to its first answer, and its memory after ${idleSeconds} s idle, vs a bare Node HTTP server (${runs} runs, medians)`,
  notes,
  async run(report) {
    const out = fs.mkdtempSync(path.join(repoRoot, 'node_modules/.cache/sello-bench-startup-'));
    try {
      const t = performance.now();
      const build = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs'), '--outdir', out, '--quiet'], { encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`the build failed: ${build.stderr}`);
      report.text(`\`npm run build\` of the current sources: ${((performance.now() - t) / 1000).toFixed(1)} s.`);
      const cli = path.join(out, 'cli.mjs');
      const serve = (dataDir: string) => [cli, 'serve', '--port', '0', '--json', '--data-dir', dataDir];
      const adminLink = (line: { admin_url?: string }) => ({ url: line.admin_url! });
      const run = (args: string[]): string => {
        const res = spawnSync(process.execPath, [cli, ...args, '--json'], { encoding: 'utf8', env: { ...process.env, SELLO_LOG_LEVEL: 'warn' } });
        if (res.status !== 0) throw new Error(`sello ${args.join(' ')}: ${res.stderr}`);
        return res.stdout;
      };
      const variants: Variant[] = [
        { name: 'bare Node HTTP server', args: () => [path.join(repoRoot, 'test/bench/fixtures/bare-http.mjs')], first: (line) => ({ url: `${line.base_url}/` }), idle: true },
        { name: 'sello serve, built', args: serve, first: adminLink, idle: true },
        {
          name: 'sello serve, built, restart',
          args: serve,
          idle: false,
          prepare: (dataDir) => {
            run(['books', 'create', 'bench', '--tenant', 'bench', '--data-dir', dataDir]);
            return { key: (JSON.parse(run(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'bench', '--data-dir', dataDir])) as { key: string }).key };
          },
          first: (line, prepared) => ({
            url: `${line.base_url}/api/v1/webhook-endpoints`,
            headers: { Authorization: `Bearer ${prepared.key}`, Accept: 'application/vnd.api+json' },
          }),
        },
        {
          name: 'sello serve from the sources (tsx)',
          args: (dataDir) => [path.join(repoRoot, 'bin/sello.mjs'), 'serve', '--port', '0', '--json', '--data-dir', dataDir],
          env: { SELLO_FROM_SOURCE: '1' },
          first: adminLink,
          idle: true,
        },
      ];
      const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
      for (let i = 0; i < runs; i++) {
        for (let j = 0; j < variants.length; j++) {
          const variant = variants[(i + j) % variants.length]!;
          const dir = tempDir('sello-bench-startup-');
          try {
            samples.get(variant.name)!.push(await measure(variant, dir));
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        }
        process.stderr.write(`  run ${i + 1}/${runs}\n`);
      }
      const figures = variants.map((v) => {
        const s = samples.get(v.name)!;
        const cpu = s.map((x) => x.cpuMs).filter((x): x is number => x !== undefined);
        const rss = s.map((x) => x.rssMb).filter((x): x is number => x !== undefined);
        return {
          name: v.name,
          listening: median(s.map((x) => x.listeningMs)),
          answer: median(s.map((x) => x.answerMs)),
          min: Math.min(...s.map((x) => x.answerMs)),
          max: Math.max(...s.map((x) => x.answerMs)),
          cpu: cpu.length ? median(cpu) : undefined,
          rss: rss.length ? median(rss) : undefined,
        };
      });
      report.table(
        ['server', 'listening ms', 'first answer ms', 'min–max ms', 'CPU ms at the answer', `RSS after ${idleSeconds} s idle, MB`],
        figures.map((f) => [f.name, ms(f.listening), ms(f.answer), `${ms(f.min)}–${ms(f.max)}`, f.cpu === undefined ? 'n/a' : ms(f.cpu), f.rss === undefined ? '—' : Number(f.rss.toFixed(1))]),
      );
      const bare = figures[0]!;
      const built = figures[1]!;
      const ratio = built.answer / bare.answer;
      report.goal(`first answer of the built \`sello serve\` ≤ 0.5 s (this run: ${(built.answer / 1000).toFixed(2)} s)`, built.answer <= 500);
      report.goal(`first answer ≤ 3 × the bare server's (this run: ${ratio.toFixed(1)} ×)`, ratio <= 3);
      if (built.rss !== undefined) report.goal(`memory after ${idleSeconds} s idle ≤ 80 MB (this run: ${built.rss.toFixed(0)} MB)`, built.rss <= 80);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  },
};

export default benchmark;
