/**
 * Reading a signed output back before it is reported signed (issue 15 point 5: never report
 * success for an output that was not read back). The new file is opened through its own
 * cross-reference chain, as any reader would, and the new signature must be found there:
 * - a field reachable from the catalog's /AcroForm /Fields (§12.7.2), whose widget is in its
 *   page's /Annots (§12.5.2);
 * - its signature dictionary has exactly the /ByteRange that was hashed, and sits as
 *   ./byte-range.ts requires (the gap is exactly its /Contents, the dictionary is signed, the
 *   signed revision ends at the end of the file);
 * - /Contents starts with the CMS embedded, whose message-digest is the digest computed when
 *   preparing and whose signature verifies with the signer certificate's key (a CMS handed to
 *   `completeSignature` from elsewhere than `buildPadesCms` is checked here too);
 * - after a damaged file was rebuilt, the update carries a complete cross-reference section
 *   (no /Prev) that every reader will take as the whole truth: each compressed entry in it must
 *   name an object stream (§7.5.7) whose header lists that object at that index, as qpdf and
 *   poppler require (a compressed entry naming a number that is now a dictionary makes qpdf
 *   give up the object: "supposed object stream 1 is not a stream").
 *
 * Cheap by design: the digest was computed over these very bytes, so the file is not hashed
 * again; what is checked is structure, one dictionary and one RSA/ECDSA verification.
 */
import { SelloError } from '../../errors/index.js';
import type { PreparedUpdate } from '../sign/prepare-signature.js';
import { withPdfParts, type PdfDocument } from '../syntax/pdf-document.js';
import { PdfRef, PdfString, type PdfDict } from '../syntax/pdf-objects.js';
import { digestSignedByBuiltCms } from '../cms/cms.js';
import { checkSignedData } from './cms-check.js';
import { checkSignatureLayout, readByteRange } from './byte-range.js';

/**
 * Throws `pdf_output_unreadable` unless `original` + `update` reads back with the signature
 * of `prepared` (holding `cms`) in place.
 *
 * @example
 *   const update = embedCms(prepared, cms);
 *   readBackSignature(pdf, update, prepared, cms); // throws if a reader would not find it
 */
export function readBackSignature(original: Buffer, update: Buffer, prepared: PreparedUpdate, cms: Buffer): void {
  let problem: string | undefined;
  try {
    problem = withPdfParts([original, update], (doc) => findProblem(doc, prepared, cms));
  } catch (err) {
    throw unreadable(err instanceof Error ? err.message : String(err), err);
  }
  if (problem) throw unreadable(problem);
}

/** What is wrong with the new signature in `doc`, in Spanish; undefined when nothing is. */
function findProblem(doc: PdfDocument, prepared: PreparedUpdate, cms: Buffer): string | undefined {
  const acro = doc.dict(doc.catalog().dict.get('AcroForm'));
  const fields = acro ? doc.array(acro.get('Fields')) : undefined;
  if (!fields) return 'el formulario del PDF firmado no tiene lista de campos';
  // Sello appends its field last; look from the end.
  let field: { ref: PdfRef; dict: PdfDict; sig: PdfDict } | undefined;
  for (let i = fields.length - 1; i >= 0 && !field; i--) {
    const ref = fields[i];
    const dict = doc.dict(ref);
    const sig = dict ? doc.dict(dict.get('V')) : undefined;
    const br = sig ? readByteRange(sig) : undefined;
    if (ref instanceof PdfRef && dict && sig && br && br.every((x, k) => x === prepared.byteRange[k])) field = { ref, dict, sig };
  }
  if (!field) return 'la firma nueva no aparece entre los campos del formulario';
  const page = doc.dict(field.dict.get('P'));
  const annots = page ? doc.array(page.get('Annots')) : undefined;
  if (!annots?.some((a) => a instanceof PdfRef && a.num === field.ref.num)) return 'el widget de la firma nueva no está en las anotaciones de su página';
  const layout = checkSignatureLayout(doc, field.dict.get('V'), field.sig);
  if (!layout.ok) return layout.problem;
  if (layout.signedEnd !== doc.source.length) return 'la firma nueva no cubre el archivo hasta el final';
  const contents = field.sig.get('Contents');
  if (!(contents instanceof PdfString) || !contents.bytes.subarray(0, cms.length).equals(cms)) return 'el /Contents leído no es la firma CMS que se insertó';
  // A CMS made here by buildPadesCms was verified as it was made: only what it signs matters.
  if (digestSignedByBuiltCms(cms)?.equals(prepared.digest)) return completeSectionProblem(doc);
  // PreparedUpdate.digest is SHA-256 (prepare-signature.ts): any other algorithm cannot match it.
  const check = checkSignedData(cms, { digest: (alg) => (alg === 'sha256' ? prepared.digest : Buffer.alloc(0)) });
  if (check.problem) return `la firma CMS no corresponde a lo firmado: ${check.problem}`;
  return completeSectionProblem(doc);
}

/**
 * For a complete section (no /Prev: written after a reconstruction), the first compressed entry
 * other readers could not follow. Reads each object stream's header once; nothing on the
 * ordinary path, where the update's section lists only Sello's own, uncompressed, objects.
 */
function completeSectionProblem(doc: PdfDocument): string | undefined {
  if (doc.trailer.has('Prev')) return undefined;
  for (const [num, e] of doc.xref.entries) {
    if (e.kind !== 'compressed') continue;
    const problem = doc.compressedEntryProblem(num);
    if (problem) return `la tabla de referencias completa no se puede seguir: ${problem}`;
  }
  return undefined;
}

function unreadable(reason: string, cause?: unknown): SelloError {
  return new SelloError('pdf_output_unreadable', {
    detail: `La copia firmada no se pudo leer de vuelta con la firma en su lugar (${reason}); no se entrega. Vuelva a generar el PDF original desde su programa o imprímalo a PDF.`,
    ...(cause ? { cause } : {}),
  });
}
