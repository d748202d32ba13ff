/**
 * `core/pdf`: PAdES signatures on PDF bytes (CONTRACT §12). The document is never loaded
 * whole: the trailer, the cross-reference chain and the few objects the signature touches are
 * read, and an incremental update (PDF 32000-1:2008 §7.5.6) is appended, so earlier signatures
 * stay valid and the cost follows the update, not the document.
 *
 * Stages, as in pyHanko: `preparePdfSignature` (placeholder reserved, digest known; a value
 * that can wait for a PIN) → `buildPadesCms` (./cms.ts) → `embed`. `signPdf` runs all three.
 */
import { buildPadesCms, estimateCmsSize, type CmsSigner } from './cms/cms.js';
import { encryptionOf, readEncrypted, type EncryptionKind } from './syntax/encryption.js';
import { docMdpPermission, signatureFields } from './syntax/form-fields.js';
import { listPages, pageCount } from './syntax/page-tree.js';
import { withPdfDocument } from './syntax/pdf-document.js';
import { embedCms, preparePdfSignature, type PreparedUpdate, type StampOptions } from './sign/prepare-signature.js';
import { readBackSignature } from './verify/read-back.js';
import { displayedSize } from './stamp/stamp-geometry.js';

export {
  embedCms,
  preparePdfSignature,
  toPdfDate,
  type PrepareOptions,
  type PreparedSignature,
  type PreparedUpdate,
  type StampOptions,
} from './sign/prepare-signature.js';
export {
  verifyPdfSignatures,
  type Modification,
  type SignatureReport,
  type TrustAnchor,
  type TrustReport,
  type VerifyOptions,
} from './verify/verify-signatures.js';
export { stampDimensions, type StampDimensions, type StampSize } from './stamp/stamp-appearance.js';
export { buildPadesCms, estimateCmsSize, type CmsSigner } from './cms/cms.js';
export type { EncryptionKind } from './syntax/encryption.js';

export interface PdfPageSummary {
  /** [llx lly urx ury] in default user space, clipped to the media box. */
  cropBox: [number, number, number, number];
  rotate: 0 | 90 | 180 | 270;
  /** Displayed width (after /Rotate). */
  width: number;
  /** Displayed height (after /Rotate). */
  height: number;
}

export interface PdfSummary {
  pageCount: number;
  pages: PdfPageSummary[];
  encryption: EncryptionKind;
  /** DocMDP /P of a certified document (1 = no changes allowed), null when not certified. */
  docMdpPermission: 1 | 2 | 3 | null;
  /** Signature fields that hold a signature. */
  signatureCount: number;
}

/**
 * What a caller needs to know before signing: pages (for stamp placement), encryption,
 * certification. Throws `pdf_invalid` / `pdf_damaged` for files that can't be read.
 *
 * @example
 *   const { pages } = inspectPdf(pdf);
 *   pages[0] // { cropBox: [0, 0, 612, 792], rotate: 0, width: 612, height: 792 }
 */
export function inspectPdf(pdf: Buffer): PdfSummary {
  return withPdfDocument(pdf, (doc) => {
    const encryption = encryptionOf(doc);
    // An encrypted object stream can't be read without the key: that is `pdf_encrypted`, not damage.
    return readEncrypted(encryption, () => ({
      pageCount: pageCount(doc),
      pages: listPages(doc).map((p) => ({ cropBox: p.cropBox, rotate: p.rotate, ...displayedSize(p.cropBox, p.rotate) })),
      encryption,
      docMdpPermission: docMdpPermission(doc),
      signatureCount: signatureFields(doc).filter((f) => f.value).length,
    }));
  });
}

export interface SignPdfOptions {
  stamp?: StampOptions;
  /** The claimed time for /M; now by default. */
  signingTime?: Date;
  /** RFC 3161 TSA for PAdES B-T; B-B without it. */
  timestampUrl?: string;
  /** Extra CAs (PEM file) trusted for an HTTPS timestamp authority. */
  caFile?: string;
  reason?: string;
  location?: string;
}

/**
 * Signs `pdf` with `signer` in one go: prepare → CMS → embed.
 *
 * @example
 *   const signed = await signPdf(pdf, signer, {
 *     stamp: { page: 'last', x: 36, y: 36, size: 's', signerName: 'María Peña', qrText: 'https://…/v/123' },
 *   });
 */
export async function signPdf(pdf: Buffer, signer: CmsSigner, opts: SignPdfOptions = {}): Promise<Buffer> {
  return Buffer.concat(await signPdfParts(pdf, signer, opts));
}

/**
 * Like `signPdf`, but returns the original bytes and the signed update as two pieces,
 * so that a large file can be written without a second full-size copy in memory.
 */
export async function signPdfParts(pdf: Buffer, signer: CmsSigner, opts: SignPdfOptions = {}): Promise<[Buffer, Buffer]> {
  const prepared = preparePdfSignature(pdf, {
    signingTime: opts.signingTime ?? new Date(),
    contentsSize: estimateCmsSize(signer, { timestamp: Boolean(opts.timestampUrl) }),
    ...(opts.stamp ? { stamp: opts.stamp } : {}),
    ...(opts.reason ? { reason: opts.reason } : {}),
    ...(opts.location ? { location: opts.location } : {}),
  });
  const cms = await buildPadesCms({
    digest: prepared.digest,
    signer,
    ...(opts.timestampUrl ? { timestampUrl: opts.timestampUrl } : {}),
    ...(opts.caFile ? { caFile: opts.caFile } : {}),
  });
  return [pdf, completeSignature(pdf, prepared, cms)];
}

/**
 * The last stage: `cms` written into the prepared update, and the signed file read back with
 * Sello's own reader. Returns the update; throws `pdf_output_unreadable` for an output in which
 * a reader would not find the new signature (nothing is then reported signed).
 *
 * @example
 *   const prepared = preparePdfSignature(pdf, { signingTime, contentsSize });
 *   const cms = await buildPadesCms({ digest: prepared.digest, signer: token });
 *   const update = completeSignature(pdf, prepared, cms); // the signed file is pdf + update
 */
export function completeSignature(pdf: Buffer, prepared: PreparedUpdate, cms: Buffer): Buffer {
  const update = embedCms(prepared, cms);
  readBackSignature(pdf, update, prepared, cms);
  return update;
}
