/**
 * An issuer whose certificate is on a PKCS#11 token (SoftHSM2): its invoices are numbered at
 * once and wait in `pending` until a person gives the token's PIN (the PIN cache of signing
 * requests, CONTRACT §11 and §15); a wrong PIN is tried once, said, and never tried again by
 * itself; with the right one the comprobante is signed on the token, and the fake SRI's xmlsec1
 * accepts it.
 */
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTokenCertificate } from '../../../core/certificates/index.js';
import { loadTokenDriver } from '../../../native/index.js';
import { issuerBody, putIssuer, startInvoiceRig, type InvoiceRig } from '../../helpers/invoices.js';
import { createSoftHsm, type SoftHsm } from '../../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let hsm: SoftHsm;
let rig: InvoiceRig;
let tokenSerial: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts C_Login calls reaching the module (installed before any driver is loaded). */
let loginCalls = 0;
const nativeProto = Object.getPrototypeOf(pkcs11js.PKCS11.prototype) as { C_Login: (...a: unknown[]) => void };
const originalLogin = nativeProto.C_Login;
nativeProto.C_Login = function (this: unknown, ...args: unknown[]) {
  loginCalls++;
  return originalLogin.apply(this, args);
};

beforeAll(async () => {
  pki = await createTestPki();
  hsm = await createSoftHsm();
  const token = await hsm.initToken({ label: 'emisor', pin: '1234' });
  await token.importKey({ id: '01', label: 'emisor', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const driver = loadTokenDriver(hsm.modulePath);
  tokenSerial = (await driver.listSlots()).find((s) => s.token?.label === 'emisor')!.token!.serialNumber;
  await driver.close();
  rig = await startInvoiceRig({ config: { pkcs11Modules: [hsm.modulePath] } });
  const certificateId = registerTokenCertificate(rig.agent.store, {
    modulePath: hsm.modulePath,
    tokenSerial,
    tokenLabel: 'emisor',
    keyId: Buffer.from('01', 'hex'),
    certificate: pki.leaf.certificate,
    chain: pki.leaf.chain,
  }).id;
  // A test issuer may name one of the office's live certificates (CONTRACT §15).
  await putIssuer(rig.agent, rig.agent.testKey, issuerBody(certificateId));
});

afterAll(async () => {
  await rig?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
});

const pin = (value: string) =>
  rig.agent.fetch('/admin/api/fiscal/token-pin', {
    method: 'POST',
    headers: { Authorization: `Bearer ${rig.agent.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ token_serial: tokenSerial, pin: value }),
  });

async function lastError(id: string, match: RegExp): Promise<{ status: string; sri: { state: string; last_error: string | null } }> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { json } = await rig.get(id);
    if (json.data.sri.last_error && match.test(json.data.sri.last_error)) return json.data;
    if (Date.now() > until) throw new Error(`last_error of ${id} never matched ${match}: ${JSON.stringify(json.data.sri)}`);
    await sleep(20);
  }
}

describe('an issuer on a token', () => {
  it('waits for the PIN; a wrong one is said and not retried; the right one signs on the token', async () => {
    const { status, json } = await rig.post(rig.invoiceBody('TOKEN-1'));
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    const waiting = await lastError(doc.id, /Esperando el PIN del token «emisor»/);
    expect(waiting).toMatchObject({ status: 'pending', sri: { state: 'pending' } });
    expect(rig.sri.calls).toHaveLength(0);

    const loginsBefore = loginCalls;
    expect((await pin('9999')).status).toBe(200);
    const wrong = await lastError(doc.id, /PIN no es correcto/);
    expect(wrong.status).toBe('pending');
    // Never tried again by itself: one login with the wrong PIN, then none while the rechecks go by.
    await sleep(300);
    expect(loginCalls - loginsBefore).toBe(1);
    expect((await rig.get(doc.id)).json.data.sri.last_error).toMatch(/PIN no es correcto/);
    expect(rig.sri.calls).toHaveLength(0);

    expect((await pin('1234')).status).toBe(200);
    const done = await rig.waitForStatus(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    const received = rig.sri.calls.find((c) => c.service === 'recepcion' && c.accessKey === doc.access_key)!;
    expect(received.answer?.estado).toBe('RECIBIDA'); // xmllint and xmlsec1 accepted the token's signature

    // The PIN is kept for the session: the next invoice signs at once.
    const next = await rig.post(rig.invoiceBody('TOKEN-2'));
    expect((await rig.waitForStatus(next.json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
  });

  it('a certificate that expires while its invoice waits ends it failed, with the reason in Spanish', async () => {
    const forget = await rig.agent.fetch('/admin/api/fiscal/token-pin', {
      method: 'POST',
      headers: { Authorization: `Bearer ${rig.agent.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ token_serial: tokenSerial, pin: '0000' }),
    });
    expect(forget.status).toBe(200);
    const { json } = await rig.post(rig.invoiceBody('TOKEN-3'));
    const id = json.data!.id;
    await lastError(id, /PIN no es correcto/);
    const db = rig.agent.store.sqlite;
    const certificateId = (db.prepare('select certificate_id from fiscal_submissions where document_id = ?').get(id) as { certificate_id: string }).certificate_id;
    db.prepare('update certificates set not_after = ? where id = ?').run('2020-01-01T00:00:00.000Z', certificateId);
    expect((await pin('1234')).status).toBe(200);
    const done = await rig.waitForStatus(id, ['authorized', 'rejected', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/^No se pudo firmar el comprobante: .*caducó/);
    expect(rig.sri.calls.some((c) => c.accessKey === json.data!.access_key)).toBe(false);
  });
});
