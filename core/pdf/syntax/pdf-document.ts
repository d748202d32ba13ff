/**
 * Lazy access to the objects of a PDF (§7.5 file structure, §7.5.7 object streams): only what
 * is asked for is parsed. Nothing here loads the whole document, so opening a 100 MB file costs
 * the trailer, the xref chain and the few objects the signer reads.
 *
 * One `ReadBudget` per document bounds the work and the inflated bytes of everything read
 * through it. Loads in progress are tracked: an object that needs itself to be read (an object
 * stream listed inside itself, a cycle of object streams) is a broken cross-reference, never a
 * stack overflow; an indirect /Length that can't be resolved (a cycle of /Length references
 * included) leaves the stream to end at its `endstream`, as a wrong /Length does.
 */
import { SelloError } from '../../errors/index.js';
import { BrokenXrefError, readCrossReference, type CrossReference } from './cross-reference.js';
import { PDF_LIMITS, ReadBudget, tooComplex } from './limits.js';
import { PdfSyntaxError, parseIndirectObject, parseObject } from './object-parser.js';
import { readObjectStreamHeader } from './object-stream.js';
import { PdfDict, PdfRef, PdfStream, type PdfObject } from './pdf-objects.js';
import { PdfSource } from './pdf-source.js';
import { reconstructCrossReference } from './reconstruct.js';
import { decodeStream } from './stream-filters.js';

interface ObjectStreamCache {
  data: Buffer;
  first: number;
  /** The object number and offset of each entry of the header, by index. */
  nums: number[];
  offsets: number[];
}

export class PdfDocument {
  /** The file, as one Buffer or as consecutive parts read in place. */
  readonly source: PdfSource;
  readonly budget: ReadBudget;
  private readonly cache = new Map<number, PdfObject>();
  private readonly objStreams = new Map<number, ObjectStreamCache>();
  private readonly loading = new Set<number>();

  constructor(
    bytes: Buffer | PdfSource,
    readonly xref: CrossReference,
    budget?: ReadBudget,
  ) {
    this.source = PdfSource.of(bytes);
    this.budget = budget ?? new ReadBudget(this.source.length);
  }

  /**
   * The whole file as one Buffer. For a file read as parts this joins them (once): the reader
   * never needs it, only a caller that must hand the file on in one piece.
   */
  get bytes(): Buffer {
    return this.source.toBuffer();
  }

  get trailer(): PdfDict {
    return this.xref.trailer;
  }

  /** The object `num` (§7.3.10: a missing or free object is null). */
  getObject(num: number): PdfObject {
    const cached = this.cache.get(num);
    if (cached !== undefined) return cached;
    if (this.loading.has(num)) throw new BrokenXrefError(`el objeto ${num} se necesita a sí mismo para leerse`);
    if (this.loading.size >= PDF_LIMITS.maxLoadDepth) throw tooComplex('cadena de objetos anidados demasiado larga');
    this.loading.add(num);
    let value: PdfObject;
    try {
      value = this.load(num);
    } finally {
      this.loading.delete(num);
    }
    this.cache.set(num, value);
    return value;
  }

  /** Follows references until a direct object. */
  resolve(obj: PdfObject | undefined): PdfObject | undefined {
    let v = obj;
    for (let i = 0; v instanceof PdfRef && i < PDF_LIMITS.maxReferenceChain; i++) v = this.getObject(v.num);
    return v;
  }

  /** `resolve` that keeps only dictionaries (a stream's dictionary counts). */
  dict(obj: PdfObject | undefined): PdfDict | undefined {
    const v = this.resolve(obj);
    if (v instanceof PdfDict) return v;
    if (v instanceof PdfStream) return v.dict;
    return undefined;
  }

  /** `resolve` that keeps only arrays. */
  array(obj: PdfObject | undefined): PdfObject[] | undefined {
    const v = this.resolve(obj);
    return Array.isArray(v) ? v : undefined;
  }

  /** `resolve` that keeps only numbers. */
  number(obj: PdfObject | undefined): number | undefined {
    const v = this.resolve(obj);
    return typeof v === 'number' ? v : undefined;
  }

  /** The document catalog (§7.7.2). */
  catalog(): { ref: PdfRef; dict: PdfDict } {
    const root = this.trailer.get('Root');
    // A dictionary, not a stream's (§7.7.2): the signer rewrites it as a dictionary.
    const dict = root instanceof PdfRef ? this.resolve(root) : undefined;
    if (!(root instanceof PdfRef) || !(dict instanceof PdfDict)) throw new BrokenXrefError('no se puede leer el catálogo');
    return { ref: root, dict };
  }

  private load(num: number): PdfObject {
    const e = this.xref.entries.get(num);
    if (!e || e.kind === 'free') return null;
    if (e.kind === 'offset') {
      const part = this.source.partAt(e.offset);
      if (!part) throw new BrokenXrefError(`el objeto ${num} está fuera del archivo`);
      let obj;
      try {
        obj = parseIndirectObject(part.buf, e.offset - part.base, {
          budget: this.budget,
          endstreams: part.endstreams,
          resolveLength: (ref) => this.lengthOf(ref),
        });
      } catch (err) {
        if (err instanceof PdfSyntaxError) throw new BrokenXrefError(`objeto ${num}: ${err.message}`);
        throw err;
      }
      // qpdf and poppler check both numbers of the header against the entry, and rebuild the
      // table when they differ: a chain that only Sello reads is not one to append to.
      if (obj.num !== num || obj.gen !== e.gen) throw new BrokenXrefError(`en el offset de ${num} hay otro objeto (${obj.num} ${obj.gen})`);
      return obj.value;
    }
    const os = this.objectStream(e.stream);
    // §7.5.7: the header says which object is at each index; an xref that says otherwise is
    // broken (reading the object there as `num` would sign a file no reader can read).
    if (os.nums[e.index] !== num) throw new BrokenXrefError(`el object stream ${e.stream} no tiene el objeto ${num} en la posición ${e.index}`);
    const at = os.first + os.offsets[e.index]!;
    if (at >= os.data.length) throw new BrokenXrefError(`objeto ${num} fuera de su object stream`);
    try {
      return parseObject(os.data, at, this.budget).value;
    } catch (err) {
      if (err instanceof PdfSyntaxError) throw new BrokenXrefError(`objeto ${num}: ${err.message}`);
      throw err;
    }
  }

  /** An indirect /Length, or undefined when it can't be read (the stream then ends at `endstream`). */
  private lengthOf(ref: PdfRef): number | undefined {
    try {
      const v = this.resolve(ref);
      return typeof v === 'number' ? v : undefined;
    } catch (err) {
      if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) return undefined;
      throw err;
    }
  }

  /** §7.5.7: /N pairs `num offset` before /First, then the objects; read only from the header's bytes. */
  private objectStream(num: number): ObjectStreamCache {
    const cached = this.objStreams.get(num);
    if (cached) return cached;
    const s = this.getObject(num);
    if (!(s instanceof PdfStream)) throw new BrokenXrefError(`object stream ${num} ilegible`);
    const lengthProblem = this.objectStreamLengthProblem(s.dict.get('Length'));
    if (lengthProblem) throw new BrokenXrefError(`object stream ${num}: ${lengthProblem}`);
    let data: Buffer;
    try {
      data = decodeStream(s, this.budget);
    } catch (err) {
      if (err instanceof PdfSyntaxError) throw new BrokenXrefError(`object stream ${num}: ${err.message}`);
      throw err;
    }
    const header = readObjectStreamHeader(data, this.number(s.dict.get('N')), this.number(s.dict.get('First')), this.budget);
    if (typeof header === 'string') throw new BrokenXrefError(`object stream ${num}: ${header}`);
    const entry = { data, first: header.first, nums: header.nums, offsets: header.offsets };
    this.objStreams.set(num, entry);
    return entry;
  }

  /**
   * Why other readers cannot follow an object stream's /Length to its data (reconstruct.ts's
   * `lengthUsable` is the same rule for a rebuilt table). Sello finds the data by `endstream` when
   * /Length misses it, and so do qpdf and poppler when it is merely wrong; but poppler gives up a
   * stream whose /Length is negative, and both give it up when resolving an indirect /Length
   * loops, through another stream (whose /Length may name this one) or through an object stream.
   * Objects that only Sello could reach are no ground to sign on: the chain is rebuilt.
   */
  private objectStreamLengthProblem(length: PdfObject | undefined): string | undefined {
    let value = length;
    if (length instanceof PdfRef) {
      const e = this.xref.entries.get(length.num);
      if (e?.kind === 'compressed') return '/Length está en otro object stream';
      value = e?.kind === 'offset' ? this.resolve(length) : null;
      if (value instanceof PdfStream) return '/Length es otro stream';
    }
    return typeof value === 'number' && value < 0 ? '/Length negativo' : undefined;
  }

  /**
   * Why the compressed entry for `num` can't be read as other readers read it (its object
   * stream is not an object stream, its header is unusable or lists another object at that
   * index); undefined when it can, or when `num` is not compressed. Reads only the header.
   */
  compressedEntryProblem(num: number): string | undefined {
    const e = this.xref.entries.get(num);
    if (e?.kind !== 'compressed') return undefined;
    try {
      const s = this.getObject(e.stream);
      if (!(s instanceof PdfStream) || s.dict.name('Type') !== 'ObjStm') return `el objeto ${num} está en el ${e.stream}, que no es un object stream`;
      const os = this.objectStream(e.stream);
      if (os.nums[e.index] !== num) return `el object stream ${e.stream} no tiene el objeto ${num} en la posición ${e.index}`;
    } catch (err) {
      if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) return err.message;
      throw err;
    }
    return undefined;
  }
}

/**
 * Runs `fn` on the document read through its own cross-reference chain; if the chain or an
 * object offset turns out to be broken, runs it again on a table rebuilt by scanning
 * (§7.5.4 readers' recovery). A file that fails both ways is `pdf_damaged`; one past the
 * reader's bounds is `pdf_too_complex` at once (rebuilding would meet the same bounds).
 */
/**
 * The intact chains read by `withPdfDocument`, by the buffer read: reading back the signed
 * output of that buffer (`withPdfParts([buffer, update])`) need not read them a second time.
 */
const chainsRead = new WeakMap<Buffer, CrossReference>();

export function withPdfDocument<T>(bytes: Buffer, fn: (doc: PdfDocument) => T): T {
  const source = new PdfSource(bytes);
  try {
    const xref = readCrossReference(source);
    chainsRead.set(bytes, xref);
    return fn(new PdfDocument(source, xref));
  } catch (err) {
    if (!(err instanceof BrokenXrefError) && !(err instanceof PdfSyntaxError)) throw err;
  }
  try {
    return fn(new PdfDocument(source, reconstructCrossReference(bytes)));
  } catch (err) {
    if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) {
      throw new SelloError('pdf_damaged', {
        detail: `El PDF está dañado y no se pudo reparar (${err.message}). Vuelva a generarlo o exportarlo desde el programa original.`,
        cause: err,
      });
    }
    throw err;
  }
}

/**
 * Runs `fn` on a file given as consecutive parts (an original and the update appended to it),
 * read through its own cross-reference chain only: no reconstruction, since a signed output
 * that a reader could only find by repairing it is not a signed output. The parts are read in
 * place (pdf-source.ts), never joined.
 */
export function withPdfParts<T>(parts: Buffer[], fn: (doc: PdfDocument) => T): T {
  const source = new PdfSource(parts);
  const first = parts[0];
  const known = first && chainsRead.get(first);
  return fn(new PdfDocument(source, readCrossReference(source, undefined, known && first ? { buf: first, xref: known } : undefined)));
}
