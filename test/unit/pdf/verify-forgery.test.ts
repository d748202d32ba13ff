/**
 * Issue 15 "Forgery accepted": a genuine signature whose bytes still hash right, placed so that
 * it vouches for something else. Each file below passes the checks of the first version
 * (/ByteRange starts at 0, the digest over it matches the CMS, and for the first one [2]+[3] is
 * the file's length), and each must be reported not intact.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf, verifyPdfSignatures, type TrustAnchor } from '../../../core/pdf/index.js';
import { withPdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import { findPage } from '../../../core/pdf/syntax/page-tree.js';
import type { PdfStream } from '../../../core/pdf/syntax/pdf-objects.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { appendRevision, issuedSigner, stream } from '../../helpers/pdf-updates.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

const FORGED_TEXT = 'BT /F1 24 Tf 72 700 Td (PAGUE USD 1.000.000 A LA CUENTA 666) Tj ET';

let pki: TestPki;
let anchors: TrustAnchor[];
let signed: Buffer;
let sigNum: number;
let contentNum: number;
let byteRange: [number, number, number, number];

beforeAll(async () => {
  pki = await createTestPki();
  anchors = [{ source: 'test_ca', certificate: pki.ca.certificate }];
  signed = await signPdf(await makePdf({ objectStreams: false }), issuedSigner(pki.leaf), { signingTime: new Date('2026-05-01T10:00:00Z') });
  const [report] = verifyPdfSignatures(signed, { trustAnchors: anchors });
  expect(report).toMatchObject({ intact: true, valid: true, trusted: true, coversWholeFile: true, modification: 'none' });
  byteRange = report!.byteRange as [number, number, number, number];
  const head = signed.toString('latin1', 0, byteRange[1]);
  sigNum = Number([...head.matchAll(/(\d+) 0 obj\n<<\/Type\/Sig/g)].pop()![1]);
  contentNum = withPdfDocument(signed, (doc) => {
    const contents = doc.array(findPage(doc, 1).dict.get('Contents'));
    return (contents![0] as { num: number }).num;
  });
});
afterAll(() => pki.cleanup());

/** The digest the first version compared: over [0, a) and [b, b + c). */
function rangesDigest(pdf: Buffer, br: number[]): string {
  return createHash('sha256')
    .update(pdf.subarray(0, br[1]))
    .update(pdf.subarray(br[2]!, br[2]! + br[3]!))
    .digest('hex');
}

describe('verifyPdfSignatures against forgeries', () => {
  it('rejects a genuine signature wrapped around other page content (the gap is not its /Contents)', () => {
    // Signature wrapping (Mladenov et al. 2019): keep both signed ranges byte for byte, and put
    // in between, where the unsigned gap was, a new page content and a copy of the signature
    // dictionary whose /ByteRange points around that larger gap. Readers that repair the file
    // take the later definitions.
    const [, a, b, c] = byteRange;
    const objStart = signed.lastIndexOf(`${sigNum} 0 obj\n<</Type/Sig`, a, 'latin1');
    const head = signed.toString('latin1', objStart, a); // `N 0 obj <<… /ByteRange [0 a b c] /Contents `
    const gap = signed.toString('latin1', a, b);
    const forgedContent = `${contentNum} 0 obj\n<</Length ${FORGED_TEXT.length}>>\nstream\n${FORGED_TEXT}\nendstream\nendobj\n`;
    const build = (bPrime: number): string => {
      const range = `[0 ${a} ${String(bPrime).padStart(10, '0')} ${c}]`;
      const copy = head.replace(/\/ByteRange\s*\[[^\]]*\]\s*/, `/ByteRange ${range}`);
      return `00>>\nendobj\n${forgedContent}${copy}${gap}>>\nendobj\n`;
    };
    const middleLength = build(0).length;
    const bPrime = a + middleLength;
    const forged = Buffer.concat([signed.subarray(0, a), Buffer.from(build(bPrime), 'latin1'), signed.subarray(b)]);

    const reports = verifyPdfSignatures(forged, { trustAnchors: anchors });
    const report = reports.find((r) => r.byteRange[2] === bPrime);
    // What the first version accepted: ranges from 0 to the end of the file, digest intact.
    expect(report, JSON.stringify(reports)).toBeDefined();
    expect(report!.byteRange).toEqual([0, a, bPrime, c]);
    expect(bPrime + c).toBe(forged.length);
    expect(rangesDigest(forged, report!.byteRange)).toBe(rangesDigest(signed, byteRange));
    expect(withPdfDocument(forged, (doc) => (doc.resolve(doc.array(findPage(doc, 1).dict.get('Contents'))![0]) as PdfStream).data.toString('latin1'))).toBe(FORGED_TEXT);
    // What must be said now.
    expect(report).toMatchObject({ intact: false, valid: false, signerName: 'ANA MARÍA PÉREZ LÓPEZ' });
    expect(report!.problem).toMatch(/hueco sin firmar|fuera de los bytes firmados/);
  });

  it('rejects a signature dictionary redefined by a later revision (outside the signed bytes)', () => {
    // Same dictionary, same /ByteRange and /Contents, written again in an update that also
    // replaces the page content: the digest still matches the first revision.
    const [, a, b] = byteRange;
    const objStart = signed.lastIndexOf(`${sigNum} 0 obj\n<</Type/Sig`, a, 'latin1');
    const objEnd = signed.indexOf('endobj', b, 'latin1') + 'endobj'.length;
    const copy = Buffer.concat([signed.subarray(objStart, objEnd), Buffer.from('\n')]);
    const forged = appendRevision(signed, () => [
      { num: sigNum, gen: 0, value: { raw: copy } },
      { num: contentNum, gen: 0, value: stream(FORGED_TEXT) },
    ]);
    const [report] = verifyPdfSignatures(forged, { trustAnchors: anchors });
    expect(rangesDigest(forged, report!.byteRange)).toBe(rangesDigest(signed, byteRange));
    expect(report).toMatchObject({ intact: false, valid: false, coversWholeFile: false });
    expect(report!.problem).toMatch(/fuera de los bytes firmados/);
  });

  it('rejects a /ByteRange of more than two ranges, even when the digest over them matches', () => {
    // Universal signature forgery: a new dictionary with [0 a b c 0 0] (the extra empty range
    // hashes nothing) and the genuine /Contents, in place of the signed one.
    const [, a, b] = byteRange;
    const objStart = signed.lastIndexOf(`${sigNum} 0 obj\n<</Type/Sig`, a, 'latin1');
    const objEnd = signed.indexOf('endobj', b, 'latin1') + 'endobj'.length;
    const text = signed.toString('latin1', objStart, objEnd).replace(/\/ByteRange\s*\[([^\]]*)\]/, (_m, r: string) => `/ByteRange [${r.trim()} 0 0]`);
    const forged = appendRevision(signed, () => [{ num: sigNum, gen: 0, value: { raw: Buffer.from(`${text}\n`, 'latin1') } }]);
    const [report] = verifyPdfSignatures(forged, { trustAnchors: anchors });
    expect(report!.byteRange).toHaveLength(6);
    expect(report).toMatchObject({ intact: false, valid: false });
    expect(report!.problem).toMatch(/dos tramos/);
  });

  it('rejects a gap that is not a hex string, and a /ByteRange that does not start at 0', () => {
    const [, a, b, c] = byteRange;
    const objStart = signed.lastIndexOf(`${sigNum} 0 obj\n<</Type/Sig`, a, 'latin1');
    const objEnd = signed.indexOf('endobj', b, 'latin1') + 'endobj'.length;
    const original = signed.toString('latin1', objStart, objEnd);
    const shifted = original.replace(/\/ByteRange\s*\[[^\]]*\]/, `/ByteRange [1 ${a - 1} ${b} ${c}]`);
    const [notFromZero] = verifyPdfSignatures(appendRevision(signed, () => [{ num: sigNum, gen: 0, value: { raw: Buffer.from(`${shifted}\n`, 'latin1') } }]));
    expect(notFromZero).toMatchObject({ intact: false });
    expect(notFromZero!.problem).toMatch(/primer byte/);

    // A one-byte change inside the gap: the digest is unaffected, but the gap is no hex string.
    const tampered = Buffer.from(signed);
    tampered[b - 2] = 0x20;
    const [gapBroken] = verifyPdfSignatures(tampered);
    expect(gapBroken).toMatchObject({ intact: false });
  });
});
