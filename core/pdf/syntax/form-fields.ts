/**
 * Reading the interactive form (PDF 32000-1:2008 §12.7) as far as signing needs: the existing
 * signature fields (§12.7.4.5) and the certification permission (§12.8.2.2 DocMDP).
 */
import { PDF_LIMITS } from './limits.js';
import type { PdfDocument } from './pdf-document.js';
import type { PdfDict} from './pdf-objects.js';
import { PdfRef, PdfString, decodeTextString, type PdfObject } from './pdf-objects.js';

export interface SignatureField {
  /** Fully qualified field name (§12.7.3.2), parts joined with '.'. */
  name: string;
  field: PdfDict;
  /** The signature dictionary (§12.8.1 Table 252), when the field is signed. */
  value: PdfDict | undefined;
}

/**
 * Every field with /FT /Sig (inheritable, §12.7.3.1) in the AcroForm's field tree.
 *
 * @example
 *   signatureFields(doc).filter((f) => f.value) // signed fields
 */
export function signatureFields(doc: PdfDocument): SignatureField[] {
  const acro = doc.dict(doc.catalog().dict.get('AcroForm'));
  const out: SignatureField[] = [];
  if (!acro) return out;
  const seen = new Set<number>();
  const walk = (items: PdfObject[] | undefined, prefix: string, ft: string | undefined, depth: number): void => {
    if (!items || depth > PDF_LIMITS.maxFieldDepth) return;
    for (const item of items) {
      if (item instanceof PdfRef) {
        if (seen.has(item.num)) continue;
        seen.add(item.num);
      }
      const d = doc.dict(item);
      if (!d) continue;
      const t = doc.resolve(d.get('T'));
      const part = t instanceof PdfString ? decodeTextString(t) : '';
      const full = part ? (prefix ? `${prefix}.${part}` : part) : prefix;
      const type = d.name('FT') ?? ft;
      const kids = doc.array(d.get('Kids'));
      if (type === 'Sig' && (d.has('V') || !kids)) out.push({ name: full, field: d, value: doc.dict(d.get('V')) });
      walk(kids, full, type, depth + 1);
    }
  };
  walk(doc.array(acro.get('Fields')), '', undefined, 0);
  return out;
}

/** Names of the top-level fields, to pick an unused one for the new signature. */
export function topLevelFieldNames(doc: PdfDocument, limit: number = PDF_LIMITS.maxFieldNames): Set<string> | undefined {
  const acro = doc.dict(doc.catalog().dict.get('AcroForm'));
  const fields = acro ? doc.array(acro.get('Fields')) : undefined;
  const names = new Set<string>();
  if (!fields) return names;
  if (fields.length > limit) return undefined;
  for (const f of fields) {
    const t = doc.resolve(doc.dict(f)?.get('T'));
    if (t instanceof PdfString) names.add(decodeTextString(t));
  }
  return names;
}

/**
 * The DocMDP permission of a certified document (§12.8.2.2.2 Table 254 /P: 1 no changes,
 * 2 form filling and signing, 3 also annotations), or null when the document isn't certified.
 */
export function docMdpPermission(doc: PdfDocument): 1 | 2 | 3 | null {
  const perms = doc.dict(doc.catalog().dict.get('Perms'));
  const sig = perms ? doc.dict(perms.get('DocMDP')) : undefined;
  if (!sig) return null;
  for (const r of doc.array(sig.get('Reference')) ?? []) {
    const ref = doc.dict(r);
    if (!ref || ref.name('TransformMethod') !== 'DocMDP') continue;
    const params = doc.dict(ref.get('TransformParams'));
    const p = params ? doc.number(params.get('P')) : undefined;
    return p === 1 || p === 3 ? p : 2; // §12.8.2.2.2: default 2
  }
  return 2;
}
