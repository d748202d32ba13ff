import { verify, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCertificateCurrent, orderChain, softwareKeySource } from '../../../core/signing/key-sources/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});
afterAll(() => pki.cleanup());

describe('softwareKeySource', () => {
  it('signs with RSA and EC keys, verifiable with the certificate', async () => {
    for (const leaf of [pki.leaf, pki.issue({ subject: { commonName: 'EC' }, keyType: 'ec' })]) {
      const source = softwareKeySource({ key: leaf.privateKey, certificate: leaf.certificate, chain: leaf.chain });
      const sig = await source.sign(Buffer.from('datos'));
      expect(verify('sha256', Buffer.from('datos'), new X509Certificate(leaf.certificate).publicKey, sig)).toBe(true);
    }
  });

  it('refuses a key that does not belong to the certificate', () => {
    const other = pki.issue({ subject: { commonName: 'OTRO' } });
    expect(() => softwareKeySource({ key: other.privateKey, certificate: pki.leaf.certificate })).toThrow(/no corresponde/);
  });

  it('answers certificate_expired before validity and after it, using the given clock', async () => {
    const source = (now: Date) => softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, now: () => now });
    await expect(source(new Date(Date.now() - 10 * 86_400_000)).sign(Buffer.from('x'))).rejects.toMatchObject({ code: 'certificate_expired' });
    await expect(source(new Date(Date.now() + 400 * 86_400_000)).sign(Buffer.from('x'))).rejects.toMatchObject({ code: 'certificate_expired' });
    await expect(source(new Date()).sign(Buffer.from('x'))).resolves.toBeInstanceOf(Buffer);
  });

  it('answers certificate_expired for a certificate not yet valid', () => {
    const future = pki.issue({ subject: { commonName: 'FUTURO' }, notBefore: new Date(Date.now() + 86_400_000), validityDays: 10 });
    expect(() => assertCertificateCurrent(future.certificate, new Date())).toThrow(expect.objectContaining({ code: 'certificate_expired' }));
  });
});

describe('orderChain', () => {
  it('keeps only the issuers of the leaf, issuer first', () => {
    const unrelated = pki.issue({ subject: { commonName: 'SIN RELACION' } });
    expect(orderChain(pki.leaf.certificate, [unrelated.certificate, pki.ca.certificate])).toEqual([pki.ca.certificate]);
  });
});
