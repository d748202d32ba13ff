/**
 * A signing request whose certificate is on a token (SoftHSM2): it waits in `processing`
 * until a person approves it through the admin API with the PIN (CONTRACT §11). A wrong PIN
 * is tried once, reported as pin_incorrect, and never retried by itself.
 */
import crypto from 'node:crypto';
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTokenCertificate } from '../../core/certificates/index.js';
import { loadTokenDriver } from '../../native/index.js';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createRequest, documentBody, getRequest, waitForStatus } from '../helpers/signing-requests.js';
import { createSoftHsm, type SoftHsm } from '../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

/** Counts C_Login calls reaching the module (installed before any driver is loaded). */
let loginCalls = 0;
const nativeProto = Object.getPrototypeOf(pkcs11js.PKCS11.prototype) as { C_Login: (...a: unknown[]) => void };
const originalLogin = nativeProto.C_Login;
nativeProto.C_Login = function (this: unknown, ...args: unknown[]) {
  loginCalls++;
  return originalLogin.apply(this, args);
};

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pki: TestPki;
let hsm: SoftHsm;
let agent: TestAgent;
let receiver: Receiver;
let certificateId: string;
/** On a second token whose PIN nobody gives: its signatures stay pending. */
let idleCertificateId: string;
let tokenSerial: string;

interface PendingJson {
  data: Array<{
    token: { serial: string; label: string; present: boolean; pin_tries: string; pin_cached: boolean } | null;
    signatures: Array<{ id: string; request_id: string; attempts: number; last_error: { code: string; pin_tries: string | null } | null }>;
  }>;
}

const admin = (path: string, init: RequestInit = {}) =>
  agent.fetch(path, { ...init, headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

beforeAll(async () => {
  pki = await createTestPki();
  hsm = await createSoftHsm();
  const token = await hsm.initToken({ label: 'oficina', pin: '1234' });
  await token.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const idle = await hsm.initToken({ label: 'gerencia', pin: '5678' });
  const idleLeaf = pki.issue({ subject: { commonName: 'MARÍA GERENTE', serialNumber: '1712345678', country: 'EC' } });
  await idle.importKey({ id: '01', label: 'maria', key: idleLeaf.privateKey, certificate: idleLeaf.certificate });
  const driver = loadTokenDriver(hsm.modulePath);
  const slots = await driver.listSlots();
  tokenSerial = slots.find((s) => s.token?.label === 'oficina')!.token!.serialNumber;
  const idleSerial = slots.find((s) => s.token?.label === 'gerencia')!.token!.serialNumber;
  await driver.close();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath, deliveryTimeScale: 0.001, pkcs11Modules: [hsm.modulePath] });
  receiver = await startReceiver(pki);
  certificateId = registerTokenCertificate(agent.store, {
    modulePath: hsm.modulePath,
    tokenSerial,
    tokenLabel: 'oficina',
    keyId: Buffer.from('01', 'hex'),
    certificate: pki.leaf.certificate,
    chain: pki.leaf.chain,
  }).id;
  idleCertificateId = registerTokenCertificate(agent.store, {
    modulePath: hsm.modulePath,
    tokenSerial: idleSerial,
    tokenLabel: 'gerencia',
    keyId: Buffer.from('01', 'hex'),
    certificate: idleLeaf.certificate,
    chain: idleLeaf.chain,
  }).id;
});

afterAll(async () => {
  await receiver?.close();
  await agent?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
});

describe('a token certificate', () => {
  it('waits for approval, refuses a wrong PIN once without retrying, then completes with the right one', async () => {
    const pdf = await makePdf();
    const { res, json } = await createRequest(agent, agent.liveApiKey, {
      subject: 'Contrato con token',
      reference_id: 'token-0001',
      callback_url: receiver.url,
      send: true,
      documents: [
        documentBody(pdf, [
          { signing_certificate: certificateId, page: '1', x: '36', y: '36' },
          { signing_certificate: certificateId, page: '1', x: '36', y: '300' },
        ], { id: 'c-1' }),
      ],
    });
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(json.status).toBe('processing');

    // Nothing happens without a person.
    await sleep(300);
    expect((await getRequest(agent, agent.liveApiKey, json.id)).json.status).toBe('processing');
    expect(loginCalls).toBe(0);
    const pending = (await (await admin('/admin/api/signing/pending')).json()) as PendingJson;
    const group = pending.data.find((g) => g.token?.serial === tokenSerial)!;
    expect(group.token).toMatchObject({ label: 'oficina', present: true, pin_cached: false });
    expect(group.signatures.map((s) => s.request_id)).toEqual([json.id, json.id]);
    const first = group.signatures[0]!.id;

    // A wrong PIN: one login, pin_incorrect with the tries the token reports, still processing.
    const wrong = await admin(`/admin/api/signing/pending/${first}/approve`, { method: 'POST', body: JSON.stringify({ pin: '9999' }) });
    expect(wrong.status).toBe(400);
    const wrongBody = (await wrong.json()) as { error: { code: string; meta: { pin_tries: string } } };
    expect(wrongBody.error.code).toBe('pin_incorrect');
    expect(typeof wrongBody.error.meta.pin_tries).toBe('string');
    expect(loginCalls).toBe(1);
    await sleep(300);
    expect(loginCalls).toBe(1);
    expect((await getRequest(agent, agent.liveApiKey, json.id)).json.status).toBe('processing');
    const after = (await (await admin('/admin/api/signing/pending')).json()) as PendingJson;
    const failed = after.data.find((g) => g.token?.serial === tokenSerial)!.signatures[0]!;
    expect(failed).toMatchObject({ attempts: 1, last_error: { code: 'pin_incorrect' } });

    // The right PIN: both signatures of that token proceed with it.
    const right = await admin(`/admin/api/signing/pending/${first}/approve`, { method: 'POST', body: JSON.stringify({ pin: '1234' }) });
    expect(right.status).toBe(200);
    const signed = await waitForStatus(agent, agent.liveApiKey, json.id, 'signed');
    await receiver.waitFor((r) => r.length >= 1);
    const payload = JSON.parse(receiver.requests[0]!.rawBody.toString('utf8')) as { documents: Array<{ hash: string; content_base64: string }> };
    const bytes = Buffer.from(payload.documents[0]!.content_base64, 'base64');
    expect(payload.documents[0]!.hash).toBe(sha256(bytes));
    expect(signed.documents[0]!.signed_file_hash).toBe(sha256(bytes));
    expect((await pdfsig(bytes)).validity).toEqual(['Signature is Valid.', 'Signature is Valid.']);
    const empty = (await (await admin('/admin/api/signing/pending')).json()) as PendingJson;
    expect(empty.data).toEqual([]);
  });

  it('keeps a rejected signature rejected and its request processing', async () => {
    const pdf = await makePdf();
    const { json } = await createRequest(agent, agent.liveApiKey, {
      subject: 'Rechazo',
      send: true,
      documents: [documentBody(pdf, [{ signing_certificate: idleCertificateId, page: '1', x: '36', y: '36' }])],
    });
    const signatureId = json.documents[0]!.signatures[0]!.id;
    const res = await admin(`/admin/api/signing/pending/${signatureId}/reject`, { method: 'POST' });
    expect(res.status).toBe(200);
    const later = (await getRequest(agent, agent.liveApiKey, json.id)).json;
    expect(later.status).toBe('processing');
    expect(later.documents[0]!.signatures[0]!.status).toBe('rejected');
    const again = await admin(`/admin/api/signing/pending/${signatureId}/approve`, { method: 'POST', body: JSON.stringify({ pin: '5678' }) });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('signature_not_pending');
    const pending = (await (await admin('/admin/api/signing/pending')).json()) as PendingJson;
    expect(pending.data.flatMap((g) => g.signatures.map((s) => s.id))).not.toContain(signatureId);
  });
});
