/**
 * Decodes a base64 PDF given in a JSON body. Returns the bytes, or a Spanish
 * sentence saying what is wrong (for the `errors` of a 422).
 */
export function pdfBytesProblem(base64: string): Buffer | string {
  const compact = base64.replace(/\s+/g, '');
  if (compact.length === 0) return 'está vacío';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    return 'no es base64 válido';
  }
  const bytes = Buffer.from(compact, 'base64');
  // A PDF header may follow a little leading junk (PDF 32000 §7.5.2 readers tolerate 1 KiB).
  if (!bytes.subarray(0, 1024).includes('%PDF-')) return 'no es un PDF (falta la cabecera %PDF-)';
  return bytes;
}
