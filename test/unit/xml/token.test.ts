/**
 * XAdES-BES with a key on a SoftHSM2 token, through Sello's token key source: SHA-1 with
 * CKM_SHA1_RSA_PKCS and, for drivers that only do raw RSA, CKM_RSA_PKCS over the SHA-1
 * DigestInfo; SHA-256 the same two ways. xmllint, xmlsec1 and verifyXadesBes judge the result.
 */
import { readFileSync } from 'node:fs';
import { verify, X509Certificate } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKeySource } from '../../../core/signing/key-sources/index.js';
import { signXadesBes, verifyXadesBes, xmlSignerFrom } from '../../../core/xml/index.js';
import { loadTokenDriver, type TokenDriver } from '../../../native/index.js';
import { SOFTHSM_MODULE } from '../../helpers/softhsm.js';
import { createTokenFixture, type TokenFixture } from '../../helpers/token-fixture.js';
import { SRI_SAMPLES, xmllint, xmlsec1 } from '../../helpers/xml-tools.js';

const unsigned = readFileSync(path.join(SRI_SAMPLES, 'invoice.unsigned.xml'));
let fixture: TokenFixture;
let serial: string;
const drivers: TokenDriver[] = [];

beforeAll(async () => {
  fixture = await createTokenFixture({ label: 'oficina', keyId: '0a' });
  const driver = loadTokenDriver(SOFTHSM_MODULE);
  drivers.push(driver);
  serial = (await driver.listSlots()).find((s) => s.token?.label === 'oficina')!.token!.serialNumber;
});
afterAll(async () => {
  for (const d of drivers) await d.close();
  await fixture?.cleanup();
});

describe('signXadesBes with a PKCS#11 token', () => {
  it.each([
    ['CKM_SHA1_RSA_PKCS / CKM_SHA256_RSA_PKCS', false],
    ['CKM_RSA_PKCS over a DigestInfo', true],
  ])('signs with %s: valid for xmllint, xmlsec1 and verifyXadesBes, PIN asked once', async (_name, rawRsaOnly) => {
    const driver = loadTokenDriver(SOFTHSM_MODULE, { rawRsaOnly });
    drivers.push(driver);
    await driver.logout((await driver.listSlots()).find((s) => s.token?.serialNumber === serial)!.slotId);
    let asked = 0;
    const source = await tokenKeySource({ driver, tokenSerial: serial, keyId: Buffer.from('0a', 'hex'), pin: async () => (asked++, '1234') });
    const signer = xmlSignerFrom(source);
    for (const hash of ['sha1', 'sha256'] as const) {
      const signed = await signXadesBes(unsigned, signer, { hash });
      expect(xmllint(signed, 'factura_V1.1.0.xsd').ok).toBe(true);
      const dsig = xmlsec1(signed, 'factura');
      expect(dsig.ok, dsig.output).toBe(true);
      expect(verifyXadesBes(signed)).toMatchObject({ valid: true, hash, signerName: 'ANA MARÍA PÉREZ LÓPEZ' });
    }
    expect(asked).toBe(1);
  });

  it('signs SHA-1 with the token as RSA PKCS#1 v1.5 over SHA-1, verifiable with the certificate', async () => {
    const source = await tokenKeySource({ driver: drivers[0]!, tokenSerial: serial, keyId: Buffer.from('0a', 'hex'), pin: async () => '1234' });
    const data = Buffer.from('<ds:SignedInfo/>');
    const publicKey = new X509Certificate(fixture.pki.leaf.certificate).publicKey;
    expect(verify('sha1', data, publicKey, await source.sign(data, 'sha1'))).toBe(true);
    expect(verify('sha256', data, publicKey, await source.sign(data))).toBe(true);
  });
});
