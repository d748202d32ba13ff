/**
 * What every scenario shares: the settings of its `sello serve`, what is still to do, and the
 * ending — wait until all work is done, stop gracefully, run the checker on everything.
 */
import { pdfsIn } from '../helpers/watch-files.js';
import type { TestPki } from '../helpers/test-ca.js';
import { checkEvents, checkFolder, checkRequests, deliveredIds, emptyCheck, integrity, merge, withStoreFile, type Check } from './checker.js';
import { call, waitUntil, type SelloUnderTest } from './harness.js';
import { signatureOk, type FaultReceiver } from './receiver.js';
import { ENDPOINT_SECRET, EVENT_TYPES, type Workload } from './workload.js';

export function serveEnv(pki: TestPki): Record<string, string> {
  return {
    SELLO_CA_FILE: pki.ca.certificatePath,
    // The whole 8-attempt webhook schedule in about 100 s; a retry 5 ms after a failure.
    SELLO_DELIVERY_TIME_SCALE: '0.001',
    SELLO_RATE_LIMIT_PER_MINUTE: '100000000',
    SELLO_WATCH_STABLE_MS: '200',
    SELLO_WATCH_RELOAD_MS: '250',
  };
}

export interface WatchedFolder {
  id: string;
  path: string;
  output: string;
  originals: string;
  errors: string;
}

/** What is still to do, read from the store and the folders while a process runs. */
export function outstanding(dataDir: string, folder?: { path: string; output: string; errors?: string; dropped: number }): Record<string, number> {
  const db = withStoreFile(dataDir, (d) => ({
    deliveries: (d.prepare("select count(*) as n from deliveries where state in ('pending', 'sending')").get() as { n: number }).n,
    failedDeliveries: (d.prepare("select count(*) as n from deliveries where state = 'failed'").get() as { n: number }).n,
    // A request with a rejected signature stays `processing` for good (docs/signing-requests.md): not work left.
    processing: (
      d
        .prepare("select count(*) as n from signing_requests r where status = 'processing' and not exists (select 1 from signing_signatures s where s.request_id = r.id and s.state = 'rejected')")
        .get() as { n: number }
    ).n,
    // `failed` is final (the file is in errores/); the checker judges it.
    ledger: (d.prepare("select count(*) as n from watch_ledger where state in ('queued', 'signing', 'waiting_pin')").get() as { n: number }).n,
  }));
  if (!folder) return db;
  return { ...db, inFolder: pdfsIn(folder.path).length, unsigned: folder.dropped - pdfsIn(folder.output).length - (folder.errors ? pdfsIn(folder.errors).length : 0) };
}

export const nothingLeft = (o: Record<string, number>): boolean => Object.values(o).every((n) => n === 0);

/**
 * The opening of a scenario whose fault comes to a working office: some of everything done and
 * finished, then deliveries waiting for a retry (the receiver refuses for now) and a document
 * still pending, whose status change comes during the fault. Resolves with that document's id.
 */
export async function officeAtWork(o: { sello: SelloUnderTest; workload: Workload; receiver: FaultReceiver; dataDir: string; folder: WatchedFolder; what: string }): Promise<string> {
  const { sello, workload, folder } = o;
  await sello.start();
  await workload.createEndpoint();
  await Promise.all([workload.runDocuments(4, 2), workload.runRequests(3, 2, 1), workload.runFolder(folder.path, 4, 20, 'antes')]);
  await waitUntil(() => outstanding(o.dataDir, { path: folder.path, output: folder.output, dropped: workload.dropped.size }), nothingLeft, 60_000, `${o.what}: before`);
  o.receiver.setBehaviour(() => ({ status: 503 }));
  await workload.runDocuments(3, 1);
  const pending = workload.documentBody(2000);
  return ((await call(sello, 'POST', '/api/v1/documents', { headers: workload.bookHeaders(), body: pending.body })).json as { data: { id: string } }).data.id;
}

export interface Ending {
  sello: SelloUnderTest;
  receiver: FaultReceiver;
  workload: Workload;
  folder?: WatchedFolder;
  /** Filled in here with the last process's delivered set. */
  deliveredAtEnd: Map<number, Set<string>>;
  pdfsigAll: boolean;
  what: string;
  /** How long the remaining work may take. */
  timeoutMs?: number;
}

/**
 * Waits until nothing is left to do (every delivery out, every request signed, every file
 * signed and moved), stops `sello serve` gracefully (it must exit 0) and checks events,
 * requests and the folder. Folder signatures count in the signatures column too.
 */
export async function finishAndCheck(e: Ending): Promise<Check> {
  const { sello, receiver, workload, folder, deliveredAtEnd } = e;
  const dataDir = sello.dataDir;
  await waitUntil(
    () => outstanding(dataDir, folder ? { path: folder.path, output: folder.output, dropped: workload.dropped.size } : undefined),
    nothingLeft,
    e.timeoutMs ?? 180_000,
    `${e.what}: work left (${sello.stderr().slice(-1500)})`,
  );
  const expectedConfirmations = workload.documents.size * EVENT_TYPES.length + [...workload.requests.keys()].length;
  await waitUntil(() => receiver.confirmed().size, (n) => n >= expectedConfirmations, 60_000, `${e.what}: confirmations`);
  const epoch = sello.epoch;
  const exit = await sello.stop();
  deliveredAtEnd.set(epoch, deliveredIds(dataDir));

  let check = merge(
    checkEvents(dataDir, { documents: workload.documents, eventTypes: EVENT_TYPES, endpointSecret: ENDPOINT_SECRET }, receiver.receipts, deliveredAtEnd, (r) => signatureOk(r, ENDPOINT_SECRET)),
    await checkRequests(dataDir, { requests: workload.requests, callbacks: true, pdfsigAll: e.pdfsigAll }, receiver.receipts, deliveredAtEnd),
  );
  if (folder) {
    const files = await checkFolder({ dataDir, folderId: folder.id, folder: folder.path, output: folder.output, originals: folder.originals, errors: folder.errors, dropped: workload.dropped, pdfsigAll: e.pdfsigAll });
    check = merge(check, files);
    check.expected.signatures = (check.expected.signatures ?? 0) + (files.expected.files ?? 0);
    check.found.signatures = (check.found.signatures ?? 0) + (files.found.files ?? 0);
  }
  const extra = emptyCheck();
  extra.problems.push(...workload.problems);
  if (exit !== 0) extra.problems.push(`graceful stop exited ${exit}`);
  const ok = integrity(dataDir);
  if (ok !== 'ok') extra.problems.push(`integrity_check: ${ok}`);
  return merge(check, extra);
}
