/**
 * Checking the signatures in a PDF (PDF 32000-1:2008 §12.8, ISO 32000-2 §12.8, ETSI EN 319 142-1
 * for PAdES, RFC 5652 CMS, RFC 3161 document timestamps), whoever made them. For each signature
 * field that holds a signature, pyHanko-style named facts:
 * - `intact`: the signature sits where it must (./byte-range.ts), the revision it signed reads
 *   through its own cross-reference chain, and the CMS digest and signature hold;
 * - `modification`: what the revisions after it changed (./diff-analysis.ts), within what a
 *   certification (DocMDP) allows;
 * - `trusted`: the signer's chain ends at a trust anchor (./trust.ts);
 * - `valid`: intact, and nothing after it that it does not allow.
 *
 * Reports are plain data (strings, numbers, Dates): they cross a worker thread as they are.
 */
import { createHash } from 'node:crypto';
import { SelloError } from '../../errors/index.js';
import { tooComplex } from '../syntax/limits.js';
import { DerError } from '../cms/der-reader.js';
import { BrokenXrefError } from '../syntax/cross-reference.js';
import { docMdpPermission, signatureFields, type SignatureField } from '../syntax/form-fields.js';
import { PdfSyntaxError } from '../syntax/object-parser.js';
import { withPdfDocument, type PdfDocument } from '../syntax/pdf-document.js';
import { PdfRef, PdfString, decodeTextString, type PdfDict, type PdfObject } from '../syntax/pdf-objects.js';
import { checkSignatureLayout } from './byte-range.js';
import { checkSignedData, type CmsCheck } from './cms-check.js';
import { analyseLaterRevisions } from './diff-analysis.js';
import { Level } from './diff-review.js';
import { MAX_REVISION_REVIEWS, openRevision, revisionEndsAfter } from './revisions.js';
import { judgeChain, type TrustAnchor, type TrustReport } from './trust.js';

export type { TrustAnchor, TrustReport } from './trust.js';

export interface VerifyOptions {
  /** Where signers' chains may end; without any, every signer is "no de confianza". */
  trustAnchors?: readonly TrustAnchor[];
  /** The time certificates are judged at when no trusted timestamp gives one (default: now). */
  now?: Date;
}

/** What the revisions after a signature changed, from least to most (pyHanko's ModificationLevel). */
export type Modification = 'none' | 'signatures' | 'form_fill' | 'annotations' | 'other';

export interface SignatureReport {
  /** The signature field's fully qualified name. */
  fieldName: string;
  /** Common name (CN) of the signer certificate's subject, when the CMS carries it. */
  signerName: string | null;
  /** The signature dictionary's /M, the time the signer claims (not a timestamp). */
  signingTime: Date | null;
  /** /SubFilter: ETSI.CAdES.detached, adbe.pkcs7.detached, ETSI.RFC3161… */
  subFilter: string | null;
  /**
   * The signature is where it must be and the signed bytes are unchanged: /ByteRange is two
   * ranges around this dictionary's own /Contents, ending where a revision ends; the digest over
   * them equals the CMS message digest (or the timestamp's imprint) and the CMS signature
   * verifies with the certificate's key.
   */
  intact: boolean;
  /** /ByteRange reaches the end of the file: nothing was added after signing. */
  coversWholeFile: boolean;
  byteRange: number[];
  /** Why `intact` is false, in Spanish. */
  problem?: string;
  /** The most that any later revision changed (`none` when the signature covers the file). */
  modification: Modification;
  /** Why the later changes are not allowed, in Spanish; absent when they are. */
  modificationProblem?: string;
  /** DocMDP /P of the document's certification (§12.8.2.2.2), null when not certified. */
  docMdp: 1 | 2 | 3 | null;
  /** The signer's certificate chains to a trust anchor (see `trust`). */
  trusted: boolean;
  trust: TrustReport;
  /** Intact, and the later changes are ones the signature allows. Trust is judged apart. */
  valid: boolean;
}

/**
 * Reports every signature field that holds a signature.
 *
 * @example
 *   const reports = verifyPdfSignatures(signed, { trustAnchors: await listTrustAnchors({ dataDir }) });
 *   reports.every((s) => s.valid && s.trusted) // what `sello verify` exits 0 for
 */
export function verifyPdfSignatures(pdf: Buffer, options: VerifyOptions = {}): SignatureReport[] {
  return withPdfDocument(pdf, (doc) => {
    const signed = signatureFields(doc).filter((f) => f.value);
    if (signed.length === 0) return [];
    const revisions = new RevisionViews(pdf, doc);
    const hasher = new RangeHasher(pdf);
    const docMdp = certification(doc);
    return signed.map((f) => reportFor(pdf, doc, revisions, hasher, f, docMdp, options));
  });
}

function reportFor(pdf: Buffer, doc: PdfDocument, revisions: RevisionViews, hasher: RangeHasher, field: SignatureField, docMdp: SignatureReport['docMdp'], options: VerifyOptions): SignatureReport {
  const sig = field.value!;
  const rawRange = sig.get('ByteRange');
  const byteRange = Array.isArray(rawRange) ? rawRange.map((v) => (typeof v === 'number' ? v : -1)) : [];
  const now = options.now ?? new Date();
  const report: SignatureReport = {
    fieldName: field.name,
    signerName: null,
    signingTime: claimedTime(doc, sig),
    subFilter: sig.name('SubFilter') ?? null,
    intact: false,
    coversWholeFile: byteRange.length === 4 && byteRange[0] === 0 && byteRange[2]! + byteRange[3]! === pdf.length,
    byteRange,
    modification: 'other',
    modificationProblem: 'no se puede saber qué revisión del documento cubre la firma',
    docMdp,
    trusted: false,
    trust: { anchor: null, anchorName: null, problem: 'la firma no es íntegra: no se juzga su certificado', checkedAt: now, timeSource: 'now' },
    valid: false,
  };
  let cms: CmsCheck | undefined;
  let base: PdfDocument | null;
  try {
    const contents = sig.get('Contents');
    const ranges = plausibleRanges(byteRange, pdf.length);
    if (contents instanceof PdfString && ranges) {
      cms = checkSignedData(contents.bytes, { digest: (alg) => hasher.digest(alg, ranges), chunks: () => ranges.map(([a, b]) => pdf.subarray(a, b)) });
      report.signerName = cms.signerName;
      if (!cms.problem) Object.assign(report, trustFor(cms, options.trustAnchors ?? [], now, report.signingTime));
    }
    const layout = checkSignatureLayout(doc, field.field.get('V'), sig);
    if (!layout.ok) return { ...report, problem: layout.problem };
    if (!(contents instanceof PdfString)) return { ...report, problem: 'falta /Contents' };
    if (!cms) return { ...report, problem: '/ByteRange inválido' };
    if (cms.problem) return { ...report, problem: cms.problem };
    base = revisions.at(layout.signedEnd);
    if (!base) return { ...report, problem: 'la revisión firmada no se puede leer por su propia tabla de referencias' };
    if (!sameDefinition(base, doc, field.field.get('V'))) return { ...report, problem: 'el diccionario de firma no es el que define la revisión firmada' };
    report.intact = true;
    delete report.problem;
  } catch (err) {
    if (!(err instanceof DerError || err instanceof BrokenXrefError || err instanceof PdfSyntaxError || err instanceof SelloError)) throw err;
    return { ...report, problem: err instanceof DerError ? `CMS ilegible: ${err.message}` : `la firma no se puede leer (${err.message})` };
  }

  const later = revisions.after(base.source.length);
  const changes = later && revisions.spend(later.length) ? analyseLaterRevisions(base, later) : { level: Level.other, problem: 'el PDF tiene demasiadas revisiones posteriores para analizarlas' };
  const allowed = docMdp === 1 ? Level.lta : docMdp === 2 ? Level.formFill : Level.annotations;
  const modification = MODIFICATION[changes.level];
  delete report.modificationProblem;
  if (changes.problem) report.modificationProblem = changes.problem;
  else if (changes.level > allowed) report.modificationProblem = `la certificación del documento (DocMDP P=${docMdp}) no permite ${WHAT[modification]} después de firmar`;
  return { ...report, modification, valid: report.modificationProblem === undefined };
}

const MODIFICATION: Record<Level, Modification> = {
  [Level.none]: 'none',
  [Level.lta]: 'signatures',
  [Level.signatures]: 'signatures',
  [Level.formFill]: 'form_fill',
  [Level.annotations]: 'annotations',
  [Level.other]: 'other',
};

const WHAT: Record<Modification, string> = {
  none: 'cambios',
  signatures: 'firmas nuevas',
  form_fill: 'llenar el formulario',
  annotations: 'anotaciones',
  other: 'otros cambios',
};

/** The document's DocMDP /P; a /Perms a reader cannot follow certifies nothing it could enforce. */
function certification(doc: PdfDocument): SignatureReport['docMdp'] {
  try {
    return docMdpPermission(doc);
  } catch (err) {
    if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) return null;
    throw err;
  }
}

/** The signed revision defines the signature dictionary at the same place the document shows it. */
function sameDefinition(base: PdfDocument, doc: PdfDocument, v: PdfObject | undefined): boolean {
  if (!(v instanceof PdfRef)) return false;
  const a = base.xref.entries.get(v.num);
  const b = doc.xref.entries.get(v.num);
  return a?.kind === 'offset' && b?.kind === 'offset' && a.offset === b.offset;
}

/**
 * Trust judged at a trusted timestamp's time when the signature has one (RFC 3161 Appendix A),
 * else now. A claimed /M alone proves nothing about when the key was used.
 */
function trustFor(cms: CmsCheck, anchors: readonly TrustAnchor[], now: Date, claimed: Date | null): Pick<SignatureReport, 'trusted' | 'trust'> {
  if (!cms.signerCertificate) {
    return { trusted: false, trust: { anchor: null, anchorName: null, problem: 'la firma no trae el certificado del firmante', checkedAt: now, timeSource: 'now' } };
  }
  let at = now;
  let timeSource: TrustReport['timeSource'] = 'now';
  const ts = cms.timestamp;
  if (ts && judgeChain(ts.signerCertificate, ts.certificates, anchors, ts.genTime).anchor) {
    at = ts.genTime;
    timeSource = 'timestamp';
  }
  const chain = judgeChain(cms.signerCertificate, cms.certificates, anchors, at);
  if (chain.anchor || timeSource === 'timestamp' || !claimed) return { trusted: chain.anchor !== null, trust: { ...chain, checkedAt: at, timeSource } };
  // Say when the claimed time would have passed: the user then knows a timestamp was what was missing.
  const thenOk = judgeChain(cms.signerCertificate, cms.certificates, anchors, claimed).anchor !== null;
  const problem = thenOk ? `${chain.problem ?? ''}; la firma dice ser del ${claimed.toISOString().slice(0, 10)}, pero no tiene un sello de tiempo de confianza que lo pruebe` : chain.problem;
  return { trusted: false, trust: { ...chain, ...(problem ? { problem } : {}), checkedAt: at, timeSource } };
}

/** Views of the file's revisions, read once and shared by all its signatures. */
class RevisionViews {
  private readonly views = new Map<number, PdfDocument | null>();
  private reviews = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly current: PdfDocument,
  ) {}

  /** Counts `n` comparisons against MAX_REVISION_REVIEWS; false once past it. */
  spend(n: number): boolean {
    this.reviews += n;
    return this.reviews <= MAX_REVISION_REVIEWS;
  }

  /** The document as of the revision ending at `end`, or null when it can't be read so. */
  at(end: number): PdfDocument | null {
    if (this.views.has(end)) return this.views.get(end)!;
    let view: PdfDocument | null;
    if (end === this.bytes.length && !this.current.xref.reconstructed) view = this.current;
    else {
      try {
        view = openRevision(this.bytes, end);
      } catch (err) {
        if (!(err instanceof BrokenXrefError || err instanceof PdfSyntaxError || err instanceof SelloError)) throw err;
        view = null;
      }
    }
    this.views.set(end, view);
    return view;
  }

  /**
   * The revisions after the one ending at `signedEnd`, oldest first, ending with the document as
   * read now; undefined when there are too many. A `%%EOF` where no revision reads (inside a
   * later stream, say) is passed over: the next readable one includes its changes.
   */
  after(signedEnd: number): PdfDocument[] | undefined {
    const ends = revisionEndsAfter(this.bytes, signedEnd);
    if (!ends) return undefined;
    const out = ends.flatMap((e) => this.at(e) ?? []);
    const last = out[out.length - 1] ?? this.at(signedEnd);
    if (this.current.xref.reconstructed || !last || last.xref.lastStartxref !== this.current.xref.lastStartxref) out.push(this.current);
    return out;
  }
}

/** /M (§12.8.1 Table 252), the time the signer claims; null when absent or unreadable. */
function claimedTime(doc: PdfDocument, sig: PdfDict): Date | null {
  try {
    const m = doc.resolve(sig.get('M'));
    return m instanceof PdfString ? parsePdfDate(decodeTextString(m)) : null;
  } catch (err) {
    if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) return null;
    throw err;
  }
}

/**
 * The two ranges of a four-number /ByteRange within the file, to hash even when the layout is
 * wrong (so that the report can name the signer of a misplaced signature). Any other shape is
 * not hashed at all: a /ByteRange of a million ranges must not make the verifier hash the file
 * a million times.
 */
function plausibleRanges(br: number[], fileLength: number): Array<[number, number]> | undefined {
  if (br.length !== 4) return undefined;
  const out: Array<[number, number]> = [];
  for (let i = 0; i < br.length; i += 2) {
    const start = br[i]!;
    const len = br[i + 1]!;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(len) || start < 0 || len < 0 || start + len > fileLength) return undefined;
    out.push([start, start + len]);
  }
  return out;
}

/**
 * Digests of byte ranges, each computed once, and at most HASH_BUDGET times the file in all: a
 * file made of thousands of signatures over the whole file must not cost thousands of passes.
 */
class RangeHasher {
  private readonly done = new Map<string, Buffer>();
  private hashed = 0;

  constructor(private readonly pdf: Buffer) {}

  digest(alg: string, ranges: Array<[number, number]>): Buffer {
    const key = `${alg} ${ranges.join(' ')}`;
    const hit = this.done.get(key);
    if (hit) return hit;
    const size = ranges.reduce((n, [a, b]) => n + (b - a), 0);
    this.hashed += size;
    if (this.hashed > HASH_BUDGET * this.pdf.length + 16 * 1024 * 1024) throw tooComplex('tiene más firmas de las que se pueden verificar de una vez');
    const h = createHash(alg);
    for (const [a, b] of ranges) h.update(this.pdf.subarray(a, b));
    const out = h.digest();
    this.done.set(key, out);
    return out;
  }
}

/** Passes over the file that one verification may hash: far more signatures than any workflow applies. */
const HASH_BUDGET = 64;

/** §7.9.4 dates: D:YYYYMMDDHHmmSSOHH'mm', every part after the year optional. */
export function parsePdfDate(text: string): Date | null {
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?/.exec(text.trim());
  if (!m) return null;
  const n = (s: string | undefined, d: number): number => (s ? Number(s) : d);
  let t = Date.UTC(n(m[1], 0), n(m[2], 1) - 1, n(m[3], 1), n(m[4], 0), n(m[5], 0), n(m[6], 0));
  const sign = m[7] === '-' ? -1 : m[7] === '+' ? 1 : 0;
  t -= sign * (n(m[8], 0) * 60 + n(m[9], 0)) * 60_000;
  return new Date(t);
}
