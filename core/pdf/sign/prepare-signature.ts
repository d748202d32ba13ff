/**
 * Preparing a PAdES signature (ETSI EN 319 142-1 §5.3, PDF 32000-1:2008 §12.8): the incremental
 * update with a signature field + widget, the AcroForm entry and a signature dictionary whose
 * /Contents is a zero-filled placeholder. /ByteRange is then filled in place (fixed width) and
 * the SHA-256 of the two ranges computed by streaming over views of the buffers, never a copy.
 * The result is a value that can wait (for a PIN, a token) before `embed` adds the CMS.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SelloError } from '../../errors/index.js';
import { encryptedError, encryptionOf, readEncrypted } from '../syntax/encryption.js';
import { docMdpPermission, topLevelFieldNames } from '../syntax/form-fields.js';
import { buildIncrementalUpdate, type UpdateObject } from './incremental-writer.js';
import { formatObject } from '../syntax/object-writer.js';
import { findPage } from '../syntax/page-tree.js';
import { withPdfDocument, type PdfDocument } from '../syntax/pdf-document.js';
import { PdfDict, PdfRef, PdfString, highestReferenceIn, name, textString } from '../syntax/pdf-objects.js';
import { stampAppearance, stampDimensions, type StampSize } from '../stamp/stamp-appearance.js';
import { placeStamp } from '../stamp/stamp-geometry.js';

export interface StampOptions {
  /** 1-based page number, or 'last'. */
  page: number | 'last';
  /** Points from the left edge of the crop box, as the page is displayed. */
  x: number;
  /** Points from the top edge of the crop box, as the page is displayed. */
  y: number;
  size: StampSize;
  signerName: string;
  qrText: string;
}

export interface PrepareOptions {
  stamp?: StampOptions;
  /** Goes into /M (the claimed signing time, EN 319 142-1 §5.2.1). */
  signingTime: Date;
  /** Signer's name for /Name (§12.8.1 Table 252); defaults to the stamp's signerName. */
  name?: string;
  reason?: string;
  location?: string;
  /** Bytes reserved for the DER CMS; /Contents holds twice as many hex digits. */
  contentsSize: number;
}

/**
 * A prepared signature as plain data, so that it can cross threads: the signing thread (or a
 * parse worker) prepares, the thread that holds the key (a token's session) builds the CMS,
 * and `embedCms` puts it in place.
 */
export interface PreparedUpdate {
  /** [0, a, b, c]: the two signed ranges around the /Contents hex string. */
  byteRange: [number, number, number, number];
  /** SHA-256 over both ranges: what the CMS's message-digest attribute must equal. */
  digest: Buffer;
  /** The bytes appended to the original, /ByteRange filled, /Contents still zeros. */
  update: Buffer;
  /** Offset of `<` of /Contents inside `update`. */
  contentsAt: number;
  /** Bytes reserved for the DER CMS (the hex string holds twice as many digits). */
  contentsSize: number;
}

export interface PreparedSignature extends PreparedUpdate {
  /** The original bytes followed by the update with `cms` embedded. Throws if `cms` does not fit. */
  embed(cms: Buffer): Buffer;
  /** The same as two chunks (original, update), to write a large file without joining them. */
  embedParts(cms: Buffer): [Buffer, Buffer];
}

const BYTE_RANGE_PLACEHOLDER = '[0 0000000000 0000000000 0000000000]';

/** §7.9.4: D:YYYYMMDDHHmmSS+00'00' (always UTC). */
export function toPdfDate(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `D:${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}+00'00'`;
}

/**
 * Builds the update for a new signature on `pdf` and returns it prepared for the CMS. `pdf` is
 * never modified.
 *
 * @example
 *   const prepared = preparePdfSignature(pdf, { signingTime: new Date(), contentsSize: 16384 });
 *   const cms = await buildPadesCms({ digest: prepared.digest, signer });
 *   const signed = prepared.embed(cms);
 */
export function preparePdfSignature(pdf: Buffer, opts: PrepareOptions): PreparedSignature {
  if (!Number.isInteger(opts.contentsSize) || opts.contentsSize <= 0) throw new Error('contentsSize debe ser un entero positivo');
  const dim = opts.stamp ? stampDimensions(opts.stamp.size) : undefined;
  const update = withPdfDocument(pdf, (doc) => buildSignatureUpdate(doc, pdf, opts, dim));
  return finishPreparation(pdf, update, opts.contentsSize);
}

interface SignatureUpdate {
  bytes: Buffer;
  /** Offset of `<` of /Contents inside `bytes`. */
  contentsAt: number;
  byteRangeAt: number;
}

function buildSignatureUpdate(doc: PdfDocument, pdf: Buffer, opts: PrepareOptions, dim: ReturnType<typeof stampDimensions> | undefined): SignatureUpdate {
  const enc = encryptionOf(doc);
  // DocMDP first: a certified P=1 file must be reported as such even when it is also encrypted.
  if (readEncrypted(enc, () => docMdpPermission(doc)) === 1) {
    throw new SelloError('pdf_changes_forbidden', {
      detail: 'El PDF fue certificado por su autor sin permitir cambios (DocMDP P=1): otra firma invalidaría la certificación. Pida al autor una versión sin certificar o firme una copia nueva.',
    });
  }
  if (enc !== 'none') throw encryptedError(enc);

  const page = findPage(doc, opts.stamp?.page ?? 1);
  const placement = opts.stamp && dim ? placeStamp(page.cropBox, page.rotate, opts.stamp.x, opts.stamp.y, dim.width, dim.height) : undefined;

  // New objects take numbers from `size` on. An object this update rewrites (the page or its
  // /Annots, the catalog, the AcroForm or its /Fields) keeps its references, and one to a
  // number the file never defines reads as null (§7.3.10): it must not come to name one of
  // ours (the signature dictionary as a page's content stream). After a reconstruction `size`
  // is already above every reference in the file; through a chain /Size is authoritative
  // (§7.5.5), so only these objects, which are written out anyway, are looked at.
  const catalog = doc.catalog();
  const acroForm = doc.dict(catalog.dict.get('AcroForm'));
  const rewritten = [page.dict, catalog.dict, acroForm, doc.array(page.dict.get('Annots')), doc.array(acroForm?.get('Fields'))];
  let next = Math.max(doc.xref.size, highestReferenceIn(rewritten) + 1);
  const alloc = (): PdfRef => new PdfRef(next++, 0);
  const sigRef = alloc();
  const fieldRef = alloc();
  const objects: UpdateObject[] = [];

  // The signature dictionary (§12.8.1 Table 252), written by hand to know where the placeholders are.
  const entries: string[] = ['/Type/Sig', '/Filter/Adobe.PPKLite', '/SubFilter/ETSI.CAdES.detached', `/M${formatObject(new PdfString(Buffer.from(toPdfDate(opts.signingTime), 'latin1')))}`];
  const signerName = opts.name ?? opts.stamp?.signerName;
  if (signerName) entries.push(`/Name${formatObject(textString(signerName))}`);
  if (opts.reason) entries.push(`/Reason${formatObject(textString(opts.reason))}`);
  if (opts.location) entries.push(`/Location${formatObject(textString(opts.location))}`);
  const head = `${sigRef.num} 0 obj\n<<${entries.join('')}/ByteRange `;
  const mid = `${BYTE_RANGE_PLACEHOLDER}/Contents <`;
  const sigText = `${head}${mid}${'0'.repeat(opts.contentsSize * 2)}>>>\nendobj\n`;
  objects.push({ num: sigRef.num, gen: 0, value: { raw: Buffer.from(sigText, 'latin1') } });

  // Field and widget merged in one dictionary (§12.5.6.19, §12.7.3.1). /F 132 = Print + Locked.
  const names = topLevelFieldNames(doc);
  let fieldName = '';
  if (names) for (let i = 1; !fieldName || names.has(fieldName); i++) fieldName = `Firma${i}`;
  else fieldName = `Firma-${randomBytes(4).toString('hex')}`;
  const widget = new PdfDict([
    ['Type', name('Annot')],
    ['Subtype', name('Widget')],
    ['FT', name('Sig')],
    ['T', textString(fieldName)],
    ['V', sigRef],
    ['F', 132],
    ['P', page.ref],
    ['Rect', placement ? placement.rect : [0, 0, 0, 0]],
  ]);
  if (placement && dim && opts.stamp) {
    const apRef = alloc();
    widget.set('AP', new PdfDict([['N', apRef]]));
    objects.push({ num: apRef.num, gen: 0, value: stampAppearance(dim, placement.matrix, opts.stamp.qrText, opts.stamp.signerName) });
  }
  objects.push({ num: fieldRef.num, gen: 0, value: widget });

  // The page's /Annots (§12.5.2): rewrite whichever object holds the array.
  const annots = page.dict.get('Annots');
  if (annots instanceof PdfRef && doc.array(annots)) {
    objects.push({ num: annots.num, gen: annots.gen, value: [...doc.array(annots)!, fieldRef] });
  } else {
    const arr = Array.isArray(annots) ? annots : [];
    const pageDict = page.dict.clone().set('Annots', [...arr, fieldRef]);
    // §7.7.3.3 Table 30: /Type /Page is required. Readers take a leaf without it for a page
    // (qpdf with a warning), and so does Sello; the page it writes says what it is.
    if (!pageDict.has('Type')) pageDict.set('Type', name('Page'));
    objects.push({ num: page.ref.num, gen: page.ref.gen, value: pageDict });
  }

  // The AcroForm (§12.7.2): /Fields gets the new field, /SigFlags 3 (SignaturesExist | AppendOnly).
  const acroObj = catalog.dict.get('AcroForm');
  const acro = acroForm;
  if (acro) {
    const newAcro = acro.clone().set('SigFlags', 3);
    // §12.7.2 /NeedAppearances asks viewers to rebuild field appearances: poppler then drops our
    // stamp, and Acrobat's rebuild marks a signed file as modified. Signing fixes appearances.
    newAcro.delete('NeedAppearances');
    const fields = acro.get('Fields');
    if (fields instanceof PdfRef && doc.array(fields)) {
      objects.push({ num: fields.num, gen: fields.gen, value: [...doc.array(fields)!, fieldRef] });
    } else {
      newAcro.set('Fields', [...(Array.isArray(fields) ? fields : []), fieldRef]);
    }
    if (acroObj instanceof PdfRef) objects.push({ num: acroObj.num, gen: acroObj.gen, value: newAcro });
    else objects.push({ num: catalog.ref.num, gen: catalog.ref.gen, value: catalog.dict.clone().set('AcroForm', newAcro) });
  } else {
    const acroRef = alloc();
    objects.push({ num: acroRef.num, gen: 0, value: new PdfDict([['Fields', [fieldRef]], ['SigFlags', 3]]) });
    objects.push({ num: catalog.ref.num, gen: catalog.ref.gen, value: catalog.dict.clone().set('AcroForm', acroRef) });
  }

  // One definition per object number in a section; the page may also be the catalog's target etc.
  const unique = dedupe(objects);
  const last = pdf[pdf.length - 1];
  const built = buildIncrementalUpdate(doc.xref, pdf.length, last !== 0x0a && last !== 0x0d, unique);
  const sigStart = built.objectStarts.get(sigRef.num)!;
  return { bytes: built.bytes, contentsAt: sigStart + head.length + mid.length - 1, byteRangeAt: sigStart + head.length };
}

function dedupe(objects: UpdateObject[]): UpdateObject[] {
  const byNum = new Map<number, UpdateObject>();
  for (const o of objects) byNum.set(o.num, o);
  return [...byNum.values()];
}

function finishPreparation(pdf: Buffer, built: SignatureUpdate, contentsSize: number): PreparedSignature {
  const { bytes: update, contentsAt, byteRangeAt } = built;
  const total = pdf.length + update.length;
  const a = pdf.length + contentsAt;
  const b = a + contentsSize * 2 + 2;
  const byteRange: [number, number, number, number] = [0, a, b, total - b];
  const filled = `[0 ${a} ${b} ${total - b}]`.padEnd(BYTE_RANGE_PLACEHOLDER.length, ' ');
  if (filled.length !== BYTE_RANGE_PLACEHOLDER.length) throw new Error('no se pudo completar /ByteRange');
  update.write(filled, byteRangeAt, 'latin1');
  const digest = createHash('sha256')
    .update(pdf)
    .update(update.subarray(0, contentsAt))
    .update(update.subarray(contentsAt + contentsSize * 2 + 2))
    .digest();
  const prepared: PreparedUpdate = { byteRange, digest, update, contentsAt, contentsSize };
  return {
    ...prepared,
    embedParts: (cms) => [pdf, embedCms(prepared, cms)],
    embed: (cms) => Buffer.concat([pdf, embedCms(prepared, cms)]),
  };
}

/**
 * The update of `prepared` with `cms` written into its /Contents (a copy: `prepared` stays
 * reusable). Throws if `cms` does not fit the space reserved.
 */
export function embedCms(prepared: PreparedUpdate, cms: Buffer): Buffer {
  if (cms.length > prepared.contentsSize) {
    throw new Error(`La firma CMS (${cms.length} bytes) no cabe en el espacio reservado (${prepared.contentsSize} bytes)`);
  }
  const out = Buffer.from(prepared.update);
  out.write(cms.toString('hex'), prepared.contentsAt + 1, 'latin1');
  return out;
}
