/**
 * Signing requests end to end (issue 5, "Benchmark"): 1-document, 1-signature requests with
 * a test certificate, created with `send: true` against a real `sello serve`, until the
 * signing-result callback reaches a local HTTPS receiver. Requests completed per second.
 */
import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import { tempDir } from '../helpers/agent.js';
import { selloJson, startServe } from '../helpers/cli.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { startReceiver } from '../helpers/receiver.js';
import { insertCertificate } from '../helpers/signing-requests.js';
import { createTestPki } from '../helpers/test-ca.js';
import type { Benchmark } from './run.js';

const total = Number(process.env.BENCH_REQUESTS ?? 1000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const notes = `
Each request is created, signed in the background (every signature persisted) and its
callback sent through the delivery engine, all against one \`sello serve\` with
\`synchronous=FULL\`. \`BENCH_REQUESTS\` and \`BENCH_CONNECTIONS\` change the size.
`;

const benchmark: Benchmark = {
  notes,
  description: `${total} signing requests (1 document, 1 signature, test certificate), POST with send: true → callback received; ${connections} clients`,
  async run(report) {
    const dir = tempDir('sello-bench-');
    const pki = await createTestPki();
    const { key } = selloJson<{ key: string }>(['keys', 'create', '--family', 'a', '--env', 'test', '--data-dir', dir]);
    const serve = await startServe(dir, { SELLO_RATE_LIMIT_PER_MINUTE: '1000000000', SELLO_CA_FILE: pki.ca.certificatePath });
    const receiver = await startReceiver(pki);
    const db = new BetterSqlite3(path.join(dir, 'sello.db'));
    const cert = insertCertificate(db, dir, pki, { environment: 'test' });
    db.close();
    const pdf = await makePdf();
    const body = (i: number) =>
      JSON.stringify({
        subject: `Bench ${i}`,
        reference_id: `bench-${i}`,
        callback_url: receiver.url,
        send: true,
        documents: [{ title: 'Contrato', file_extension: 'pdf', document_base64: pdf.toString('base64'), signatures: [{ signing_certificate: cert.id, page: '1', x: '36', y: '36' }] }],
      });
    const post = async (i: number) => {
      const res = await fetch(`${serve.baseUrl}/digital-signatures/signing-requests`, {
        method: 'POST',
        headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
        body: body(i),
      });
      if (res.status !== 200) throw new Error(`create ${i}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    try {
      // Warm-up: 20 requests to completion.
      for (let i = 0; i < 20; i++) await post(-1 - i);
      await receiver.waitFor((r) => r.length >= 20, 30_000);
      const warm = receiver.requests.length;

      const started = new Map<string, number>();
      const createMs: number[] = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (next < total) {
            const i = next++;
            const at = performance.now();
            started.set(`bench-${i}`, at);
            await post(i);
            createMs.push(performance.now() - at);
          }
        }),
      );
      const createdAt = performance.now();
      await receiver.waitFor((r) => r.length >= warm + total, 120_000);
      const elapsed = (performance.now() - t0) / 1000;
      // receivedAt is Date.now(); started is performance.now(): convert started to epoch ms.
      const e2e = receiver.requests
        .slice(warm)
        .map((r) => r.receivedAt - (performance.timeOrigin + (started.get((JSON.parse(r.rawBody.toString('utf8')) as { reference_id: string }).reference_id) ?? 0)))
        .sort((a, b) => a - b);
      createMs.sort((a, b) => a - b);
      const perSecond = total / elapsed;
      report.table(
        ['measure', 'value'],
        [
          ['requests', total],
          ['completed per second (create → callback)', perSecond.toFixed(1)],
          ['creates per second (HTTP only)', (total / ((createdAt - t0) / 1000)).toFixed(1)],
          ['create p50 / p99 ms', `${percentile(createMs, 50).toFixed(1)} / ${percentile(createMs, 99).toFixed(1)}`],
          ['create → callback p50 / p99 ms', `${percentile(e2e, 50).toFixed(0)} / ${percentile(e2e, 99).toFixed(0)}`],
          ['callbacks received', receiver.requests.length - warm],
        ],
      );
      report.goal(`≥ 50 signing requests completed per second (this run: ${perSecond.toFixed(1)})`, perSecond >= 50);
    } finally {
      await receiver.close();
      serve.child.kill('SIGTERM');
      await serve.exited;
      await pki.cleanup();
    }
  },
};

export default benchmark;
