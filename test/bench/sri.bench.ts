/**
 * `npm run bench -- sri` (issue 16, Benchmark): invoices per second from `POST /api/v1/invoices`
 * to `authorized`, against the fake SRI answering at once (in its own process, its checks off),
 * with a software key (a test certificate of the agent's test CA); then, in the same run, the
 * XAdES-BES signatures per second of Sello next to ec-sri-invoice-signer (the xades benchmark's
 * own code, test/bench/xades.bench.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { issueTestCertificate, openDataTestCa, parseTestCertificateRequest } from '../../core/certificates/index.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { testPrincipal } from '../helpers/certificates.js';
import { repoRoot } from '../helpers/cli.js';
import { fiscalHeaders } from '../helpers/documents.js';
import { issuerBody, putIssuer, validInvoiceBody } from '../helpers/invoices.js';
import type { Benchmark } from './run.js';
import xades from './xades.bench.js';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 2_000);
const WARM_UP = 100;
/** Requests an ERP keeps open at once. */
const CLIENTS = 32;

interface FakeProcess {
  baseUrl: string;
  /** Stops it and returns what it saw. */
  stop(): Promise<{ stats: Record<string, number>; keys: number; authorized_once: number; authorized_more: number }>;
}

async function startFakeSriProcess(): Promise<FakeProcess> {
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/bench/fixtures/fake-sri-process.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const queue: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  lines.on('line', (line) => {
    if (waiting) {
      const w = waiting;
      waiting = undefined;
      w(line);
    } else queue.push(line);
  });
  const next = () => new Promise<string>((resolve) => (queue.length > 0 ? resolve(queue.shift()!) : (waiting = resolve)));
  const { base_url } = JSON.parse(await next()) as { base_url: string };
  return {
    baseUrl: base_url,
    async stop() {
      child.kill('SIGTERM');
      return JSON.parse(await next()) as Awaited<ReturnType<FakeProcess['stop']>>;
    },
  };
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function authorizedCount(agent: TestAgent): number {
  return (agent.store.sqlite.prepare("select count(*) as n from documents where status = 'authorized'").get() as { n: number }).n;
}

async function waitAuthorized(agent: TestAgent, n: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (authorizedCount(agent) < n) {
    if (Date.now() > until) {
      const states = agent.store.sqlite.prepare('select state, count(*) as n, max(last_error) as e from fiscal_submissions group by state').all();
      throw new Error(`only ${authorizedCount(agent)} of ${n} invoices authorized after ${timeoutMs / 1000} s: ${JSON.stringify(states)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Posts `count` invoices with CLIENTS requests open at once; returns each POST's latency. */
async function postInvoices(agent: TestAgent, prefix: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let nextIndex = 0;
  const headers = fiscalHeaders(agent.testKey);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = nextIndex++;
        if (i >= count) return;
        const t0 = performance.now();
        const res = await fetch(`${agent.baseUrl}/api/v1/invoices`, { method: 'POST', headers, body: JSON.stringify(validInvoiceBody(`${prefix}-${i}`)) });
        const text = await res.text();
        if (res.status !== 201) throw new Error(`POST /api/v1/invoices: ${res.status} ${text.slice(0, 300)}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

const benchmark: Benchmark = {
  description: 'Invoices per second from POST to authorized against the fake SRI (software key), and XAdES signatures per second next to ec-sri-invoice-signer',
  notes: `
The agent runs in this process, as \`sello serve\` would, with a test certificate as the issuer's
key and SHA-1 signatures (the default). The fake SRI runs in a process of its own and answers at
once with its checks off (xmllint and xmlsec1 would cost it more than Sello's whole work); every
invoice still goes through both web services: \`validarComprobante\` (RECIBIDA) and
\`autorizacionComprobante\` (AUTORIZADO), each over HTTP. ${CLIENTS} ERP requests are kept open
at once; the first authorization is asked right after the reception (a real SRI usually needs a
moment: the later polls follow the schedule). "POST → authorized" per invoice is the
document's \`updated_at\` at authorization minus its \`created_at\`. Each invoice costs four
commits (number, signed, sent, authorized); the steps' outcomes share commits (\`store.batch\`).
`,
  async run(report) {
    const sri = await startFakeSriProcess();
    const agent = await startTestAgent({ sriTestUrl: sri.baseUrl, sriProductionUrl: sri.baseUrl, rateLimitPerMinute: 1_000_000_000 });
    let fakeSaw: Awaited<ReturnType<FakeProcess['stop']>> | undefined;
    try {
      const ca = await openDataTestCa(agent.dataDir);
      const cert = issueTestCertificate(agent.store, loadSecretBox(agent.dataDir), ca, parseTestCertificateRequest({ type: 'ec/individual', validity: 365, principal: testPrincipal }));
      await putIssuer(agent, agent.testKey, issuerBody(cert.id));

      await postInvoices(agent, 'WARM', WARM_UP);
      await waitAuthorized(agent, WARM_UP, 60_000);

      const t0 = performance.now();
      const posts = await postInvoices(agent, 'BENCH', INVOICES);
      const postSeconds = (performance.now() - t0) / 1000;
      await waitAuthorized(agent, WARM_UP + INVOICES, 600_000);
      const seconds = (performance.now() - t0) / 1000;
      const rate = INVOICES / seconds;

      const rows = agent.store.sqlite
        .prepare("select created_at, updated_at from documents where external_ref like 'BENCH-%' and status = 'authorized'")
        .all() as Array<{ created_at: string; updated_at: string }>;
      const endToEnd = rows.map((r) => Date.parse(r.updated_at) - Date.parse(r.created_at)).sort((a, b) => a - b);
      posts.sort((a, b) => a - b);
      fakeSaw = await sri.stop();

      report.table(
        ['invoices', 'seconds', 'invoices/s POST → authorized', 'POSTs/s', 'POST p50 ms', 'POST p99 ms', 'POST → authorized p50 ms', 'p99 ms', 'max ms'],
        [
          [
            INVOICES,
            seconds.toFixed(1),
            rate.toFixed(0),
            (INVOICES / postSeconds).toFixed(0),
            percentile(posts, 50).toFixed(1),
            percentile(posts, 99).toFixed(1),
            String(percentile(endToEnd, 50)),
            String(percentile(endToEnd, 99)),
            String(endToEnd[endToEnd.length - 1] ?? 0),
          ],
        ],
      );
      report.text(
        `The fake SRI saw ${fakeSaw.stats.recepcion} receptions and ${fakeSaw.stats.autorizacion} authorization queries for ${fakeSaw.keys} access keys ` +
          `(${WARM_UP} of them the warm-up); ${fakeSaw.authorized_once} authorized once, ${fakeSaw.authorized_more} more than once.`,
      );
      report.goal(`≥ 100 invoices/s from POST to authorized (this run: ${rate.toFixed(0)}/s)`, rate >= 100);
    } finally {
      if (!fakeSaw) await sri.stop().catch(() => undefined);
      await agent.close();
    }

    // The same run: Sello's XAdES next to ec-sri-invoice-signer, the xades benchmark's own code.
    report.text('XAdES-BES signatures of a 5 KB factura, same key, same run (test/bench/xades.bench.ts):');
    await xades.run(report);
  },
};

export default benchmark;
