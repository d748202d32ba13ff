/**
 * Reading a signed output back before it is reported signed (issue: never report success for
 * an output that was not read back). The new file is opened through its own cross-reference
 * chain, as any reader would, and the new signature must be found there: a field of the
 * AcroForm whose signature dictionary has exactly the /ByteRange that was hashed and, in
 * /Contents, exactly the CMS that was embedded.
 */
import { SelloError } from '../../errors/index.js';
import type { PreparedUpdate } from '../sign/prepare-signature.js';
import { signatureFields } from '../syntax/form-fields.js';
import { withPdfParts } from '../syntax/pdf-document.js';
import { PdfString } from '../syntax/pdf-objects.js';

/**
 * Throws `pdf_output_unreadable` unless `original` + `update` reads back with the signature
 * of `prepared` (holding `cms`) in place.
 *
 * @example
 *   const update = embedCms(prepared, cms);
 *   readBackSignature(pdf, update, prepared, cms); // throws if a reader would not find it
 */
export function readBackSignature(original: Buffer, update: Buffer, prepared: PreparedUpdate, cms: Buffer): void {
  let found = false;
  try {
    found = withPdfParts([original, update], (doc) =>
      signatureFields(doc).some((f) => {
        const v = f.value;
        if (!v) return false;
        const br = doc.array(v.get('ByteRange'))?.map((x) => doc.number(x));
        const contents = doc.resolve(v.get('Contents'));
        return (
          br !== undefined &&
          br.length === 4 &&
          br.every((x, i) => x === prepared.byteRange[i]) &&
          contents instanceof PdfString &&
          contents.bytes.subarray(0, cms.length).equals(cms)
        );
      }),
    );
  } catch (err) {
    throw unreadable(err instanceof Error ? err.message : String(err), err);
  }
  if (!found) throw unreadable('la firma nueva no aparece al leer el archivo firmado');
}

function unreadable(reason: string, cause?: unknown): SelloError {
  return new SelloError('pdf_output_unreadable', {
    detail: `La copia firmada no se pudo leer de vuelta con la firma en su lugar (${reason}); no se entrega. Vuelva a generar el PDF original desde su programa o imprímalo a PDF.`,
    ...(cause ? { cause } : {}),
  });
}
