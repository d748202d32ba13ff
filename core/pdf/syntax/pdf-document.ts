/**
 * Lazy access to the objects of a PDF held in a Buffer: only what is asked for is parsed
 * (§7.5 file structure, §7.5.7 object streams). Nothing here loads the whole document, so
 * opening a 100 MB file costs the trailer, the xref chain and the few objects the signer reads.
 */
import { SelloError } from '../../errors/index.js';
import {
  BrokenXrefError,
  readCrossReference,
  reconstructCrossReference,
  type CrossReference,
} from './cross-reference.js';
import { PdfSyntaxError, parseIndirectObject, parseObject, readInteger } from './object-parser.js';
import { PdfDict, PdfRef, PdfStream, type PdfObject } from './pdf-objects.js';
import { decodeStream } from './stream-filters.js';

interface ObjectStreamCache {
  data: Buffer;
  first: number;
  offsets: number[];
}

export class PdfDocument {
  private readonly cache = new Map<number, PdfObject>();
  private readonly objStreams = new Map<number, ObjectStreamCache>();

  constructor(
    readonly bytes: Buffer,
    readonly xref: CrossReference,
  ) {}

  get trailer(): PdfDict {
    return this.xref.trailer;
  }

  /** The object `num` (§7.3.10: a missing or free object is null). */
  getObject(num: number): PdfObject {
    if (this.cache.has(num)) return this.cache.get(num)!;
    const value = this.load(num);
    this.cache.set(num, value);
    return value;
  }

  /** Follows references until a direct object. */
  resolve(obj: PdfObject | undefined): PdfObject | undefined {
    let v = obj;
    for (let i = 0; v instanceof PdfRef && i < 32; i++) v = this.getObject(v.num);
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
    const dict = root instanceof PdfRef ? this.dict(root) : undefined;
    if (!(root instanceof PdfRef) || !dict) throw new BrokenXrefError('no se puede leer el catálogo');
    return { ref: root, dict };
  }

  private load(num: number): PdfObject {
    const e = this.xref.entries.get(num);
    if (!e || e.kind === 'free') return null;
    if (e.kind === 'offset') {
      let obj;
      try {
        obj = parseIndirectObject(this.bytes, e.offset, (ref) => {
          const v = ref.num === num ? undefined : this.resolve(ref);
          return typeof v === 'number' ? v : undefined;
        });
      } catch (err) {
        if (err instanceof PdfSyntaxError) throw new BrokenXrefError(`objeto ${num}: ${err.message}`);
        throw err;
      }
      if (obj.num !== num) throw new BrokenXrefError(`en el offset de ${num} hay otro objeto (${obj.num})`);
      return obj.value;
    }
    const os = this.objectStream(e.stream);
    const off = os.offsets[e.index];
    if (off === undefined) throw new BrokenXrefError(`objeto ${num} no está en su object stream`);
    try {
      return parseObject(os.data, os.first + off).value;
    } catch (err) {
      if (err instanceof PdfSyntaxError) throw new BrokenXrefError(`objeto ${num}: ${err.message}`);
      throw err;
    }
  }

  /** §7.5.7: /N pairs `num offset` followed, from /First on, by the objects. */
  private objectStream(num: number): ObjectStreamCache {
    const cached = this.objStreams.get(num);
    if (cached) return cached;
    const s = this.getObject(num);
    if (!(s instanceof PdfStream)) throw new BrokenXrefError(`object stream ${num} ilegible`);
    let data: Buffer;
    try {
      data = decodeStream(s);
    } catch (err) {
      if (err instanceof PdfSyntaxError) throw new BrokenXrefError(`object stream ${num}: ${err.message}`);
      throw err;
    }
    const n = this.number(s.dict.get('N')) ?? 0;
    const first = this.number(s.dict.get('First')) ?? 0;
    const offsets: number[] = [];
    let p = 0;
    for (let i = 0; i < n; i++) {
      const objNum = readInteger(data, p);
      const off = objNum && readInteger(data, objNum.end);
      if (!objNum || !off) break;
      offsets.push(off.value);
      p = off.end;
    }
    const entry = { data, first, offsets };
    this.objStreams.set(num, entry);
    return entry;
  }
}

/**
 * Runs `fn` on the document read through its own cross-reference chain; if the chain or an
 * object offset turns out to be broken, runs it again on a table rebuilt by scanning
 * (§7.5.4 readers' recovery). A file that fails both ways is `pdf_damaged`.
 */
export function withPdfDocument<T>(bytes: Buffer, fn: (doc: PdfDocument) => T): T {
  let xref: CrossReference;
  try {
    xref = readCrossReference(bytes);
    return fn(new PdfDocument(bytes, xref));
  } catch (err) {
    if (!(err instanceof BrokenXrefError) && !(err instanceof PdfSyntaxError)) throw err;
  }
  try {
    return fn(new PdfDocument(bytes, reconstructCrossReference(bytes)));
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
 * that a reader could only find by repairing it is not a signed output.
 *
 * TODO(limits): read the parts in place instead of joining them (objects never cross a part
 * boundary), so that reading back a 100 MB output does not double it in memory.
 */
export function withPdfParts<T>(parts: Buffer[], fn: (doc: PdfDocument) => T): T {
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return fn(new PdfDocument(bytes, readCrossReference(bytes)));
}
