/**
 * Trust in the signer (issue 15 point 4): a chain from the signer's certificate to the test CA
 * or a configured root, or "no de confianza" with the reason. A certificate anyone can make with
 * a victim's name is intact and untrusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { signPdf, verifyPdfSignatures, type CmsSigner, type TrustAnchor } from '../../../core/pdf/index.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';
import { issuedSigner } from '../../helpers/pdf-updates.js';
import { createTestPki, TEST_SUBJECT, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let otherPki: TestPki;
let pdf: Buffer;
let testCa: TrustAnchor[];

beforeAll(async () => {
  [pki, otherPki] = await Promise.all([createTestPki(), createTestPki()]);
  testCa = [{ source: 'test_ca', certificate: pki.ca.certificate }];
  pdf = await makePdf();
});
afterAll(async () => {
  await Promise.all([pki.cleanup(), otherPki.cleanup()]);
});

async function verifyWith(signer: CmsSigner, trustAnchors: TrustAnchor[], now?: Date) {
  const signed = await signPdf(pdf, signer, {});
  const [report] = verifyPdfSignatures(signed, { trustAnchors, ...(now ? { now } : {}) });
  return report!;
}

describe('trust in the signer', () => {
  it('trusts a signer whose chain ends at the test CA, and says so', async () => {
    const r = await verifyWith(issuedSigner(pki.leaf), testCa);
    expect(r).toMatchObject({ intact: true, valid: true, trusted: true, trust: { anchor: 'test_ca', anchorName: 'Sello Test CA', timeSource: 'now' } });
    expect(r.trust.problem).toBeUndefined();
  });

  it('does not trust a self-made certificate carrying a victim’s name, though the signature is intact', async () => {
    const forger = testPdfSigner(TEST_SUBJECT.commonName);
    const r = await verifyWith(forger, testCa);
    expect(r).toMatchObject({ signerName: TEST_SUBJECT.commonName, intact: true, valid: true, trusted: false, trust: { anchor: null } });
    expect(r.trust.problem).toMatch(/autofirmado/);
  });

  it('trusts that same certificate once it is a configured root', async () => {
    const own = testPdfSigner('Raíz Propia de la Oficina');
    const r = await verifyWith(own, [...testCa, { source: 'configured', certificate: Buffer.from(new X509Certificate(own.certPem).raw) }]);
    expect(r).toMatchObject({ trusted: true, trust: { anchor: 'configured', anchorName: 'Raíz Propia de la Oficina' } });
  });

  it('names an unknown issuer, and a chain that ends at a root nobody configured', async () => {
    const withChain = await verifyWith(issuedSigner(otherPki.leaf), testCa);
    expect(withChain).toMatchObject({ trusted: false, trust: { anchor: null } });
    expect(withChain.trust.problem).toMatch(/termina en «Sello Test CA», que no es una raíz de confianza/);
    const bare = await verifyWith({ ...issuedSigner(otherPki.leaf), chain: [] }, testCa);
    expect(bare.trust.problem).toMatch(/emisor desconocido/);
  });

  it('does not trust an expired certificate, and says when the claimed time would have been fine', async () => {
    // The test CA was made a day ago: the certificate lives an hour either side of now.
    const hour = 3_600_000;
    const now = Date.now();
    const expired = pki.issue({ subject: { ...TEST_SUBJECT }, notBefore: new Date(now - hour), notAfter: new Date(now + hour) });
    const signed = await signPdf(pdf, issuedSigner(expired), { signingTime: new Date(now) });
    const later = new Date(now + 48 * hour);
    const [r] = verifyPdfSignatures(signed, { trustAnchors: testCa, now: later });
    expect(r).toMatchObject({ intact: true, trusted: false, trust: { checkedAt: later, timeSource: 'now' } });
    expect(r!.trust.problem).toMatch(/venció el .*sello de tiempo de confianza/);
    // Judged while it was valid, the same chain holds.
    const [then] = verifyPdfSignatures(signed, { trustAnchors: testCa, now: new Date(now) });
    expect(then).toMatchObject({ trusted: true });
  });

  it('trusts nobody without anchors', async () => {
    const r = await verifyWith(issuedSigner(pki.leaf), []);
    expect(r).toMatchObject({ intact: true, trusted: false });
    expect(r.trust.problem).toMatch(/no hay raíces de confianza/);
  });

  it('gives reports that survive a structured clone (they cross to a worker thread)', async () => {
    const signed = await signPdf(pdf, issuedSigner(pki.leaf), {});
    const reports = verifyPdfSignatures(signed, { trustAnchors: testCa });
    expect(structuredClone(reports)).toEqual(reports);
    // Anchors arrive in the thread as Uint8Array, not Buffer.
    const cloned = structuredClone(testCa).map((a) => ({ ...a, certificate: new Uint8Array(a.certificate) }));
    expect(verifyPdfSignatures(signed, { trustAnchors: cloned })[0]).toMatchObject({ trusted: true });
  });
});
