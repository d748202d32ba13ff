/**
 * The invariants every fault scenario ends with, read from what an outsider can see: the
 * receiver's log, the store file (opened by another process, as a support person would)
 * and the folders on disk. Each check returns counts for the table and a list of problems;
 * a scenario passes when the list is empty.
 *
 * What is promised, and so what is checked (CONTRACT §9, §11, §13; docs/webhooks.md):
 * - every event and every callback arrives, confirmed by a 2xx, at least once;
 * - nothing the store had recorded as delivered when a process died is sent again, and within
 *   one process nothing is sent again after a 2xx (only an attempt in flight at a kill may
 *   arrive twice, from two processes);
 * - one event per status change, one delivery per event and endpoint, one callback row per
 *   request, one signing request per Idempotency-Key;
 * - every signed PDF carries exactly the signatures asked for, each intact, and is the one the
 *   callback carried; every dropped file is signed exactly once, its original moved beside it,
 *   nothing in `errores/`, nothing half-written.
 */
import BetterSqlite3 from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { verifyPdfSignatures } from '../../core/pdf/index.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import type { Receipt } from './receiver.js';

const sha256 = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

/** The store of a data folder, read-only, from outside the agent. */
export function openStoreFile(dataDir: string): BetterSqlite3.Database {
  return new BetterSqlite3(path.join(dataDir, 'sello.db'), { readonly: true, fileMustExist: true });
}

export function withStoreFile<T>(dataDir: string, fn: (db: BetterSqlite3.Database) => T): T {
  const db = openStoreFile(dataDir);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** What a dead process had recorded as confirmed: the Webhook-Ids of delivered rows. */
export function deliveredIds(dataDir: string): Set<string> {
  return withStoreFile(dataDir, (db) => new Set((db.prepare("select message_id from deliveries where state = 'delivered'").all() as Array<{ message_id: string }>).map((r) => r.message_id)));
}

/** `pragma integrity_check` of the store: "ok" or SQLite's complaints. */
export function integrity(dataDir: string): string {
  return withStoreFile(dataDir, (db) => (db.prepare('pragma integrity_check').all() as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; '));
}

// ── counts for the table ─────────────────────────────────────────────────────

export interface Counts {
  events?: number;
  signatures?: number;
  files?: number;
}

export interface Check {
  expected: Counts;
  found: Counts;
  lost: Counts;
  duplicated: Counts;
  problems: string[];
}

export function emptyCheck(): Check {
  return { expected: {}, found: {}, lost: {}, duplicated: {}, problems: [] };
}

/** Adds `b` into `a` (several checks make one table row). */
export function merge(a: Check, b: Check): Check {
  const add = (x: Counts, y: Counts): Counts => {
    const out: Counts = { ...x };
    for (const k of ['events', 'signatures', 'files'] as const) if (y[k] !== undefined) out[k] = (out[k] ?? 0) + y[k]!;
    return out;
  };
  return {
    expected: add(a.expected, b.expected),
    found: add(a.found, b.found),
    lost: add(a.lost, b.lost),
    duplicated: add(a.duplicated, b.duplicated),
    problems: [...a.problems, ...b.problems],
  };
}

// ── deliveries (events and callbacks) ────────────────────────────────────────

export interface DeliveryVerdict {
  /** Webhook-Ids never confirmed by a 2xx. */
  lost: string[];
  /** Requests that broke "nothing confirmed is sent again". */
  resentAfterConfirmed: string[];
  /** Repeats the contract allows: an attempt in flight at a kill, sent again by the next process. */
  repeatsAcrossKills: number;
  /** Requests with a Webhook-Id nobody expected. */
  unexpected: string[];
  confirmed: number;
}

/**
 * `deliveredAtEnd.get(e)`: the Webhook-Ids the store held as delivered when process `e` died
 * (read after its death). A request that arrives from process `e` must not carry one of those
 * of `e - 1` or earlier (the sets only grow), and within one process nothing comes again after
 * a 2xx.
 */
export function judgeDeliveries(expectedIds: Iterable<string>, receipts: readonly Receipt[], deliveredAtEnd: ReadonlyMap<number, ReadonlySet<string>>): DeliveryVerdict {
  const expected = new Set(expectedIds);
  const resentAfterConfirmed: string[] = [];
  const unexpected: string[] = [];
  let repeatsAcrossKills = 0;
  /** The delivered set of the last process that died before `epoch` (the sets only grow). */
  const deliveredBefore = (epoch: number): ReadonlySet<string> | undefined => {
    for (let e = epoch - 1; e >= 0; e--) {
      const s = deliveredAtEnd.get(e);
      if (s) return s;
    }
    return undefined;
  };
  const okIn = new Map<string, number>(); // Webhook-Id → the process that last got a 2xx for it
  const firstEpoch = new Map<string, number>();
  const is2xx = (r: Receipt): boolean => r.answered !== undefined && r.answered >= 200 && r.answered < 300;
  for (const r of receipts) {
    if (!expected.has(r.webhookId)) {
      unexpected.push(r.webhookId);
      continue;
    }
    if (deliveredBefore(r.epoch)?.has(r.webhookId)) resentAfterConfirmed.push(`${r.webhookId} sent by process ${r.epoch} though recorded delivered before`);
    else if (okIn.get(r.webhookId) === r.epoch) resentAfterConfirmed.push(`${r.webhookId} sent again by process ${r.epoch} after a 2xx`);
    else if ((firstEpoch.get(r.webhookId) ?? r.epoch) < r.epoch && okIn.has(r.webhookId)) repeatsAcrossKills++;
    if (!firstEpoch.has(r.webhookId)) firstEpoch.set(r.webhookId, r.epoch);
    if (is2xx(r)) okIn.set(r.webhookId, r.epoch);
  }
  const confirmedIds = new Set(receipts.filter(is2xx).map((r) => r.webhookId));
  return {
    lost: [...expected].filter((id) => !confirmedIds.has(id)),
    resentAfterConfirmed,
    repeatsAcrossKills,
    unexpected,
    confirmed: [...expected].filter((id) => confirmedIds.has(id)).length,
  };
}

// ── documents and their events ───────────────────────────────────────────────

export interface DocumentsExpectation {
  /** external_ref → the document id the API gave; every one was acknowledged. */
  documents: ReadonlyMap<string, string>;
  /** Event types each document must have emitted, once each. */
  eventTypes: readonly string[];
  endpointSecret: string;
}

/** Events of the acknowledged status changes: stored once, one delivery each, each confirmed, none re-sent. */
export function checkEvents(dataDir: string, x: DocumentsExpectation, receipts: readonly Receipt[], deliveredAtEnd: ReadonlyMap<number, ReadonlySet<string>>, secretOk: (r: Receipt) => boolean): Check {
  const check = emptyCheck();
  const { events, deliveries, docsPerRef } = withStoreFile(dataDir, (db) => ({
    events: db.prepare('select id, document_id, type, body from events').all() as Array<{ id: string; document_id: string; type: string; body: string }>,
    deliveries: db.prepare("select event_id, state, count(*) as n from deliveries where kind = 'webhook' group by event_id, state").all() as Array<{ event_id: string; state: string; n: number }>,
    docsPerRef: db.prepare("select external_ref, count(*) as n from documents where environment = 'live' group by external_ref having n > 1").all() as Array<{ external_ref: string; n: number }>,
  }));
  const expectedCount = x.documents.size * x.eventTypes.length;
  check.expected.events = expectedCount;
  for (const d of docsPerRef) check.problems.push(`external_ref ${d.external_ref}: ${d.n} documents`);
  const byDoc = new Map<string, string[]>();
  for (const e of events) byDoc.set(e.document_id, [...(byDoc.get(e.document_id) ?? []), e.type]);
  let missingEvents = 0;
  let extraEvents = 0;
  for (const [ref, id] of x.documents) {
    const types = byDoc.get(id) ?? [];
    for (const t of x.eventTypes) {
      const n = types.filter((y) => y === t).length;
      if (n === 0) {
        missingEvents++;
        check.problems.push(`document ${ref}: no ${t} event stored`);
      }
      if (n > 1) {
        extraEvents += n - 1;
        check.problems.push(`document ${ref}: ${n} ${t} events`);
      }
    }
  }
  const deliveriesOf = new Map<string, Array<{ state: string; n: number }>>();
  for (const d of deliveries) deliveriesOf.set(d.event_id, [...(deliveriesOf.get(d.event_id) ?? []), d]);
  for (const e of events) {
    const rows = deliveriesOf.get(e.id) ?? [];
    const total = rows.reduce((n, r) => n + r.n, 0);
    if (total !== 1) check.problems.push(`event ${e.id}: ${total} delivery rows`);
    else if (rows[0]!.state !== 'delivered') check.problems.push(`event ${e.id}: delivery ${rows[0]!.state}`);
  }
  const body = new Map(events.map((e) => [e.id, e.body]));
  const ids = events.map((e) => e.id);
  const eventReceipts = receipts.filter((r) => body.has(r.webhookId));
  for (const r of eventReceipts) {
    if (r.rawBody.toString('utf8') !== body.get(r.webhookId)) check.problems.push(`event ${r.webhookId}: body differs from the stored one`);
    if (!secretOk(r)) check.problems.push(`event ${r.webhookId}: X-Service-Signature does not verify`);
  }
  const verdict = judgeDeliveries(ids, eventReceipts, deliveredAtEnd);
  check.found.events = verdict.confirmed;
  check.lost.events = verdict.lost.length + missingEvents;
  check.duplicated.events = verdict.resentAfterConfirmed.length + extraEvents;
  for (const id of verdict.lost) check.problems.push(`event ${id}: never confirmed by the receiver`);
  check.problems.push(...verdict.resentAfterConfirmed);
  return check;
}

// ── signing requests ─────────────────────────────────────────────────────────

export interface RequestExpectation {
  /** reference_id → request id from the API answer (every creation was acknowledged) and its signatures. */
  requests: ReadonlyMap<string, { id: string; signatures: number }>;
  /** Callbacks were asked for. */
  callbacks: boolean;
  pdfsigAll: boolean;
}

/** Every acknowledged request: once in the store, signed with exactly its signatures, its callback confirmed once per process at most. */
export async function checkRequests(dataDir: string, x: RequestExpectation, receipts: readonly Receipt[], deliveredAtEnd: ReadonlyMap<number, ReadonlySet<string>>): Promise<Check> {
  const check = emptyCheck();
  check.expected.signatures = [...x.requests.values()].reduce((n, r) => n + r.signatures, 0);
  const rows = withStoreFile(dataDir, (db) => {
    const refs = [...x.requests.keys()];
    const out = new Map<string, { id: string; status: string; n: number }>();
    const stmt = db.prepare('select id, status from signing_requests where reference_id = ?');
    for (const ref of refs) {
      const found = stmt.all(ref) as Array<{ id: string; status: string }>;
      if (found.length !== 1) check.problems.push(`reference ${ref}: ${found.length} signing requests`);
      if (found[0]) out.set(ref, { ...found[0], n: found.length });
    }
    const docs = db.prepare('select request_id, current, signed_hash from signing_documents where request_id in (select id from signing_requests where reference_id is not null)').all() as Array<{ request_id: string; current: Buffer | null; signed_hash: string | null }>;
    const sigs = db.prepare("select request_id, state, count(*) as n from signing_signatures group by request_id, state").all() as Array<{ request_id: string; state: string; n: number }>;
    const callbacks = db.prepare("select id, state, body from deliveries where kind = 'callback'").all() as Array<{ id: string; state: string; body: string }>;
    return { out, docs, sigs, callbacks };
  });
  const docsOf = new Map<string, Array<{ current: Buffer | null; signed_hash: string | null }>>();
  for (const d of rows.docs) docsOf.set(d.request_id, [...(docsOf.get(d.request_id) ?? []), d]);
  const sigsOf = new Map<string, Map<string, number>>();
  for (const s of rows.sigs) sigsOf.set(s.request_id, new Map([...(sigsOf.get(s.request_id) ?? new Map<string, number>()), [s.state, s.n]]));
  const callbackOf = new Map(rows.callbacks.map((c) => [c.id, c]));

  let foundSignatures = 0;
  let lostSignatures = 0;
  let extraSignatures = 0;
  let pdfsigLeft = x.pdfsigAll ? Infinity : 5;
  const expectedCallbackIds: string[] = [];
  for (const [ref, { id: apiId, signatures: wanted }] of x.requests) {
    const row = rows.out.get(ref);
    if (!row) {
      lostSignatures += wanted;
      continue;
    }
    if (row.id !== apiId) check.problems.push(`reference ${ref}: the API answered ${apiId}, the store has ${row.id}`);
    if (row.status !== 'signed') check.problems.push(`reference ${ref}: ${row.status}, not signed`);
    const states = sigsOf.get(row.id) ?? new Map<string, number>();
    if ((states.get('signed') ?? 0) !== wanted || states.size !== 1) check.problems.push(`reference ${ref}: signatures ${JSON.stringify([...states])}`);
    let inPdf = 0;
    for (const d of docsOf.get(row.id) ?? []) {
      if (!d.current) continue;
      if (d.signed_hash !== sha256(d.current)) check.problems.push(`reference ${ref}: signed_hash does not match the signed bytes`);
      const reports = verifyPdfSignatures(d.current);
      inPdf += reports.length;
      if (reports.some((r) => !r.intact)) check.problems.push(`reference ${ref}: a signature is not intact`);
      if (pdfsigLeft-- > 0) {
        const v = (await pdfsig(d.current)).validity;
        if (v.length !== reports.length || v.some((s) => s !== 'Signature is Valid.')) check.problems.push(`reference ${ref}: pdfsig says ${JSON.stringify(v)}`);
      }
    }
    foundSignatures += Math.min(inPdf, wanted);
    lostSignatures += Math.max(0, wanted - inPdf);
    extraSignatures += Math.max(0, inPdf - wanted);
    if (x.callbacks) {
      const cbId = `cb_${row.id}`;
      expectedCallbackIds.push(cbId);
      const cb = callbackOf.get(cbId);
      if (!cb) check.problems.push(`reference ${ref}: no callback row`);
      else {
        if (cb.state !== 'delivered') check.problems.push(`reference ${ref}: callback ${cb.state}`);
        const payload = JSON.parse(cb.body) as { reference_id: string; documents: Array<{ hash: string; content_base64: string }> };
        const signedHashes = (docsOf.get(row.id) ?? []).map((d) => d.signed_hash);
        if (payload.reference_id !== ref) check.problems.push(`reference ${ref}: callback names ${payload.reference_id}`);
        payload.documents.forEach((d, i) => {
          if (d.hash !== sha256(Buffer.from(d.content_base64, 'base64')) || d.hash !== signedHashes[i]) check.problems.push(`reference ${ref}: callback document ${i} is not the signed file`);
        });
      }
    }
  }
  check.found.signatures = foundSignatures;
  check.lost.signatures = lostSignatures;
  check.duplicated.signatures = extraSignatures;
  if (x.callbacks) {
    const cbReceipts = receipts.filter((r) => r.webhookId.startsWith('cb_'));
    const callbackRowsPerRequest = rows.callbacks.filter((c) => expectedCallbackIds.includes(c.id)).length;
    if (callbackRowsPerRequest !== expectedCallbackIds.length) check.problems.push(`${callbackRowsPerRequest} callback rows for ${expectedCallbackIds.length} requests`);
    const verdict = judgeDeliveries(expectedCallbackIds, cbReceipts, deliveredAtEnd);
    for (const id of verdict.lost) check.problems.push(`callback ${id}: never confirmed by the receiver`);
    check.problems.push(...verdict.resentAfterConfirmed);
    for (const id of verdict.unexpected) check.problems.push(`callback ${id}: not of an expected request`);
    // Callbacks count as events in the table: they are the other kind of delivery.
    check.expected.events = expectedCallbackIds.length;
    check.found.events = verdict.confirmed;
    check.lost.events = verdict.lost.length;
    check.duplicated.events = verdict.resentAfterConfirmed.length;
  }
  return check;
}

// ── a watched folder ─────────────────────────────────────────────────────────

export interface FolderExpectation {
  dataDir: string;
  folderId: string;
  folder: string;
  output: string;
  originals: string;
  errors: string;
  /** name → the bytes dropped under that name. */
  dropped: ReadonlyMap<string, Buffer>;
  pdfsigAll: boolean;
}

const pdfs = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.pdf')) : []);

/** Every dropped file signed exactly once under its own name, its original moved, nothing else anywhere. */
export async function checkFolder(x: FolderExpectation): Promise<Check> {
  const check = emptyCheck();
  check.expected.files = x.dropped.size;
  const signedNames = new Set(fs.existsSync(x.output) ? fs.readdirSync(x.output) : []);
  const originalNames = new Set(fs.existsSync(x.originals) ? fs.readdirSync(x.originals) : []);
  const errorNames = fs.existsSync(x.errors) ? fs.readdirSync(x.errors) : [];
  const left = pdfs(x.folder);
  let found = 0;
  let lost = 0;
  let pdfsigLeft = x.pdfsigAll ? Infinity : 10;
  for (const [name, original] of x.dropped) {
    if (!signedNames.has(name)) {
      lost++;
      check.problems.push(`${name}: no signed copy`);
      continue;
    }
    const signed = fs.readFileSync(path.join(x.output, name));
    if (!signed.subarray(0, original.length).equals(original)) check.problems.push(`${name}: the signed copy is not an update of its original`);
    const reports = verifyPdfSignatures(signed);
    if (reports.length !== 1 || !reports[0]!.intact) check.problems.push(`${name}: ${reports.length} signature(s), intact: ${reports.map((r) => r.intact).join(',')}`);
    else found++;
    if (pdfsigLeft-- > 0) {
      const v = (await pdfsig(signed)).validity;
      if (v.length !== 1 || v[0] !== 'Signature is Valid.') check.problems.push(`${name}: pdfsig says ${JSON.stringify(v)}`);
    }
    if (!originalNames.has(name)) check.problems.push(`${name}: original not in originales/`);
    else if (!fs.readFileSync(path.join(x.originals, name)).equals(original)) check.problems.push(`${name}: originales/ holds other bytes`);
  }
  const extraSigned = [...signedNames].filter((n) => !x.dropped.has(n));
  const extraOriginals = [...originalNames].filter((n) => !x.dropped.has(n));
  if (extraSigned.length > 0) check.problems.push(`firmados/ has files nobody dropped: ${extraSigned.slice(0, 10).join(', ')}`);
  if (extraOriginals.length > 0) check.problems.push(`originales/ has files nobody dropped: ${extraOriginals.slice(0, 10).join(', ')}`);
  if (errorNames.length > 0) check.problems.push(`errores/ is not empty: ${errorNames.slice(0, 10).join(', ')}`);
  if (left.length > 0) check.problems.push(`still in the folder: ${left.slice(0, 10).join(', ')}`);
  const ledger = withStoreFile(x.dataDir, (db) => db.prepare('select sha256, state, count(*) as n from watch_ledger where folder_id = ? group by sha256, state').all(x.folderId) as Array<{ sha256: string; state: string; n: number }>);
  const hashes = new Map([...x.dropped.values()].map((b) => [sha256(b), 0]));
  for (const l of ledger) {
    if (!hashes.has(l.sha256)) check.problems.push(`ledger row for content nobody dropped (${l.state})`);
    else hashes.set(l.sha256, hashes.get(l.sha256)! + l.n);
    if (l.state !== 'done') check.problems.push(`ledger row ${l.sha256.slice(0, 12)} is ${l.state}`);
  }
  for (const [h, n] of hashes) if (n !== 1) check.problems.push(`ledger has ${n} rows for ${h.slice(0, 12)}`);
  check.found.files = found;
  check.lost.files = lost;
  check.duplicated.files = extraSigned.length;
  return check;
}

/** Files a crash must never leave as final output: temporaries of an atomic write, signed copies without a signature. */
export function halfWritten(dirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      if (!name.toLowerCase().endsWith('.pdf')) continue;
      const bytes = fs.readFileSync(path.join(dir, name));
      if (dir.endsWith('firmados')) {
        const reports = verifyPdfSignatures(bytes);
        if (reports.length === 0 || reports.some((r) => !r.intact)) out.push(path.join(dir, name));
      }
    }
  }
  return out;
}

// ── the table ────────────────────────────────────────────────────────────────

export interface Row {
  scenario: string;
  faults: string;
  restarts: number | string;
  check: Check;
  result: 'ok' | 'FAIL' | 'skipped';
  seconds?: number;
  /** What the run saw that is worth reading but not a verdict (printed under the table). */
  notes?: string[];
}

/** A scenario's row once its checks are done: ok unless the checker found a problem. */
export function scenarioRow(scenario: string, faults: string, starts: number, check: Check, startedAt: number): Row {
  return {
    scenario,
    faults,
    restarts: starts - 1,
    check,
    result: check.problems.length === 0 ? 'ok' : 'FAIL',
    seconds: Math.round((Date.now() - startedAt) / 1000),
  };
}

const triple = (c: Counts): string => [c.events, c.signatures, c.files].map((n) => (n === undefined ? '–' : String(n))).join(' / ');

export function renderTable(rows: readonly Row[]): string {
  const head = '| scenario | faults injected | restarts | expected (events / signatures / files) | found | lost | duplicated | result |';
  const lines = rows.map((r) => {
    const result = r.result === 'skipped' ? `skipped: ${r.check.problems[0] ?? ''}` : `${r.result}${r.seconds !== undefined ? ` (${r.seconds} s)` : ''}`;
    const counts = r.result === 'skipped' ? ['–', '–', '–', '–'] : [triple(r.check.expected), triple(r.check.found), triple(r.check.lost), triple(r.check.duplicated)];
    return `| ${r.scenario} | ${r.faults} | ${r.restarts} | ${counts.join(' | ')} | ${result} |`;
  });
  const notes = rows.flatMap((r) => (r.notes ?? []).map((n) => `- ${r.scenario}: ${n}`));
  return [head, '|---|---|---:|---|---|---|---|---|', ...lines, ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
}
