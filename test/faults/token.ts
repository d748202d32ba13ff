/**
 * Scenario 5: a USB token pulled out in the middle of signing and plugged back in. The token is
 * SoftHSM2's; pulling it out switches its tokens folder for an empty one (plugSlot). Signing
 * requests with the token's certificate and a watched folder with it wait for the PIN; once
 * approved, they sign, and half-way the token goes. Sello must say so (`token_removed` /
 * `token_not_present` on the signatures, the token shown absent), write no half-signed output,
 * and, once the token is back and the PIN approved again, complete everything: each request
 * with exactly its signatures, each file signed once.
 *
 * SoftHSM2 reads its tokens folder when the module is initialised; Sello opens the module for
 * each use of a token and closes it after, so the running agent sees the token come back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { selloJson } from '../helpers/cli.js';
import { createSoftHsm, SOFTHSM_MODULE, type SoftHsm } from '../helpers/softhsm.js';
import type { TestPki } from '../helpers/test-ca.js';
import { pdfsIn } from '../helpers/watch-files.js';
import { deliveredIds, halfWritten, withStoreFile, scenarioRow, type Row } from './checker.js';
import { addWatchedFolder, adminSession, call, seededRandom, setUpOffice, SelloUnderTest, tempDir, waitUntil, type AdminSession, type FaultsSettings } from './harness.js';
import { startFaultReceiver } from './receiver.js';
import { finishAndCheck, nothingLeft, outstanding, serveEnv } from './scenario.js';
import { Workload } from './workload.js';

const PIN = '4321';

interface PendingGroup {
  token: { serial: string; present: boolean; pin_cached: boolean } | null;
  signatures: Array<{ id: string; request_id: string; last_error: { code: string; message: string } | null }>;
}

async function pending(sello: SelloUnderTest, admin: AdminSession): Promise<PendingGroup[]> {
  const a = await call(sello, 'GET', '/admin/api/signing/pending', { headers: admin.headers() });
  return (a.json as { data: PendingGroup[] }).data;
}

/** Approves, with the PIN, every pending signature that failed, or the first one when none did. */
async function approveAll(sello: SelloUnderTest, admin: AdminSession): Promise<number[]> {
  const groups = await pending(sello, admin);
  const all = groups.flatMap((g) => g.signatures);
  const failed = all.filter((s) => s.last_error !== null);
  const statuses: number[] = [];
  for (const s of failed.length > 0 ? failed : all.slice(0, 1)) {
    const a = await call(sello, 'POST', `/admin/api/signing/pending/${s.id}/approve`, { headers: admin.headers('POST'), body: { pin: PIN }, timeoutMs: 120_000 });
    statuses.push(a.status);
  }
  return statuses;
}

/**
 * The reader the token sits in: SoftHSM's tokens folder seen through a symbolic link that is
 * switched atomically between the real folder and an empty one. A real token is there or not;
 * moving the folder itself (rename, then a new empty folder) leaves SoftHSM a moment with no
 * folder at all, in which a module initialisation fails with CKR_GENERAL_ERROR — an artefact of
 * the simulation, not an unplugged token.
 */
function plugSlot(hsm: SoftHsm): { confPath: string; unplug(): void; plug(): void } {
  const link = path.join(hsm.dir, 'lector');
  const empty = path.join(hsm.dir, 'lector-vacio');
  fs.mkdirSync(empty);
  fs.symlinkSync(hsm.tokensDir, link);
  const confPath = path.join(hsm.dir, 'softhsm2-lector.conf');
  fs.writeFileSync(confPath, fs.readFileSync(hsm.confPath, 'utf8').replace(/^directories\.tokendir = .*$/m, `directories.tokendir = ${link}`));
  const point = (target: string): void => {
    const next = `${link}.${process.pid}`;
    fs.symlinkSync(target, next);
    fs.renameSync(next, link); // atomic: the link always points somewhere
  };
  return { confPath, unplug: () => point(empty), plug: () => point(hsm.tokensDir) };
}

/** Until no watched file is between steps (each waits for a PIN, is done, or failed). */
const filesSettled = (dataDir: string): Promise<unknown> =>
  waitUntil(() => withStoreFile(dataDir, (db) => (db.prepare("select count(*) as n from watch_ledger where state in ('queued', 'signing')").get() as { n: number }).n), (n) => n === 0, 30_000, 'token: files settled');

const signedCount = (dataDir: string): number =>
  withStoreFile(dataDir, (db) => (db.prepare("select count(*) as n from signing_signatures where state = 'signed'").get() as { n: number }).n);

export async function tokenRemoved(pki: TestPki, settings: FaultsSettings, log: (line: string) => void): Promise<Row> {
  const started = Date.now();
  const random = seededRandom(settings.seed + 5);
  const work = tempDir('sello-faults-token-');
  const dataDir = path.join(work, 'datos');
  const problems: string[] = [];
  const deliveredAtEnd = new Map<number, Set<string>>();
  const office = setUpOffice(dataDir, work);
  const previousConf = process.env.SOFTHSM2_CONF;
  const softhsm: SoftHsm = await createSoftHsm(); // sets SOFTHSM2_CONF here; put back in finally
  const token = await softhsm.initToken({ label: 'oficina', pin: PIN });
  await token.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const slot = plugSlot(softhsm);
  const hsmEnv = { SELLO_PKCS11_MODULES: SOFTHSM_MODULE, SOFTHSM2_CONF: slot.confPath };
  const sello = new SelloUnderTest(dataDir, { ...serveEnv(pki), ...hsmEnv });
  const receiver = await startFaultReceiver(pki, sello);
  try {
    // The token's certificate, as `sello tokens` records it; a live key signs with it.
    const dd = ['--data-dir', dataDir];
    const scanned = selloJson<{ certificates: Array<{ id: string }> }>(['tokens', '--module', SOFTHSM_MODULE, ...dd], hsmEnv);
    const certificateId = scanned.certificates[0]!.id;
    const liveKey = selloJson<{ key: string }>(['keys', 'create', '--family', 'a', '--env', 'live', ...dd]).key;
    const folder = addWatchedFolder(dataDir, path.join(work, 'contratos'), certificateId);
    const deadline = Date.now() + 300_000;
    const workload = new Workload({ sello, office: { ...office, apiKey: liveKey, certificateId }, receiverUrl: receiver.url, random, deadline: () => deadline });
    const requests = settings.ci ? 3 : 5;
    const signatures = 10;
    const files = settings.ci ? 3 : 6;

    // 1. Token in. Requests and files wait for the PIN; approved, they sign; half-way the token goes.
    await sello.start();
    let admin = await adminSession(sello);
    await workload.runRequests(requests, signatures, 1);
    await workload.runFolder(folder.path, files, 20, 'antes');
    const before = new Set(workload.dropped.keys());
    await waitUntil(() => pending(sello, admin), (g) => g.flatMap((x) => x.signatures).length === requests * signatures + files, 30_000, 'token: waiting for the PIN');
    const approving = approveAll(sello, admin);
    await waitUntil(() => signedCount(dataDir), (n) => n >= 3, 30_000, 'token: signing under way', 2);
    slot.unplug();
    const signedAtRemoval = signedCount(dataDir);
    const approved = await approving;
    log(`token: pulled out after ${signedAtRemoval} signatures; the approval answered ${approved.join(', ')}`);
    if (approved.some((s) => s >= 500)) problems.push(`approval answered ${approved.join(', ')}`);

    // 2. Out: the signatures say why, the token shows absent, nothing half-written or signed meanwhile.
    const groups = await waitUntil(() => pending(sello, admin), (g) => g.some((x) => x.signatures.some((s) => s.last_error !== null)), 30_000, 'token: a failure recorded');
    const codes = new Set(groups.flatMap((g) => g.signatures.map((s) => s.last_error?.code)).filter((c): c is string => c !== undefined));
    for (const c of codes) if (c !== 'token_removed' && c !== 'token_not_present') problems.push(`a signature failed with ${c} while the token was out`);
    if (groups.some((g) => g.token?.present)) problems.push('the token is shown present while it is out');
    await filesSettled(dataDir);
    problems.push(...halfWritten([folder.output]).map((f) => `half-written: ${f}`));
    for (const name of pdfsIn(folder.originals)) if (!fs.existsSync(path.join(folder.output, name))) problems.push(`${name} moved to originales/ without a signed copy`);
    for (const [ref, { id }] of workload.requests) {
      const r = (await call(sello, 'GET', `/digital-signatures/signing-requests/${id}`, { headers: { 'X-Api-Key': liveKey } })).json as { status: string; documents: Array<{ signatures: Array<{ status: string }> }> };
      const applied = r.documents[0]!.signatures.filter((x) => x.status === 'signed').length;
      if (r.status === 'signed' && applied !== signatures) problems.push(`${ref}: signed with ${applied} signatures`);
    }
    // Sello restarted while the token is out (the PIN is forgotten), and files keep coming:
    // they wait for the token and a PIN, untouched.
    const epoch = sello.epoch;
    const exit = await sello.stop();
    deliveredAtEnd.set(epoch, deliveredIds(dataDir));
    if (exit !== 0) problems.push(`graceful stop with the token out exited ${exit}`);
    await sello.start();
    admin = await adminSession(sello);
    await workload.runFolder(folder.path, files, 20, 'fuera');
    const whileOut = [...workload.dropped.keys()].filter((n) => !before.has(n));
    await waitUntil(
      () => withStoreFile(dataDir, (db) => (db.prepare("select count(*) as n from watch_ledger where state = 'waiting_pin' and name like 'fuera-%'").get() as { n: number }).n),
      (n) => n === whileOut.length,
      30_000,
      'token: files dropped while it is out wait',
    );
    if ((await pending(sello, admin)).some((g) => g.token?.present)) problems.push('the token is shown present while it is out (after a restart)');
    const inErrorsWhileOut = pdfsIn(folder.errors);
    log(`token: out; failures ${[...codes].join(', ')}; ${signedCount(dataDir)} signatures applied; ${inErrorsWhileOut.length} files in errores/, ${whileOut.length} waiting`);

    // 3. Back in, without a restart: the running agent sees it (each use of the token opens the
    // module afresh), and a person approves with the PIN whatever the signing queue shows, until
    // nothing is left to do.
    slot.plug();
    await waitUntil(() => pending(sello, admin), (g) => g.some((x) => x.token?.present), 30_000, 'token: present again without a restart');
    const approvals: number[] = [];
    await waitUntil(
      async () => {
        approvals.push(...(await approveAll(sello, admin)));
        return outstanding(dataDir, { path: folder.path, output: folder.output, errors: folder.errors, dropped: workload.dropped.size });
      },
      nothingLeft,
      90_000,
      'token: completing after re-insertion',
      500,
    );
    if (approvals.some((s) => s >= 500 || s === 400)) problems.push(`approvals after re-insertion answered ${approvals.join(', ')}`);
    // A token that goes away is not the file's fault: every file waits for the token and the
    // PIN, and is signed once it is back; none may end in errores/.
    for (const name of pdfsIn(folder.errors)) {
      const note = fs.readFileSync(path.join(folder.errors, `${name}.error.txt`), 'utf8');
      problems.push(`${name} ended in errores/: ${note.slice(0, 300)}`);
    }
    const check = await finishAndCheck({ sello, receiver, workload, folder, deliveredAtEnd, pdfsigAll: true, what: 'token', timeoutMs: 60_000 });
    check.problems.unshift(...problems);
    return scenarioRow('token pulled out mid-signing and plugged back in (SoftHSM2)', `token out after ${signedAtRemoval} of ${requests * signatures + files} signatures; ${whileOut.length} files dropped while out`, sello.starts, check, started);
  } finally {
    sello.forceKill();
    await receiver.close();
    await softhsm.cleanup();
    if (previousConf === undefined) delete process.env.SOFTHSM2_CONF;
    else process.env.SOFTHSM2_CONF = previousConf;
    fs.rmSync(work, { recursive: true, force: true });
  }
}
