/**
 * Scenario 3: another program holds the store locked (a backup tool or a database browser with
 * an open write transaction: `BEGIN EXCLUSIVE` from another process) for longer than Sello's
 * busy timeout of 1 s (core/db/store.ts). Meanwhile a signing request is half-way, deliveries
 * wait for a retry, the ERP writes and a person drops files. Sello must answer every write
 * with a clear error in its family's envelope (503 `storage_busy` with `Retry-After`), within
 * a bounded time, and stay up. Once the lock is gone, the request and the deliveries resume by
 * themselves, the ERP sends again what was refused, and after a restart the checker proves
 * nothing was lost or duplicated.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { repoRoot } from '../helpers/cli.js';
import type { TestPki } from '../helpers/test-ca.js';
import { distinctPdfs } from '../helpers/watch-files.js';
import { deliveredIds, integrity, withStoreFile, scenarioRow, type Row } from './checker.js';
import { envelopeProblems, STORAGE_BUSY, type Family } from './envelopes.js';
import { addWatchedFolder, call, seededRandom, setUpOffice, SelloUnderTest, tempDir, waitUntil, type Answer, type FaultsSettings } from './harness.js';
import { alwaysOk, startFaultReceiver } from './receiver.js';
import { finishAndCheck, officeAtWork, outstanding, serveEnv } from './scenario.js';
import { Workload } from './workload.js';

/** How long the other program holds the lock: far longer than the busy timeout (1 s). */
const HOLD_MS = 12_000;
/** A refusal must come well before the lock ends: the agent is not frozen for the lock's duration. */
const MAX_ANSWER_MS = 8_000;

export interface Locker {
  child: ChildProcess;
  /** Takes the lock (`BEGIN EXCLUSIVE`) and keeps it `holdMs`; resolves once it holds it. */
  lock(): Promise<void>;
  /** Resolves when the lock is released and the process gone. */
  released: Promise<void>;
}

/**
 * Another process (node with better-sqlite3, as any SQLite program would) that opens `file`
 * and, when told, takes its write lock with `BEGIN EXCLUSIVE` for `holdMs`. Started ahead, so
 * that the lock comes within a millisecond of the moment chosen.
 */
export async function startLocker(file: string, holdMs: number): Promise<Locker> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.pragma('busy_timeout = 30000');
    console.log('ready');
    process.stdin.once('data', () => {
      db.exec('BEGIN EXCLUSIVE');
      console.log('locked');
      setTimeout(() => { db.exec('COMMIT'); db.close(); console.log('released'); process.exit(0); }, Number(process.argv[2]));
    });
  `;
  const child = spawn(process.execPath, ['-e', script, file, String(holdMs)], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const released = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = (want: string) =>
    new Promise<void>((resolve, reject) => {
      lines.on('line', (l) => l === want && resolve());
      child.once('exit', (code) => reject(new Error(`locker exited ${code} before "${want}"`)));
    });
  await line('ready');
  return {
    child,
    released,
    lock() {
      const locked = line('locked');
      child.stdin!.write('lock\n');
      return locked;
    },
  };
}

const signedSoFar = (dataDir: string, requestId: string): number =>
  withStoreFile(dataDir, (db) => (db.prepare("select count(*) as n from signing_signatures where request_id = ? and state = 'signed'").get(requestId) as { n: number }).n);

export async function dbLock(pki: TestPki, settings: FaultsSettings, log: (line: string) => void): Promise<Row> {
  const started = Date.now();
  const random = seededRandom(settings.seed + 3);
  const work = tempDir('sello-faults-lock-');
  const dataDir = path.join(work, 'datos');
  const office = setUpOffice(dataDir, work);
  const folder = addWatchedFolder(dataDir, path.join(work, 'facturas'), office.certificateId);
  const sello = new SelloUnderTest(dataDir, serveEnv(pki));
  const receiver = await startFaultReceiver(pki, sello);
  const deadline = Date.now() + 240_000;
  const workload = new Workload({ sello, office, receiverUrl: receiver.url, random, deadline: () => deadline });
  const deliveredAtEnd = new Map<number, Set<string>>();
  const problems: string[] = [];
  let locker: Locker | undefined;
  try {
    // Deliveries waiting for a retry when the lock comes, a pending document, and (below) a 16-signature request half-way.
    const pendingDoc = await officeAtWork({ sello, workload, receiver, dataDir, folder, what: 'lock' });
    const scanned = await distinctPdfs(5, 'bloqueo');
    const bigPdf = await Workload.requestPdf(16);
    locker = await startLocker(path.join(dataDir, 'sello.db'), HOLD_MS);
    await workload.oneRequest(bigPdf, 16, 3000);
    const big = workload.requests.get(workload.requestBody(3000, bigPdf, 16).ref)!;
    await waitUntil(() => signedSoFar(dataDir, big.id), (n) => n >= 1, 30_000, 'lock: the big request under way', 1);
    await locker.lock();
    const lockedAt = Date.now();
    const signedWhenLocked = signedSoFar(dataDir, big.id);
    if (signedWhenLocked === 16) problems.push('the 16-signature request was done before the lock came: nothing was half-way');
    scanned.forEach((pdf, i) => {
      fs.writeFileSync(path.join(folder.path, `bloqueo-${i}.pdf`), pdf);
      workload.dropped.set(`bloqueo-${i}.pdf`, pdf);
    });

    // The ERP while locked: each write a clear 503 within a bounded time; a read answers.
    const answers: Array<{ what: string; family: Family; a: Answer }> = [];
    const requestPdf = await Workload.requestPdf(2);
    const doc = workload.documentBody(1000);
    const req = workload.requestBody(1000, requestPdf, 2);
    const calls = [
      { what: `POST /api/v1/documents ${doc.ref}`, family: 'fiscal' as const, go: () => call(sello, 'POST', '/api/v1/documents', { headers: workload.bookHeaders(), body: doc.body, timeoutMs: 40_000 }) },
      { what: `POST signing request ${req.ref}`, family: 'family-a' as const, go: () => call(sello, 'POST', '/digital-signatures/signing-requests', { headers: workload.apiHeaders(req.ref), body: req.body, timeoutMs: 40_000 }) },
      { what: 'POST status (an event)', family: 'fiscal' as const, go: () => call(sello, 'POST', `/api/v1/documents/${pendingDoc}/status`, { headers: workload.bookHeaders(), body: { status: 'rejected' }, timeoutMs: 40_000 }) },
    ];
    const read = call(sello, 'GET', `/api/v1/documents/${pendingDoc}`, { headers: workload.bookHeaders(), timeoutMs: 40_000 });
    for (const c of calls) {
      try {
        answers.push({ what: c.what, family: c.family, a: await c.go() });
      } catch (err) {
        problems.push(`${c.what} while locked: no answer (${String((err as Error).cause ?? err)})`);
      }
    }
    const readAnswer = await read.catch((err: unknown) => ({ status: 0, text: String(err), ms: -1 }));
    const lockedFor = Date.now() - lockedAt;
    for (const { what, family, a } of answers) {
      // Refused, saying why, and soon: the writes all start within the lock's first seconds.
      problems.push(...envelopeProblems(family, a, STORAGE_BUSY).map((p) => `${what} while locked: ${p}`));
      if (a.ms > MAX_ANSWER_MS) problems.push(`${what} while locked: answered after ${(a.ms / 1000).toFixed(1)} s`);
    }
    if (readAnswer.status !== 200) problems.push(`a read while locked: ${readAnswer.status} ${readAnswer.text.slice(0, 200)}`);
    log(`db lock: the 16-signature request had ${signedWhenLocked} signed; writes answered ${answers.map((x) => `${x.a.status} in ${(x.a.ms / 1000).toFixed(1)} s`).join(', ')}; a read ${readAnswer.status} in ${(readAnswer.ms / 1000).toFixed(1)} s`);
    if (lockedFor < HOLD_MS && signedSoFar(dataDir, big.id) > signedWhenLocked + 1) problems.push('the big request went on signing while the store was locked');
    receiver.setBehaviour(alwaysOk);
    await locker.released;
    if (!sello.running || sello.serve!.child.exitCode !== null) problems.push('sello serve died while the store was locked');

    // Lock gone: without a restart, the request and the deliveries resume; the ERP sends again.
    await waitUntil(() => outstanding(dataDir), (o) => o.processing === 0 && o.deliveries === 0, 60_000, 'lock: resuming without a restart').catch((err: Error) => problems.push(err.message));
    const notYet = outstanding(dataDir, { path: folder.path, output: folder.output, dropped: workload.dropped.size });
    log(`db lock: released after ${(HOLD_MS / 1000).toFixed(0)} s; without a restart: ${JSON.stringify(notYet)}`);
    await workload.oneDocument(2000);
    await workload.oneDocument(1000);
    await workload.oneRequest(requestPdf, 2, 1000);
    const epoch = sello.epoch;
    const exit = await sello.stop();
    deliveredAtEnd.set(epoch, deliveredIds(dataDir));
    if (exit !== 0) problems.push(`graceful stop after the lock exited ${exit}`);
    await sello.start();
    const check = await finishAndCheck({ sello, receiver, workload, folder, deliveredAtEnd, pdfsigAll: true, what: 'lock' });
    check.problems.unshift(...problems);
    const ok = integrity(dataDir);
    if (ok !== 'ok') check.problems.push(`integrity_check: ${ok}`);
    return scenarioRow('store locked by another process (BEGIN EXCLUSIVE, 12 s)', `12 s lock: a request at ${signedWhenLocked} of 16 signatures, ${calls.length} API writes, ${scanned.length} dropped files`, sello.starts, check, started);
  } finally {
    locker?.child.kill('SIGKILL');
    sello.forceKill();
    await receiver.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
