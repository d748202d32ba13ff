/**
 * Scenario: `kill -9` with invoices in flight (CONTRACT §15 "Lifecycle", issue 16 Acceptance).
 * A real `sello serve` issues invoices to the fake SRI, which answers slowly (so that sends and
 * authorizations are under way at the kill, and some answers are lost with the process that
 * asked); in each round an ERP posts 20 invoices at once and keeps retrying each with its
 * `external_ref` through the kill and the restart, as an ERP does. At the end:
 * - every acknowledged invoice (a 201, first or replayed) is `authorized`;
 * - the fake SRI authorized each of their access keys exactly once, and received no other key
 *   (a document numbered twice would be a second key for the same invoice, or a 45);
 * - the secuenciales are 1…N, unique, without gaps, and the series' counter is N.
 */
import fs from 'node:fs';
import path from 'node:path';
import { selloJson } from '../helpers/cli.js';
import { startFakeSri, type FakeSri } from '../helpers/fake-sri/index.js';
import { issuerBody, validInvoiceBody } from '../helpers/invoices.js';
import type { TestPki } from '../helpers/test-ca.js';
import { emptyCheck, integrity, scenarioRow, withStoreFile, type Row } from './checker.js';
import { call, persist, seededRandom, setUpOffice, SelloUnderTest, sleep, tempDir, waitUntil, type FaultsSettings } from './harness.js';
import { serveEnv } from './scenario.js';

const PER_ROUND = 20;

interface StoredInvoice {
  id: string;
  external_ref: string;
  numero: string;
  access_key: string;
  status: string;
  state: string;
}

function storedInvoices(dataDir: string): StoredInvoice[] {
  return withStoreFile(dataDir, (d) =>
    d
      .prepare(
        `select d.id, d.external_ref, d.numero, d.access_key, d.status, s.state
           from documents d join fiscal_submissions s on s.document_id = d.id order by d.numero`,
      )
      .all() as StoredInvoice[],
  );
}

/** Submissions under way, by state. */
function inFlightByState(dataDir: string): Record<string, number> {
  return withStoreFile(dataDir, (d) =>
    Object.fromEntries(
      (d.prepare("select state, count(*) as n from fiscal_submissions where state in ('pending', 'signed', 'sent') group by state").all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]),
    ),
  );
}

/** Submissions under way: claimed, or between two steps. */
function inFlight(dataDir: string): number {
  return withStoreFile(dataDir, (d) => (d.prepare("select count(*) as n from fiscal_submissions where state in ('pending', 'signed', 'sent')").get() as { n: number }).n);
}

export async function fiscalKill(pki: TestPki, settings: FaultsSettings, log: (line: string) => void): Promise<Row> {
  const started = Date.now();
  const random = seededRandom(settings.seed ^ 0x5e11);
  const rounds = settings.ci ? 3 : 5;
  const work = tempDir('sello-faults-fiscal-');
  const dataDir = path.join(work, 'data');
  const office = setUpOffice(dataDir, work);
  const testKey = selloJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'test', '--book', 'oficina', '--data-dir', dataDir]).key;
  // Answers take 20–250 ms, and the SRI goes on processing a request whose client died.
  const sri: FakeSri = await startFakeSri();
  const slow = () => ({ kind: 'slow' as const, delayMs: 20 + Math.floor(random() * 230) });
  sri.setPolicy('recepcion', slow);
  sri.setPolicy('autorizacion', slow);
  const sello = new SelloUnderTest(dataDir, { ...serveEnv(pki), SELLO_SRI_TEST_URL: sri.baseUrl, SELLO_SRI_PRODUCTION_URL: sri.baseUrl });
  const headers = { Authorization: `Bearer ${testKey}` };
  const deadline = Date.now() + 300_000;
  const acknowledged = new Map<string, { id: string; numero: string; access_key: string }>();
  const problems: string[] = [];
  const atKills: Record<string, number> = {};
  try {
    await sello.start();
    const put = await call(sello, 'PUT', '/api/v1/issuer', { headers, body: issuerBody(office.certificateId) });
    if (put.status !== 200) throw new Error(`PUT /api/v1/issuer: ${put.status} ${put.text}`);

    for (let round = 0; round < rounds; round++) {
      const posts = Array.from({ length: PER_ROUND }, async (_, i) => {
        const ref = `F-${round}-${i}`;
        await sleep(random() * 150);
        const a = await persist(sello, 'POST', '/api/v1/invoices', { headers, body: validInvoiceBody(ref), deadline });
        if (a.status !== 201) {
          problems.push(`${ref}: ${a.status} ${a.text.slice(0, 200)}`);
          return;
        }
        const data = (a.json as { data: { id: string; numero: string; access_key: string } }).data;
        const earlier = acknowledged.get(ref);
        if (earlier && earlier.id !== data.id) problems.push(`${ref}: acknowledged twice with different documents (${earlier.numero}, ${data.numero})`);
        acknowledged.set(ref, { id: data.id, numero: data.numero, access_key: data.access_key });
      });
      // The kill: at a random moment of the round, so that kills land while invoices are being
      // numbered, signed, sent and authorized.
      await sleep(100 + random() * 1_900);
      const phases = inFlightByState(dataDir);
      for (const [state, n] of Object.entries(phases)) atKills[state] = (atKills[state] ?? 0) + n;
      await sello.kill9();
      if (random() < 0.5) await sleep(random() * 500);
      await sello.start();
      await Promise.all(posts);
      // The next round starts with nothing under way: its kill hits its own invoices.
      await waitUntil(() => inFlight(dataDir), (n) => n === 0, 120_000, `fiscal kill: round ${round} (${sello.stderr().slice(-1500)})`, 50);
    }

    await waitUntil(() => inFlight(dataDir), (n) => n === 0, 120_000, `fiscal kill: submissions left (${sello.stderr().slice(-1500)})`);
    const exit = await sello.stop();
    if (exit !== 0) problems.push(`graceful stop exited ${exit}`);

    const stored = storedInvoices(dataDir);
    const byRef = new Map(stored.map((s) => [s.external_ref, s]));
    for (const [ref, ack] of acknowledged) {
      const row = byRef.get(ref);
      if (!row) problems.push(`${ref}: acknowledged but not stored`);
      else if (row.id !== ack.id) problems.push(`${ref}: acknowledged as ${ack.id}, stored as ${row.id}`);
      else if (row.status !== 'authorized' || row.state !== 'authorized') problems.push(`${ref} (${row.numero}): ${row.status}/${row.state}, not authorized`);
    }
    if (stored.length !== acknowledged.size) problems.push(`${stored.length} invoices stored, ${acknowledged.size} acknowledged`);
    const numbers = stored.map((s) => Number(s.numero.slice(8))).sort((a, b) => a - b);
    const expectedNumbers = Array.from({ length: stored.length }, (_, i) => i + 1);
    if (JSON.stringify(numbers) !== JSON.stringify(expectedNumbers)) problems.push(`secuenciales are not 1…${stored.length}: ${numbers.join(',')}`);
    const last = withStoreFile(dataDir, (d) => (d.prepare("select last from fiscal_sequences where doc_code = '01'").get() as { last: number } | undefined)?.last);
    if (last !== stored.length) problems.push(`the series' counter is ${last}, ${stored.length} invoices`);

    const ours = new Set(stored.map((s) => s.access_key));
    let authorizedOnce = 0;
    let resent = 0;
    for (const s of stored) {
      const doc = sri.documents.get(s.access_key);
      const verdicts = doc?.history.filter((h) => h.estado === 'AUTORIZADO').length ?? 0;
      if (verdicts === 1) authorizedOnce++;
      else problems.push(`${s.numero}: authorized ${verdicts} times at the SRI`);
      if ((doc?.receptions ?? 0) > 1 || sri.receptionsOf(s.access_key) > 1) resent++;
    }
    for (const key of sri.documents.keys()) if (!ours.has(key)) problems.push(`the SRI received a key Sello does not hold: ${key}`);
    const devueltas = sri.calls.filter((c) => c.service === 'recepcion' && c.answer?.estado === 'DEVUELTA').map((c) => c.answer?.mensajes?.[0]?.identificador);
    const unexpected = devueltas.filter((code) => code !== '43' && code !== '70');
    if (unexpected.length > 0) problems.push(`DEVUELTA other than 43/70: ${unexpected.join(', ')}`);
    const ok = integrity(dataDir);
    if (ok !== 'ok') problems.push(`integrity_check: ${ok}`);

    const phases = `pending ${atKills.pending ?? 0}, signed ${atKills.signed ?? 0}, sent ${atKills.sent ?? 0}`;
    log(`fiscal kill: ${sello.kills} kills; in flight at the kills: ${phases}; ${stored.length} invoices, ${authorizedOnce} authorized once, ${resent} sent again after a kill (${devueltas.length} DEVUELTA 43/70)`);
    const check = emptyCheck();
    check.problems.push(...problems);
    const row = scenarioRow('kill -9 with invoices in flight to the SRI', `kill -9 × ${sello.kills}, ${PER_ROUND} invoices posted around each; in flight at the kills: ${phases}`, sello.starts, check, started);
    row.notes = [
      `invoices: ${acknowledged.size} acknowledged, ${stored.length} stored, ${authorizedOnce} authorized exactly once at the fake SRI; numbers 1…${stored.length} without gaps; ` +
        `${resent} resent after a kill (${devueltas.length} DEVUELTA 43/70, then the authorization)`,
    ];
    return row;
  } finally {
    sello.forceKill();
    await sri.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
