/**
 * Revisions appended to a PDF after it was signed, as other programs (or an attacker) write them:
 * an incremental update (PDF 32000-1:2008 §7.5.6) with new or rewritten objects, written with
 * Sello's own incremental writer so that the style (table or xref stream) follows the file.
 * Also the signers the verification tests need: one issued by a test CA, one self-made.
 *
 * @example
 *   const changed = appendRevision(signed, (doc) => [{ num: contentsOf(doc), gen: 0, value: stream('BT … ET') }]);
 */
import { sign } from 'node:crypto';
import type { IssuedCertificate } from '../../core/certificates/test-ca.js';
import type { CmsSigner } from '../../core/pdf/index.js';
import { buildIncrementalUpdate, type UpdateObject } from '../../core/pdf/sign/incremental-writer.js';
import { findPage, type PageInfo } from '../../core/pdf/syntax/page-tree.js';
import { withPdfDocument, type PdfDocument } from '../../core/pdf/syntax/pdf-document.js';
import { PdfDict, PdfRef, PdfStream, name, type PdfObject } from '../../core/pdf/syntax/pdf-objects.js';

/** `pdf` plus one incremental update holding what `build` returns; `alloc` gives new object numbers. */
export function appendRevision(pdf: Buffer, build: (doc: PdfDocument, alloc: () => PdfRef) => UpdateObject[]): Buffer {
  return withPdfDocument(pdf, (doc) => {
    let next = doc.xref.size;
    const objects = build(doc, () => new PdfRef(next++, 0));
    const last = pdf[pdf.length - 1];
    const update = buildIncrementalUpdate(doc.xref, pdf.length, last !== 0x0a && last !== 0x0d, objects);
    return Buffer.concat([pdf, update.bytes]);
  });
}

/** Page `n` (1-based) of `doc`. */
export function page(doc: PdfDocument, n = 1): PageInfo {
  return findPage(doc, n);
}

/** An uncompressed stream (a page content stream, an appearance). */
export function stream(text: string, dict: Array<[string, PdfObject]> = []): PdfStream {
  const data = Buffer.from(text, 'latin1');
  return new PdfStream(new PdfDict([...dict, ['Length', data.length]]), data);
}

/** A form XObject (§8.10) to serve as an appearance stream. */
export function appearance(text: string, width = 100, height = 20): PdfStream {
  return stream(text, [
    ['Type', name('XObject')],
    ['Subtype', name('Form')],
    ['BBox', [0, 0, width, height]],
  ]);
}

/** A CmsSigner over a certificate issued by a test CA (its chain is embedded). */
export function issuedSigner(cert: IssuedCertificate): CmsSigner {
  return { certificate: cert.certificate, chain: cert.chain, sign: async (data: Buffer) => sign('sha256', data, cert.privateKey) };
}
