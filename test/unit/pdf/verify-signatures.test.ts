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
    expect(report).toMatchObject({ signerName: signer.commonName, signingTime, intact: true, coversWholeFile: true, subFilter: 'ETSI.CAdES.detached' });

    const tampered = Buffer.from(pdf);
    tampered[100] = tampered[100]! ^ 0x01;
    const [bad] = verifyPdfSignatures(tampered);
    expect(bad!.intact).toBe(false);
    expect(bad!.problem).toMatch(/resumen/);

    const appended = Buffer.concat([pdf, Buffer.from('% más\n')]);
    expect(verifyPdfSignatures(appended)[0]).toMatchObject({ intact: true, coversWholeFile: false });
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
