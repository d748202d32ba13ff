/**
 * Scenario 2: the disk fills up. The data folder and the watched folder share one small tmpfs
 * (an office's only disk): the store, the signed copies and the moves all need space. The disk
 * fills while a signing request is half-way and webhook deliveries wait for a retry; then, with
 * the disk full, Sello gets API writes and dropped files. It must answer clear errors in each
 * family's envelope (507 `storage_full`), stay up, and leave nothing half-written. Then space
 * is freed: the request and the deliveries resume by themselves, the ERP sends again what was
 * refused, Sello is restarted, and the checker proves nothing was lost or duplicated.
 */
import BetterSqlite3 from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeLargePdf } from '../helpers/pdf-fixtures.js';
import type { TestPki } from '../helpers/test-ca.js';
import { distinctPdfs, pdfsIn } from '../helpers/watch-files.js';
import { deliveredIds, halfWritten, integrity, scenarioRow, withStoreFile, type Row } from './checker.js';
import { envelopeProblems, STORAGE_FULL, type Family } from './envelopes.js';
import { addWatchedFolder, call, seededRandom, setUpOffice, SelloUnderTest, sleep, tempDir, waitUntil, type Answer, type FaultsSettings } from './harness.js';
import { alwaysOk, startFaultReceiver, type FaultReceiver } from './receiver.js';
import { finishAndCheck, officeAtWork, outstanding, serveEnv } from './scenario.js';
import { Workload } from './workload.js';

/** Mounts a tmpfs of `sizeMb` at `dir`; the reason when it cannot (not root, no mount). */
export function mountTmpfs(dir: string, sizeMb: number): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err).trim().split('\n')[0] || 'mount failed';
  }
}

export function unmount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  } catch {
    // Not mounted (the mount failed, or already undone).
  }
}

/** Fills the filesystem of `dir` until `leaveBytes` are free (0: to the last byte); returns the filler. */
function fill(dir: string, name: string, leaveBytes = 0): string {
  const filler = path.join(dir, name);
  const fd = fs.openSync(filler, 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512]) {
      const chunk = Buffer.alloc(size, 0x55);
      for (;;) {
        const st = fs.statfsSync(dir);
        if (leaveBytes > 0 && st.bavail * st.bsize - size < leaveBytes) break;
        try {
          fs.writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/**
 * Empties the store's write-ahead log into the database file (another connection may do that),
 * so that every later write needs new space on the disk: a log that has grown before would
 * otherwise take small writes in its old space, full disk or not.
 */
function truncateWal(dataDir: string): void {
  const db = new BetterSqlite3(path.join(dataDir, 'sello.db'));
  try {
    for (let i = 0; i < 50; i++) {
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (result?.busy === 0) return;
    }
    throw new Error('the write-ahead log could not be emptied');
  } finally {
    db.close();
  }
}

const signedSoFar = (dataDir: string, requestId: string): number =>
  withStoreFile(dataDir, (db) => (db.prepare("select count(*) as n from signing_signatures where request_id = ? and state = 'signed'").get(requestId) as { n: number }).n);

export async function fullDisk(pki: TestPki, settings: FaultsSettings, log: (line: string) => void): Promise<Row> {
  const started = Date.now();
  const scenario = 'disk full (data and watched folder on a 32 MB tmpfs)';
  const work = tempDir('sello-faults-disk-');
  const disk = path.join(work, 'disco');
  fs.mkdirSync(disk);
  const why = mountTmpfs(disk, 32);
  if (why !== undefined) {
    fs.rmSync(work, { recursive: true, force: true });
    return { scenario, faults: 'none', restarts: 0, check: { expected: {}, found: {}, lost: {}, duplicated: {}, problems: [`tmpfs not mounted (${why}); run as root`] }, result: 'skipped' };
  }
  const random = seededRandom(settings.seed + 2);
  const dataDir = path.join(disk, 'datos');
  const stage = path.join(disk, 'escaneados');
  const sello = new SelloUnderTest(dataDir, serveEnv(pki));
  const deliveredAtEnd = new Map<number, Set<string>>();
  const problems: string[] = [];
  const fillers: string[] = [];
  let receiver: FaultReceiver | undefined;
  try {
    fs.mkdirSync(stage);
    const office = setUpOffice(dataDir, work);
    const folder = addWatchedFolder(dataDir, path.join(disk, 'facturas'), office.certificateId);
    const rec = await startFaultReceiver(pki, sello);
    receiver = rec;
    const deadline = Date.now() + 240_000;
    const workload = new Workload({ sello, office, receiverUrl: rec.url, random, deadline: () => deadline });
    // Deliveries waiting for a retry when the disk fills, and a document whose status change comes while it is full.
    const pendingDoc = await officeAtWork({ sello, workload, receiver: rec, dataDir, folder, what: 'disk' });
    // Scanned while there was space; moved into the folder once the disk is full (a rename needs no space).
    const scanned = await distinctPdfs(6, 'lleno');
    scanned.forEach((pdf, i) => fs.writeFileSync(path.join(stage, `lleno-${i}.pdf`), pdf));

    // A request whose every signature rewrites a 600 KB PDF in the store: with 2.5 MB left,
    // the disk fills half-way through its 8 signatures.
    const bigPdf = await makeLargePdf(8, 600_000);
    truncateWal(dataDir);
    fillers.push(fill(disk, 'relleno-1.bin', 2_500_000));
    await workload.oneRequest(bigPdf, 8, 3000);
    const big = workload.requests.get(workload.requestBody(3000, bigPdf, 8).ref)!;
    await waitUntil(() => sello.stderr(), (text) => text.includes('signing postponed'), 30_000, 'disk: the big request meets the full disk').catch((err: Error) => problems.push(err.message));
    const signedWhenFull = signedSoFar(dataDir, big.id);
    fillers.push(fill(disk, 'relleno-2.bin'));
    log(`disk: full; the 8-signature request stopped at ${signedWhenFull} signed`);
    for (const [i, pdf] of scanned.entries()) {
      fs.renameSync(path.join(stage, `lleno-${i}.pdf`), path.join(folder.path, `lleno-${i}.pdf`));
      workload.dropped.set(`lleno-${i}.pdf`, pdf);
    }

    // The API while full: each write is a clear error; nothing hangs; reads still work.
    const answers: Array<{ what: string; family: Family; a: Answer }> = [];
    const requestPdf = await Workload.requestPdf(2);
    for (let i = 0; i < 3; i++) {
      const doc = workload.documentBody(1000 + i);
      answers.push({ what: `POST /api/v1/documents ${doc.ref}`, family: 'fiscal', a: await call(sello, 'POST', '/api/v1/documents', { headers: workload.bookHeaders(), body: doc.body, timeoutMs: 30_000 }) });
      const req = workload.requestBody(1000 + i, requestPdf, 2);
      answers.push({ what: `POST signing request ${req.ref}`, family: 'family-a', a: await call(sello, 'POST', '/digital-signatures/signing-requests', { headers: workload.apiHeaders(req.ref), body: req.body, timeoutMs: 30_000 }) });
    }
    answers.push({ what: 'POST status (an event)', family: 'fiscal', a: await call(sello, 'POST', `/api/v1/documents/${pendingDoc}/status`, { headers: workload.bookHeaders(), body: { status: 'rejected' }, timeoutMs: 30_000 }) });
    const read = await call(sello, 'GET', `/api/v1/documents/${pendingDoc}`, { headers: workload.bookHeaders(), timeoutMs: 30_000 });
    if (read.status !== 200) problems.push(`a read while full: ${read.status} ${read.text.slice(0, 200)}`);
    rec.setBehaviour(alwaysOk);
    await sleep(3_000); // the watcher, the worker and the delivery engine try meanwhile
    // A write may still fit in space the store holds already (then the ERP's later retries replay it);
    // one that does not is the clear 507.
    for (const { what, family, a } of answers) if (a.status >= 300) problems.push(...envelopeProblems(family, a, STORAGE_FULL).map((p) => `${what} while full: ${p}`));
    if (!answers.some((x) => x.a.status === 507)) problems.push('no write met the full disk');
    log(`disk full: ${answers.map((x) => x.a.status).join(', ')} for ${answers.length} writes; a read: ${read.status}`);
    // Nothing half-written: no signed copy without its signature, no original moved without its signed copy.
    problems.push(...halfWritten([folder.output]).map((f) => `half-written: ${f}`));
    for (const name of pdfsIn(folder.originals)) if (!fs.existsSync(path.join(folder.output, name))) problems.push(`${name} moved to originales/ without a signed copy`);
    if (!sello.running || sello.serve!.child.exitCode !== null) problems.push('sello serve died with the disk full');
    const whileFull = integrity(dataDir);
    if (whileFull !== 'ok') problems.push(`integrity_check while full: ${whileFull}`);
    if (signedSoFar(dataDir, big.id) !== signedWhenFull) problems.push('the big request went on signing with the disk full');

    // Space again. Without a restart, the half-way request and the waiting deliveries resume.
    for (const f of fillers.splice(0)) fs.rmSync(f);
    await waitUntil(() => outstanding(dataDir), (o) => o.processing === 0 && o.deliveries === 0, 60_000, 'disk: resuming without a restart').catch((err: Error) => problems.push(err.message));
    const notYet = outstanding(dataDir, { path: folder.path, output: folder.output, dropped: workload.dropped.size });
    log(`disk: space freed; without a restart: ${JSON.stringify(notYet)}`);
    // The ERP sends again what was refused, with the same external_ref and Idempotency-Key.
    await workload.oneDocument(2000);
    for (let i = 0; i < 3; i++) {
      await workload.oneDocument(1000 + i);
      await workload.oneRequest(requestPdf, 2, 1000 + i);
    }
    // Then the restart of the scenario: files that met the full disk are looked at again at start.
    const epoch = sello.epoch;
    const exit = await sello.stop();
    deliveredAtEnd.set(epoch, deliveredIds(dataDir));
    if (exit !== 0) problems.push(`graceful stop after the disk was full exited ${exit}`);
    await sello.start();
    const check = await finishAndCheck({ sello, receiver: rec, workload, folder, deliveredAtEnd, pdfsigAll: true, what: 'disk' });
    check.problems.unshift(...problems);
    const refused = answers.filter((x) => x.a.status === 507).length;
    return scenarioRow(scenario, `ENOSPC: a request at ${signedWhenFull} of 8 signatures, ${answers.length} API writes (${refused} refused), ${scanned.length} dropped files`, sello.starts, check, started);
  } finally {
    sello.forceKill();
    await receiver?.close();
    for (const f of fillers) fs.rmSync(f, { force: true });
    unmount(disk);
    fs.rmSync(work, { recursive: true, force: true });
  }
}
