/**
 * `npm run bench -- sri` (issue 16, Benchmark): invoices per second from `POST /api/v1/invoices`
 * to `authorized`, against the fake SRI answering at once (in its own process, its checks off),
 * with a software key (a test certificate of the agent's test CA); then (issue 18) the rate of
 * each other comprobante alone and of all of them mixed with invoices; then, in the same run,
 * the XAdES-BES signatures per second of Sello next to ec-sri-invoice-signer (the xades
 * benchmark's own code, test/bench/xades.bench.ts).
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
import { ISSUER_RUC, issuerBody, putIssuer, validInvoiceBody } from '../helpers/invoices.js';
import type { Benchmark } from './run.js';
import xades from './xades.bench.js';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 2_000);
const WARM_UP = 100;
/** Of each other type, alone; and of each type in the mixed run. */
const OTHERS = Number(process.env.BENCH_OTHERS ?? 500);
const MIXED_EACH = Number(process.env.BENCH_MIXED_EACH ?? 200);
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

/** Posts `count` bodies to `route` with CLIENTS requests open at once; returns each POST's latency and the ids. */
async function postMany(agent: TestAgent, route: string | ((i: number) => string), count: number, body: (i: number) => unknown, key = agent.testKey): Promise<{ latencies: number[]; ids: string[] }> {
  const latencies: number[] = [];
  const ids: string[] = [];
  let nextIndex = 0;
  const headers = fiscalHeaders(key);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (;;) {
        const i = nextIndex++;
        if (i >= count) return;
        const t0 = performance.now();
        const at = typeof route === 'string' ? route : route(i);
        const res = await fetch(`${agent.baseUrl}${at}`, { method: 'POST', headers, body: JSON.stringify(body(i)) });
        const text = await res.text();
        if (res.status !== 201) throw new Error(`POST ${at}: ${res.status} ${text.slice(0, 300)}`);
        latencies.push(performance.now() - t0);
        ids[i] = (JSON.parse(text) as { data: { id: string } }).data.id;
      }
    }),
  );
  return { latencies, ids };
}

async function postInvoices(agent: TestAgent, prefix: string, count: number): Promise<{ latencies: number[]; ids: string[] }> {
  return postMany(agent, '/api/v1/invoices', count, (i) => validInvoiceBody(`${prefix}-${i}`));
}

interface ComprobanteType {
  name: string;
  route: string | ((i: number) => string);
  body: (ref: string, i: number) => unknown;
}

/**
 * Purchases for the withholdings: a supplier (another book of the agent, its own issuer) issues
 * `count` facturas to the book's RUC, the fake SRI authorizes them, and the book records each by
 * its access key (Sello asks the authorization service and verifies the signature). Returns the
 * purchases' ids and the rate of POST /api/v1/purchases.
 */
async function recordPurchases(agent: TestAgent, certificateId: string, count: number, authorizedBefore: number): Promise<{ ids: string[]; perSecond: number }> {
  const supplier = agent.addBook('proveedor', { environment: 'test' });
  await putIssuer(agent, supplier.key, issuerBody(certificateId, { ruc: '1790011674001', razon_social: 'Distribuidora Ñandú & Cía. Ltda.' }));
  const buyer = { name: 'Contadores Andinos Pérez & Asociados S.A.', tax_id: ISSUER_RUC, tax_id_type: { type: 'ec-ruc', code: '06' } };
  const { ids: invoiceIds } = await postMany(agent, '/api/v1/invoices', count, (i) => validInvoiceBody(`PROV-${i}`, { customer: buyer }), supplier.key);
  await waitAuthorized(agent, authorizedBefore + count, 600_000);
  const keys = invoiceIds.map((id) => (agent.store.sqlite.prepare('select access_key from documents where id = ?').get(id) as { access_key: string }).access_key);
  const t = performance.now();
  const { ids } = await postMany(agent, '/api/v1/purchases', count, (i) => ({ access_key: keys[i] }));
  return { ids, perSecond: count / ((performance.now() - t) / 1000) };
}

/** A withholding of renta 312 and IVA 30 % of purchase `purchaseIds[i]` (each purchase withheld once). */
function withholdingType(purchaseIds: readonly string[], today: string): ComprobanteType {
  return {
    name: 'withholdings',
    route: (i) => `/api/v1/purchases/${purchaseIds[i]}/withhold`,
    body: (ref) => ({
      external_ref: ref,
      issue_date: today,
      lines: [
        { tax: 'renta', code: '312', base: '120.00', rate: '1.75' },
        { tax: 'iva', code: '1', base: '15.00', rate: '30' },
      ],
    }),
  };
}

/** The other comprobantes of issue 18, each a body builder; a note modifies one of the given invoices. */
function otherTypes(invoiceIds: readonly string[]): ComprobanteType[] {
  const { payments: _p, grand_total: _g, additional_info: _a, ...sale } = validInvoiceBody('x');
  const { lines: _l, ...header } = sale;
  const today = (sale as { issue_date: string }).issue_date;
  const line = (price: string) => [{ code: 'ASE-01', description: 'Devolución de asesoría', quantity: '1', unit_price: price, discount: '0.00', taxes: [{ type: 'ec-iva-15' }] }];
  return [
    { name: 'credit notes', route: '/api/v1/credit-notes', body: (ref, i) => ({ ...sale, external_ref: ref, invoice_id: invoiceIds[i % invoiceIds.length], reason: 'Devolución parcial', lines: line('1.00') }) },
    {
      name: 'debit notes',
      route: '/api/v1/debit-notes',
      body: (ref, i) => ({ ...header, external_ref: ref, invoice_id: invoiceIds[i % invoiceIds.length], reasons: [{ reason: 'Intereses por mora', amount: '0.66', taxes: [{ type: 'ec-iva-0' }] }, { reason: 'Gastos de cobranza', amount: '15.65', taxes: [{ type: 'ec-iva-15' }] }] }),
    },
    {
      name: 'purchase settlements',
      route: '/api/v1/purchase-settlements',
      body: (ref) => {
        const { customer, ...rest } = validInvoiceBody(ref) as Record<string, unknown>;
        return { ...rest, supplier: customer, additional_info: undefined };
      },
    },
    {
      name: 'remission guides',
      route: '/api/v1/remission-guides',
      body: (ref, i) => ({
        external_ref: ref,
        issue_date: today,
        establishment: '001',
        emission_point: '001',
        departure_address: 'Av. Amazonas N34-451 y Atahualpa, Quito',
        carrier: { name: 'Transportes del Sur Cía. Ltda.', tax_id: '1790011674001', tax_id_type: { type: 'ec-ruc', code: '06' } },
        plate: 'PBA-1234',
        transport_start: today,
        transport_end: today,
        recipients: [{ name: 'María José Núñez Peñaherrera', tax_id: '1714307103', tax_id_type: { type: 'ec-cedula', code: '05' }, address: 'Calle Sucre 1-23, Cuenca', reason: 'Venta', invoice_id: invoiceIds[i % invoiceIds.length], goods: [{ code: 'LIB-02', description: 'Libro', quantity: '1' }] }],
      }),
    },
  ];
}

const benchmark: Benchmark = {
  description: 'Invoices per second from POST to authorized against the fake SRI (software key), every other comprobante alone and mixed, and XAdES signatures per second next to ec-sri-invoice-signer',
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
      const { latencies: posts, ids: invoiceIds } = await postInvoices(agent, 'BENCH', INVOICES);
      const postSeconds = (performance.now() - t0) / 1000;
      await waitAuthorized(agent, WARM_UP + INVOICES, 600_000);
      const seconds = (performance.now() - t0) / 1000;
      const rate = INVOICES / seconds;

      const rows = agent.store.sqlite
        .prepare("select created_at, updated_at from documents where external_ref like 'BENCH-%' and status = 'authorized'")
        .all() as Array<{ created_at: string; updated_at: string }>;
      const endToEnd = rows.map((r) => Date.parse(r.updated_at) - Date.parse(r.created_at)).sort((a, b) => a - b);
      posts.sort((a, b) => a - b);

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
      report.goal(`≥ 100 invoices/s from POST to authorized (this run: ${rate.toFixed(0)}/s)`, rate >= 100);

      // Issue 18: every other type on the same machinery, each alone (its own rate), then all of
      // them and invoices together (a mixed run, as an office's day sends them).
      const today = (validInvoiceBody('x') as { issue_date: string }).issue_date;
      let authorized = WARM_UP + INVOICES;
      // Withholdings need received purchases: one per withholding, alone and mixed.
      const purchases = await recordPurchases(agent, cert.id, OTHERS + MIXED_EACH, authorized);
      authorized += OTHERS + MIXED_EACH;
      report.text(`Purchases recorded by access key (POST /api/v1/purchases: the SRI asked, the signature verified): ${purchases.perSecond.toFixed(0)}/s over ${OTHERS + MIXED_EACH}.`);
      const types = [...otherTypes(invoiceIds), withholdingType(purchases.ids.slice(0, OTHERS), today)];
      const mixedTypes = [...otherTypes(invoiceIds), withholdingType(purchases.ids.slice(OTHERS), today)];
      const typeRows: Array<Array<string | number>> = [];
      const rates = new Map<string, number>();
      for (const type of types) {
        const t = performance.now();
        await postMany(agent, type.route, OTHERS, (i) => type.body(`${type.name}-${i}`, i));
        authorized += OTHERS;
        await waitAuthorized(agent, authorized, 600_000);
        const perSecond = OTHERS / ((performance.now() - t) / 1000);
        rates.set(type.name, perSecond);
        typeRows.push([type.name, OTHERS, perSecond.toFixed(0), `${((perSecond / rate) * 100).toFixed(0)} %`]);
      }
      const all: ComprobanteType[] = [{ name: 'invoices', route: '/api/v1/invoices', body: (ref: string) => validInvoiceBody(ref) }, ...mixedTypes];
      const tMixed = performance.now();
      await Promise.all(all.map((type) => postMany(agent, type.route, MIXED_EACH, (i) => type.body(`mixed-${type.name}-${i}`, i))));
      authorized += MIXED_EACH * all.length;
      await waitAuthorized(agent, authorized, 600_000);
      const mixedRate = (MIXED_EACH * all.length) / ((performance.now() - tMixed) / 1000);
      typeRows.push([`mixed: ${all.map((t) => t.name).join(', ')} together`, MIXED_EACH * all.length, mixedRate.toFixed(0), `${((mixedRate / rate) * 100).toFixed(0)} %`]);
      report.table(['comprobantes', 'count', 'per second POST → authorized', 'of the invoice rate'], typeRows);
      fakeSaw = await sri.stop();
      report.text(
        `Over the whole run the fake SRI saw ${fakeSaw.stats.recepcion} receptions and ${fakeSaw.stats.autorizacion} authorization queries for ${fakeSaw.keys} access keys ` +
          `(${WARM_UP} of them the warm-up); ${fakeSaw.authorized_once} authorized once, ${fakeSaw.authorized_more} more than once.`,
      );
      const slowest = Math.min(...rates.values(), mixedRate);
      report.goal(`no type below 80 % of the invoice rate (this run: the lowest ${((slowest / rate) * 100).toFixed(0)} %)`, slowest >= 0.8 * rate);
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
