/**
 * The token driver and the token key source against a real PKCS#11 module: SoftHSM2,
 * with its own config and tokens folder per test file (test/helpers/softhsm.ts).
 */
import { execFile } from 'node:child_process';
import { createHash, verify, X509Certificate } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildPadesCms } from '../../../core/pdf/cms/cms.js';
import { tokenKeySource, type PinRequest } from '../../../core/signing/key-sources/index.js';
import { loadTokenDriver, type SlotEntry, type TokenDriver } from '../../../native/index.js';
import type { IssuedCertificate } from '../../../core/certificates/test-ca.js';
import { createSoftHsm, type SoftHsm } from '../../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

const run = promisify(execFile);

let pki: TestPki;
let hsm: SoftHsm;
let driver: TokenDriver;
let ecLeaf: IssuedCertificate;
let slots: SlotEntry[];
const slotOf = (label: string): SlotEntry => {
  const s = slots.find((x) => x.token?.label === label);
  if (!s) throw new Error(`no token ${label}`);
  return s;
};
/**
 * Counts the C_Login calls that reach the module. pkcs11js copies its native methods onto each
 * instance when it is constructed, so the wrapper must be in place before loadTokenDriver.
 */
let loginCalls = 0;
const nativeProto = Object.getPrototypeOf(pkcs11js.PKCS11.prototype) as { C_Login: (...a: unknown[]) => void };
const originalLogin = nativeProto.C_Login;
nativeProto.C_Login = function (this: unknown, ...args: unknown[]) {
  loginCalls++;
  return originalLogin.apply(this, args);
};

const ID_RSA = Buffer.from('01', 'hex');
const ID_EC = Buffer.from('02', 'hex');
const ID_ALWAYS = Buffer.from('03', 'hex');

beforeAll(async () => {
  pki = await createTestPki();
  ecLeaf = pki.issue({ subject: { commonName: 'LUIS EC', country: 'PE' }, keyType: 'ec' });
  hsm = await createSoftHsm();
  const office = await hsm.initToken({ label: 'oficina', pin: '1234' });
  await office.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  await office.importKey({ id: '02', label: 'luis', key: ecLeaf.privateKey, certificate: ecLeaf.certificate });
  const spare = await hsm.initToken({ label: 'pruebas-pin', pin: '1111' });
  await spare.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const always = await hsm.initToken({ label: 'siempre', pin: '2222' });
  await always.importKey({ id: '03', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate, alwaysAuthenticate: true });
  driver = loadTokenDriver(hsm.modulePath);
  slots = await driver.listSlots();
});
afterAll(async () => {
  nativeProto.C_Login = originalLogin;
  await driver?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
});

describe('TokenDriver on SoftHSM2', () => {
  it('lists slots and tokens with label, manufacturer, model, serial and PIN flags', () => {
    const office = slotOf('oficina');
    expect(office.tokenPresent).toBe(true);
    expect(office.token).toMatchObject({ manufacturer: 'SoftHSM project', model: 'SoftHSM v2', pinTries: 'ok' });
    expect(office.token?.serialNumber).toMatch(/^[0-9a-f]+$/);
    expect(office.token?.flags).toMatchObject({ loginRequired: true, userPinInitialized: true, tokenInitialized: true, userPinLocked: false });
    expect(driver.info()).toMatchObject({ manufacturer: 'SoftHSM', cryptokiVersion: '2.40' });
  });

  it('lists the certificates with CKA_ID and CKA_LABEL; the keys show only after login', async () => {
    const { slotId } = slotOf('oficina');
    const before = await driver.listCertificates(slotId);
    expect(before.map((c) => [c.id.toString('hex'), c.label]).sort()).toEqual([['01', 'ana'], ['02', 'luis']]);
    expect(before.find((c) => c.id.equals(ID_RSA))?.certificate).toEqual(pki.leaf.certificate);
    expect(before.every((c) => c.privateKey === null)).toBe(true);

    await driver.login(slotId, '1234');
    expect(driver.isLoggedIn(slotId)).toBe(true);
    const after = await driver.listCertificates(slotId);
    expect(after.find((c) => c.id.equals(ID_RSA))?.privateKey).toEqual({ keyType: 'rsa', alwaysAuthenticate: false });
    expect(after.find((c) => c.id.equals(ID_EC))?.privateKey).toEqual({ keyType: 'ec', alwaysAuthenticate: false });
  });

  it('signs SHA-256 with RSA (PKCS#1 v1.5) and EC (ECDSA, DER), verifiable with node:crypto', async () => {
    const { slotId } = slotOf('oficina');
    await driver.login(slotId, '1234');
    const data = Buffer.from('atributos firmados');
    const rsa = await driver.sign(slotId, ID_RSA, data);
    expect(verify('sha256', data, new X509Certificate(pki.leaf.certificate).publicKey, rsa)).toBe(true);
    const ec = await driver.sign(slotId, ID_EC, data);
    expect(ec[0]).toBe(0x30);
    expect(verify('sha256', data, new X509Certificate(ecLeaf.certificate).publicKey, ec)).toBe(true);
  });

  it('falls back to CKM_RSA_PKCS over a DigestInfo, giving the same PKCS#1 v1.5 signature', async () => {
    const { slotId } = slotOf('oficina');
    await driver.login(slotId, '1234');
    const raw = loadTokenDriver(hsm.modulePath, { rawRsaOnly: true }); // shares the module, its session and login
    try {
      expect(raw.isLoggedIn(slotId)).toBe(true);
      const data = Buffer.from('atributos firmados');
      expect(await raw.sign(slotId, ID_RSA, data)).toEqual(await driver.sign(slotId, ID_RSA, data));
    } finally {
      await raw.close();
    }
    expect(driver.isLoggedIn(slotId)).toBe(true); // closing one driver does not log the other out
  });

  it('asks for the PIN (pin_required) when signing without login', async () => {
    const { slotId } = slotOf('pruebas-pin');
    await expect(driver.sign(slotId, ID_RSA, Buffer.from('x'))).rejects.toMatchObject({ code: 'pin_required' });
  });

  it('answers pin_incorrect for a wrong PIN with exactly one C_Login per attempt', async () => {
    const { slotId } = slotOf('pruebas-pin');
    const before = loginCalls;
    const err = await driver.login(slotId, '0000').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'pin_incorrect' });
    expect(loginCalls - before).toBe(1);
    // SoftHSM raises CKF_USER_PIN_COUNT_LOW after a wrong PIN; the error says so.
    expect((err as { details: { meta: Record<string, unknown> } }).details.meta).toMatchObject({ pin_tries: 'low' });
    expect(driver.isLoggedIn(slotId)).toBe(false);
  });

  it('through tokenKeySource, a wrong PIN is asked once and never retried', async () => {
    const { token } = slotOf('pruebas-pin');
    const asked: PinRequest[] = [];
    const source = await tokenKeySource({
      driver,
      tokenSerial: token?.serialNumber ?? '',
      keyId: ID_RSA,
      pin: async (req) => {
        asked.push(req);
        return '9999';
      },
    });
    const before = loginCalls;
    await expect(source.sign(Buffer.from('x'))).rejects.toMatchObject({ code: 'pin_incorrect' });
    expect(asked).toHaveLength(1);
    expect(loginCalls - before).toBe(1);
    expect(asked[0]).toMatchObject({ reason: 'login', tokenLabel: 'pruebas-pin' });
  });

  it('SoftHSM2 never locks the user PIN: after 12 wrong PINs the right one still works (pin_locked cannot be produced here)', async () => {
    const { slotId } = slotOf('pruebas-pin');
    for (let i = 0; i < 12; i++) await expect(driver.login(slotId, '0000')).rejects.toMatchObject({ code: 'pin_incorrect' });
    const [entry] = (await driver.listSlots()).filter((s) => s.slotId === slotId);
    expect(entry?.token?.flags.userPinLocked).toBe(false);
    await driver.login(slotId, '1111');
    expect(driver.isLoggedIn(slotId)).toBe(true);
    await driver.logout(slotId);
    expect(driver.isLoggedIn(slotId)).toBe(false);
  });

  it('signs on a worker thread: a timer keeps ticking during 50 signatures', async () => {
    const { slotId } = slotOf('oficina');
    await driver.login(slotId, '1234');
    let ticks = 0;
    let turns = 0;
    let spinning = true;
    const timer = setInterval(() => ticks++, 0);
    const spin = (): void => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    try {
      for (let i = 0; i < 50; i++) await driver.sign(slotId, ID_RSA, Buffer.from(`documento ${i}`));
    } finally {
      clearInterval(timer);
      spinning = false;
    }
    // With a blocking C_Sign the awaits would resolve as microtasks: no timer, no event-loop turn.
    // With the callback form each signature completes on a later turn of the loop.
    expect(ticks).toBeGreaterThan(0);
    expect(turns).toBeGreaterThanOrEqual(50);
  });

  it('runs one operation at a time per token: 20 concurrent signatures all succeed', async () => {
    const { slotId } = slotOf('oficina');
    await driver.login(slotId, '1234');
    const pub = new X509Certificate(pki.leaf.certificate).publicKey;
    const datas = Array.from({ length: 20 }, (_, i) => Buffer.from(`concurrente ${i}`));
    const sigs = await Promise.all(datas.map((d) => driver.sign(slotId, ID_RSA, d)));
    sigs.forEach((s, i) => expect(verify('sha256', datas[i] as Buffer, pub, s)).toBe(true));
  });

  it('logs in context-specifically before each signature with a CKA_ALWAYS_AUTHENTICATE key', async () => {
    const { slotId } = slotOf('siempre');
    await driver.login(slotId, '2222');
    const certs = await driver.listCertificates(slotId);
    expect(certs[0]?.privateKey).toEqual({ keyType: 'rsa', alwaysAuthenticate: true });
    await expect(driver.sign(slotId, ID_ALWAYS, Buffer.from('x'))).rejects.toMatchObject({ code: 'pin_required' });
    await expect(driver.sign(slotId, ID_ALWAYS, Buffer.from('x'), { contextPin: async () => '0000' })).rejects.toMatchObject({ code: 'pin_incorrect' });
    let asked = 0;
    for (let i = 0; i < 3; i++) {
      const data = Buffer.from(`doc ${i}`);
      const sig = await driver.sign(slotId, ID_ALWAYS, data, { contextPin: async () => (asked++, '2222') });
      expect(verify('sha256', data, new X509Certificate(pki.leaf.certificate).publicKey, sig)).toBe(true);
    }
    expect(asked).toBe(3);
  });

  it('produces a CMS that openssl verifies, via tokenKeySource (certificate read from the token)', async () => {
    const { token } = slotOf('oficina');
    const pin = vi.fn(async () => '1234');
    await driver.logout(slotOf('oficina').slotId);
    const source = await tokenKeySource({ driver, tokenSerial: token?.serialNumber ?? '', keyId: ID_RSA, pin });
    expect(source.certificate).toEqual(pki.leaf.certificate);
    const data = Buffer.from('PDF firmado con token');
    const cms = await buildPadesCms({ digest: createHash('sha256').update(data).digest(), signer: source });
    await buildPadesCms({ digest: createHash('sha256').update(data).digest(), signer: source });
    expect(pin).toHaveBeenCalledTimes(1); // the session stays logged in
    const dir = await mkdtemp(join(pki.dir, 'tok-'));
    await writeFile(join(dir, 'data.bin'), data);
    await writeFile(join(dir, 'sig.p7s'), cms);
    const { stderr } = await run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', join(dir, 'sig.p7s'), '-content', join(dir, 'data.bin'), '-CAfile', pki.ca.certificatePath, '-purpose', 'any', '-out', '/dev/null']);
    expect(stderr).toContain('Verification successful');
  });

  it('refuses to sign with an expired certificate before touching the token', async () => {
    const { token } = slotOf('oficina');
    const pin = vi.fn(async () => '1234');
    const source = await tokenKeySource({ driver, tokenSerial: token?.serialNumber ?? '', keyId: ID_RSA, pin, now: () => new Date(Date.now() + 2 * 365 * 86_400_000) });
    await expect(source.sign(Buffer.from('x'))).rejects.toMatchObject({ code: 'certificate_expired' });
    expect(pin).not.toHaveBeenCalled();
  });
});
