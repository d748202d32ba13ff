/**
 * Issue 15 point 5: a signed output is read back by Sello's own reader before it is reported
 * signed. A token that returns garbage, a CMS over another digest, or an update a reader would
 * not find the signature in is `pdf_output_unreadable`, never a success.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { buildPadesCms, completeSignature, embedCms, estimateCmsSize, preparePdfSignature, verifyPdfSignatures, type PreparedUpdate } from '../../../core/pdf/index.js';
import { readBackSignature } from '../../../core/pdf/verify/read-back.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';

let pdf: Buffer;
let prepared: PreparedUpdate;
const signer = testPdfSigner();

beforeAll(async () => {
  pdf = await makePdf();
  prepared = preparePdfSignature(pdf, { signingTime: new Date(), contentsSize: estimateCmsSize(signer, { timestamp: false }) });
});

function unreadable(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SelloError);
    expect((err as SelloError).code).toBe('pdf_output_unreadable');
    return (err as SelloError).message;
  }
  throw new Error('se esperaba pdf_output_unreadable');
}

describe('completeSignature reads the signed output back', () => {
  it('returns the update of a good signature, which verifies', async () => {
    const cms = await buildPadesCms({ digest: prepared.digest, signer });
    const update = completeSignature(pdf, prepared, cms);
    expect(verifyPdfSignatures(Buffer.concat([pdf, update]))[0]).toMatchObject({ intact: true, valid: true });
  });

  it('refuses a CMS whose signature is garbage (a token that answered nonsense)', async () => {
    // buildPadesCms checks the signature itself; a CMS damaged after it (a B-B CMS ends with
    // the RSA signature value) stands for one that escaped that check.
    const cms = Buffer.from(await buildPadesCms({ digest: prepared.digest, signer }));
    cms[cms.length - 10] = cms[cms.length - 10]! ^ 0x01;
    expect(unreadable(() => completeSignature(pdf, prepared, cms))).toMatch(/no verifica/);
  });

  it('checks in full a CMS buildPadesCms made but that was changed in place afterwards', async () => {
    const cms = await buildPadesCms({ digest: prepared.digest, signer });
    cms[cms.length - 10] = cms[cms.length - 10]! ^ 0x01;
    expect(unreadable(() => completeSignature(pdf, prepared, cms))).toMatch(/no verifica/);
  });

  it('refuses a CMS made over another digest', async () => {
    const cms = await buildPadesCms({ digest: randomBytes(32), signer });
    expect(unreadable(() => completeSignature(pdf, prepared, cms))).toMatch(/resumen/);
  });

  it('refuses bytes that are no CMS at all', () => {
    unreadable(() => completeSignature(pdf, prepared, randomBytes(200)));
  });

  it('refuses an output whose signature is not where the prepared /ByteRange says', async () => {
    const cms = await buildPadesCms({ digest: prepared.digest, signer });
    const update = embedCms(prepared, cms);
    const moved: PreparedUpdate = { ...prepared, byteRange: [0, prepared.byteRange[1] + 1, prepared.byteRange[2], prepared.byteRange[3]] };
    expect(unreadable(() => readBackSignature(pdf, update, moved, cms))).toMatch(/no aparece/);
    // An update cut short: no reader finds its cross-reference section.
    unreadable(() => readBackSignature(pdf, update.subarray(0, update.length - 40), prepared, cms));
  });
});
