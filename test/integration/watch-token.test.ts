/**
 * A watched folder whose certificate is on a token (SoftHSM2), CONTRACT §13 item 5: dropped
 * files wait for a person's approval with the PIN in the signing queue (the same flow as
 * signing requests, CONTRACT §11). The admin folders API counts them; a wrong PIN leaves them
 * waiting with a clear error and nothing moved; the right PIN signs them all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTokenCertificate } from '../../core/certificates/index.js';
import { addFolder } from '../../core/watch/index.js';
import { loadTokenDriver } from '../../native/index.js';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { createSoftHsm, SOFTHSM_MODULE, type SoftHsm } from '../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';
import { distinctPdfs, pdfsIn, sleep, waitFor } from '../helpers/watch-files.js';

interface FolderJson {
  id: string;
  pending: { queued: number; waiting_pin: number };
  done: number;
  failed: number;
}
interface PendingJson {
  data: Array<{
    token: { serial: string; label: string; present: boolean; pin_cached: boolean } | null;
    signatures: Array<{ id: string; request_id: string; attempts: number; last_error: { code: string; message?: string } | null }>;
  }>;
}

let pki: TestPki;
let hsm: SoftHsm;
let agent: TestAgent;
let certificateId: string;
let tokenSerial: string;
let dir: string;
let folderId: string;

const admin = (p: string, init: RequestInit = {}) =>
  agent.fetch(p, { ...init, headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
const folderRecord = async (): Promise<FolderJson> => ((await (await admin('/admin/api/folders')).json()) as { data: FolderJson[] }).data.find((f) => f.id === folderId)!;
const pendingOfToken = async () => ((await (await admin('/admin/api/signing/pending')).json()) as PendingJson).data.find((g) => g.token?.serial === tokenSerial);
const ledger = () => agent.store.sqlite.prepare('select name, state, request_id from watch_ledger where folder_id = ? order by name').all(folderId) as Array<{ name: string; state: string; request_id: string }>;
const rowOf = (name: string) => ledger().find((r) => r.name === name);
/** Approves, with the right PIN, the signature of `requestId` waiting in the signing queue. */
async function approveRequest(requestId: string): Promise<void> {
  const signature = (await pendingOfToken())?.signatures.find((s) => s.request_id === requestId);
  expect(signature, 'a pending signature for the request').toBeDefined();
  const res = await admin(`/admin/api/signing/pending/${signature!.id}/approve`, { method: 'POST', body: JSON.stringify({ pin: '1234' }) });
  expect(res.status, await res.clone().text()).toBe(200);
}

beforeAll(async () => {
  process.env.SELLO_WATCH_STABLE_MS = '200';
  process.env.SELLO_WATCH_RELOAD_MS = '100';
  pki = await createTestPki();
  hsm = await createSoftHsm(); // sets SOFTHSM2_CONF before the module is loaded
  const token = await hsm.initToken({ label: 'oficina', pin: '1234' });
  await token.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const driver = loadTokenDriver(SOFTHSM_MODULE);
  tokenSerial = (await driver.listSlots()).find((s) => s.token?.label === 'oficina')!.token!.serialNumber;
  await driver.close();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath, pkcs11Modules: [SOFTHSM_MODULE] });
  certificateId = registerTokenCertificate(agent.store, {
    modulePath: SOFTHSM_MODULE,
    tokenSerial,
    tokenLabel: 'oficina',
    keyId: Buffer.from('01', 'hex'),
    certificate: pki.leaf.certificate,
    chain: pki.leaf.chain,
  }).id;
  dir = tempDir('sello-watch-token-');
  // Stored as `sello folders add` does; the running watcher picks it up on its next look.
  folderId = addFolder(agent.store, { folder: dir, certificate: certificateId, page: 'last', size: 'm' }).id;
});

afterAll(async () => {
  await agent?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a watched folder with a token certificate', () => {
  it('keeps dropped files waiting for the PIN, refuses a wrong one leaving them waiting, signs them with the right one', async () => {
    const pdfs = await distinctPdfs(3, 'Contrato');
    await sleep(300); // the folder is being watched
    pdfs.forEach((pdf, i) => fs.writeFileSync(path.join(dir, `contrato-${i}.pdf`), pdf));

    // They wait: counted by the folders API, listed in the signing queue, nothing moved.
    await waitFor(async () => (await folderRecord()).pending.waiting_pin === 3, 15_000, () => JSON.stringify(ledger()));
    expect(await folderRecord()).toMatchObject({ pending: { queued: 0, waiting_pin: 3 }, done: 0, failed: 0 });
    const rows = ledger();
    expect(rows.map((r) => r.state)).toEqual(['waiting_pin', 'waiting_pin', 'waiting_pin']);
    const group = (await pendingOfToken())!;
    expect(group.token).toMatchObject({ label: 'oficina', present: true, pin_cached: false });
    expect(group.signatures.map((s) => s.request_id).sort()).toEqual(rows.map((r) => r.request_id).sort());
    expect(pdfsIn(dir).sort()).toEqual(['contrato-0.pdf', 'contrato-1.pdf', 'contrato-2.pdf']);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual([]);

    // A wrong PIN: a clear error, and the files keep waiting where they are (never retried by itself).
    const first = group.signatures[0]!.id;
    const wrong = await admin(`/admin/api/signing/pending/${first}/approve`, { method: 'POST', body: JSON.stringify({ pin: '9999' }) });
    expect(wrong.status).toBe(400);
    const wrongBody = (await wrong.json()) as { error: { code: string; message: string } };
    expect(wrongBody.error.code).toBe('pin_incorrect');
    expect(wrongBody.error.message).toMatch(/PIN incorrecto/);
    await sleep(500); // several looks of the watcher at the waiting files
    expect(await folderRecord()).toMatchObject({ pending: { queued: 0, waiting_pin: 3 }, done: 0, failed: 0 });
    expect(ledger().map((r) => r.state)).toEqual(['waiting_pin', 'waiting_pin', 'waiting_pin']);
    expect(pdfsIn(dir)).toHaveLength(3);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual([]);
    expect(fs.readdirSync(path.join(dir, 'errores'))).toEqual([]);
    const afterWrong = (await pendingOfToken())!;
    expect(afterWrong.signatures).toHaveLength(3);
    expect(afterWrong.signatures.find((s) => s.id === first)).toMatchObject({ attempts: 1, last_error: { code: 'pin_incorrect' } });
    expect(afterWrong.signatures.reduce((n, s) => n + s.attempts, 0)).toBe(1); // one login with the wrong PIN, not one per file

    // The right PIN: the three are signed with it, written to firmados/, originals moved.
    const right = await admin(`/admin/api/signing/pending/${first}/approve`, { method: 'POST', body: JSON.stringify({ pin: '1234' }) });
    expect(right.status, await right.clone().text()).toBe(200);
    // The end: originals moved, then each row marked done (a commit a moment after its move).
    await waitFor(() => pdfsIn(path.join(dir, 'originales')).length === 3 && ledger().every((r) => r.state === 'done'), 15_000, () => JSON.stringify(ledger()));
    expect(pdfsIn(path.join(dir, 'firmados')).sort()).toEqual(['contrato-0.pdf', 'contrato-1.pdf', 'contrato-2.pdf']);
    expect(pdfsIn(dir)).toEqual([]);
    expect(await folderRecord()).toMatchObject({ pending: { queued: 0, waiting_pin: 0 }, done: 3, failed: 0 });
    expect(await pendingOfToken()).toBeUndefined();
    for (const [i, pdf] of pdfs.entries()) {
      const signed = fs.readFileSync(path.join(dir, 'firmados', `contrato-${i}.pdf`));
      expect(signed.subarray(0, pdf.length).equals(pdf)).toBe(true);
      expect((await pdfsig(signed)).validity).toEqual(['Signature is Valid.']);
    }
  }, 45_000);

  it('keeps a file waiting when the token is out as it is signed; signs it once the token is back and the PIN approved', async () => {
    // The PIN given in the signing queue (kept for the session): a dropped file is signed at once.
    const [first, second] = await distinctPdfs(2, 'Anexo');
    fs.writeFileSync(path.join(dir, 'anexo-a.pdf'), first!);
    await waitFor(() => rowOf('anexo-a.pdf')?.state === 'waiting_pin' || rowOf('anexo-a.pdf')?.state === 'done', 15_000, () => JSON.stringify(ledger()));
    if (rowOf('anexo-a.pdf')!.state === 'waiting_pin') await approveRequest(rowOf('anexo-a.pdf')!.request_id);
    await waitFor(() => rowOf('anexo-a.pdf')?.state === 'done', 15_000, () => JSON.stringify(ledger()));

    // The token pulled out: the next file's signature fails with the token absent, and the file waits where it is.
    await hsm.removeTokens();
    try {
      fs.writeFileSync(path.join(dir, 'anexo-b.pdf'), second!);
      await waitFor(() => rowOf('anexo-b.pdf')?.state === 'waiting_pin', 15_000, () => JSON.stringify(ledger()));
      const waiting = (await pendingOfToken())!.signatures.find((s) => s.request_id === rowOf('anexo-b.pdf')!.request_id);
      expect(waiting?.last_error?.code).toMatch(/^token_(not_present|removed)$/);
      await sleep(500); // several looks of the watcher at the waiting file
      expect(rowOf('anexo-b.pdf')!.state).toBe('waiting_pin');
      expect(pdfsIn(dir)).toEqual(['anexo-b.pdf']);
      expect(fs.readdirSync(path.join(dir, 'errores'))).toEqual([]);
    } finally {
      await hsm.reinsertTokens();
    }

    // Back in, approved again: signed, nothing in errores/.
    await approveRequest(rowOf('anexo-b.pdf')!.request_id);
    await waitFor(() => rowOf('anexo-b.pdf')?.state === 'done', 15_000, () => JSON.stringify(ledger()));
    expect(pdfsIn(path.join(dir, 'firmados'))).toContain('anexo-b.pdf');
    expect((await pdfsig(fs.readFileSync(path.join(dir, 'firmados', 'anexo-b.pdf')))).validity).toEqual(['Signature is Valid.']);
    expect(pdfsIn(dir)).toEqual([]);
    expect(fs.readdirSync(path.join(dir, 'errores'))).toEqual([]);
  }, 45_000);

  it('signs a file copied back from errores/ after its signature was rejected, as its note says', async () => {
    const [pdf] = await distinctPdfs(1, 'Adenda');
    const errores = path.join(dir, 'errores');
    // The token out (with the PIN cached a file would be signed at once): it waits, and a person
    // rejects its signature in the signing queue. To errores/, with a note saying to copy it back.
    await hsm.removeTokens();
    let firstRequest: string;
    try {
      fs.writeFileSync(path.join(dir, 'adenda.pdf'), pdf!);
      await waitFor(() => rowOf('adenda.pdf')?.state === 'waiting_pin', 15_000, () => JSON.stringify(ledger()));
      firstRequest = rowOf('adenda.pdf')!.request_id;
      const signature = (await pendingOfToken())!.signatures.find((s) => s.request_id === firstRequest)!;
      expect((await admin(`/admin/api/signing/pending/${signature.id}/reject`, { method: 'POST' })).status).toBe(200);
      await waitFor(() => fs.existsSync(path.join(errores, 'adenda.pdf')), 15_000, () => JSON.stringify(ledger()));
    } finally {
      await hsm.reinsertTokens();
    }
    const note = fs.readFileSync(path.join(errores, 'adenda.pdf.error.txt'), 'utf8');
    expect(note).toMatch(/Código: rejected/);
    expect(note).toMatch(/vuelva a copiarlo en la carpeta/);

    // Copied back: a new signing request for the same row (its own reference), approved, signed.
    fs.rmSync(path.join(errores, 'adenda.pdf.error.txt'));
    fs.renameSync(path.join(errores, 'adenda.pdf'), path.join(dir, 'adenda.pdf'));
    await waitFor(() => (rowOf('adenda.pdf')?.state === 'waiting_pin' || rowOf('adenda.pdf')?.state === 'done') && rowOf('adenda.pdf')!.request_id !== firstRequest, 15_000, () => JSON.stringify(ledger()));
    if (rowOf('adenda.pdf')!.state === 'waiting_pin') await approveRequest(rowOf('adenda.pdf')!.request_id);
    await waitFor(() => rowOf('adenda.pdf')?.state === 'done', 15_000, () => JSON.stringify(ledger()));
    expect(pdfsIn(path.join(dir, 'firmados'))).toContain('adenda.pdf');
    expect(fs.readdirSync(errores)).toEqual([]);
    const references = agent.store.sqlite.prepare("select reference_id from signing_requests where id in (?, ?) order by created_at").all(firstRequest, rowOf('adenda.pdf')!.request_id);
    const id = (agent.store.sqlite.prepare('select id from watch_ledger where folder_id = ? and name = ?').get(folderId, 'adenda.pdf') as { id: string }).id;
    expect(references).toEqual([{ reference_id: `carpeta-${id}` }, { reference_id: `carpeta-${id}-2` }]);
  }, 45_000);
});
