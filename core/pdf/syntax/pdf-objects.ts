/**
 * The PDF object model (PDF 32000-1:2008 §7.3): the eight basic types plus indirect
 * references. Names and strings keep their decoded bytes so that an object read from a
 * file can be written back byte-for-byte equivalent (§7.3.4, §7.3.5).
 */

/** A name object (§7.3.5), stored decoded (`#20` → space) as a latin1 string. */
export class PdfName {
  constructor(readonly name: string) {}
}

/** A string object (§7.3.4); `hex` remembers the form it was written in. */
export class PdfString {
  constructor(
    readonly bytes: Buffer,
    readonly hex = false,
  ) {}
}

/** An indirect reference `N G R` (§7.3.10). */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
  toString(): string {
    return `${this.num} ${this.gen} R`;
  }
}

/** A dictionary (§7.3.7). Keys are decoded names without the slash; insertion order is kept. */
export class PdfDict {
  readonly map: Map<string, PdfObject>;
  constructor(entries?: Iterable<[string, PdfObject]>) {
    this.map = new Map(entries);
  }
  get(key: string): PdfObject | undefined {
    return this.map.get(key);
  }
  set(key: string, value: PdfObject): this {
    this.map.set(key, value);
    return this;
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  /** A shallow copy, for writing a changed version of an object without touching the cache. */
  clone(): PdfDict {
    return new PdfDict(this.map);
  }
  /** The name value of `key`, or undefined. */
  name(key: string): string | undefined {
    const v = this.map.get(key);
    return v instanceof PdfName ? v.name : undefined;
  }
}

/** A stream (§7.3.8): its dictionary and its still-encoded data. */
export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    readonly data: Buffer,
  ) {}
}

export type PdfArray = PdfObject[];

export type PdfObject = null | boolean | number | PdfName | PdfString | PdfRef | PdfArray | PdfDict | PdfStream;

/** Shorthand for a name object. */
export function name(n: string): PdfName {
  return new PdfName(n);
}

/** A text string (§7.9.2.2): PDFDocEncoding-compatible ASCII as is, anything else UTF-16BE with BOM. */
export function textString(text: string): PdfString {
  if (/^[\x20-\x7e]*$/.test(text)) return new PdfString(Buffer.from(text, 'latin1'));
  const utf16 = Buffer.from(text, 'utf16le');
  utf16.swap16();
  return new PdfString(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16]), true);
}

/** Decodes a text string (§7.9.2.2): UTF-16BE with BOM, UTF-8 with BOM (PDF 2.0), else latin1 as an approximation of PDFDocEncoding. */
export function decodeTextString(s: PdfString): string {
  const b = s.bytes;
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) {
    const body = Buffer.from(b.subarray(2, 2 + ((b.length - 2) & ~1)));
    body.swap16();
    return body.toString('utf16le');
  }
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.subarray(3).toString('utf8');
  return b.toString('latin1');
}

/**
 * The highest object number any reference inside `values` names (0 when none). Direct objects
 * are trees (a parsed object can't contain itself), so the walk ends; it visits each value once.
 */
export function highestReferenceIn(values: ReadonlyArray<PdfObject | undefined>): number {
  let highest = 0;
  const stack: Array<PdfObject | undefined> = [...values];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof PdfRef) highest = Math.max(highest, v.num);
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v instanceof PdfDict) for (const x of v.map.values()) stack.push(x);
    else if (v instanceof PdfStream) stack.push(v.dict);
  }
  return highest;
}
