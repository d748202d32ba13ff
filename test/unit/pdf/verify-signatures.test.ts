import { describe, expect, it } from 'vitest';
import { signPdf, verifyPdfSignatures } from '../../../core/pdf/index.js';
import { rc4 } from '../../../core/pdf/syntax/encryption.js';
import { parsePdfDate } from '../../../core/pdf/verify/verify-signatures.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';

describe('verifyPdfSignatures', () => {
  it('reports signer, time, coverage, and notices a changed byte', async () => {
    const signer = testPdfSigner();
    const signingTime = new Date('2026-03-04T05:06:07Z');
    const pdf = await signPdf(await makePdf(), signer, { signingTime });
    const [report] = verifyPdfSignatures(pdf);
    expect(report).toMatchObject({ signerName: signer.commonName, signingTime, intact: true, coversWholeFile: true, subFilter: 'ETSI.CAdES.detached', modification: 'none', valid: true, docMdp: null });
    // No anchors given: intact and valid, but nobody vouches for the signer.
    expect(report).toMatchObject({ trusted: false, trust: { anchor: null } });

    const tampered = Buffer.from(pdf);
    tampered[100] = tampered[100]! ^ 0x01;
    const [bad] = verifyPdfSignatures(tampered);
    expect(bad).toMatchObject({ intact: false, valid: false });
    expect(bad!.problem).toMatch(/resumen/);

    // Bytes after the last %%EOF that no reader takes for a revision change nothing it shows.
    const appended = Buffer.concat([pdf, Buffer.from('% más\n')]);
    expect(verifyPdfSignatures(appended)[0]).toMatchObject({ intact: true, coversWholeFile: false, modification: 'none', valid: true });
  });

  it('reports a certificate whose public key cannot be decoded as a signature that does not verify, never a raw error', async () => {
    // A changed byte in /Contents inside the signer certificate's SubjectPublicKeyInfo (fuzz
    // seed 31337, mutant 493): the certificate still parses, but reading its key throws.
    const signer = testPdfSigner();
    const pdf = await signPdf(await makePdf(), signer, {});
    const der = Buffer.from(signer.certificate);
    const rsa = Buffer.from('06092a864886f70d0101010500', 'hex');
    const spki = der.subarray(der.indexOf(rsa), der.indexOf(rsa) + rsa.length + 6).toString('hex');
    const at = pdf.toString('latin1').indexOf(spki);
    expect(at).toBeGreaterThan(0);
    const broken = Buffer.from(pdf);
    // The SEQUENCE tag of RSAPublicKey inside the BIT STRING: 0x30 → 0x20.
    broken.write('2', at + spki.length - 2, 'latin1');
    const [report] = verifyPdfSignatures(broken);
    expect(report).toMatchObject({ intact: false, valid: false });
    expect(report!.problem).toMatch(/no verifica con el certificado/);
  });

  it('returns nothing for an unsigned PDF', async () => {
    expect(verifyPdfSignatures(await makePdf())).toEqual([]);
  });
});

describe('parsePdfDate', () => {
  it('reads §7.9.4 dates with offsets and partial forms', () => {
    expect(parsePdfDate("D:20260102030405-05'00'")?.toISOString()).toBe('2026-01-02T08:04:05.000Z');
    expect(parsePdfDate('D:20260102030405Z')?.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(parsePdfDate('D:2026')?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(parsePdfDate('ayer')).toBeNull();
  });
});

describe('rc4', () => {
  it('matches the classic test vector', () => {
    expect(rc4(Buffer.from('Key'), Buffer.from('Plaintext')).toString('hex')).toBe('bbf316e8d940af0ad3');
  });
});
