/**
 * PDF-aware mutators that edit the file in place, one per class of issue 15: numbers the reader
 * must bound (object numbers, /Size, /W, /Index, /Columns, /Count, /Length, /Prev, startxref),
 * huge object numbers and repeated object headers for the reconstruction of a damaged xref,
 * /Length cycles, broken keywords, inconsistent /ByteRange and /Contents, a hidden /Encrypt,
 * deep nesting and huge strings. Edits keep later offsets where they can (see pdf-text.ts).
 */
import type { Rng } from './prng.js';
import type { Mutator } from './mutator.js';
import { insertAt, matchesOf, objectBoundaries, pickMatch, replaceKeepingOffsets, toBytes, toText, type Span } from './pdf-text.js';

/** Values that broke, or could break, a reader that trusts numbers (issue 15's list and kin). */
export const EXTREME_NUMBERS = [
  '0', '-1', '10.5', '1e12', '1000000000000', '2147483647', '2147483648', '2147483649', '4294967296',
  '9007199254740992', '8388607', '8388608', '999999999', '-2147483649', '99999999999999999999999',
] as const;

function span(m: RegExpExecArray, group: number): Span {
  const at = m.indices?.[group];
  if (!at) throw new Error('the regular expression needs the d flag and the group');
  return { start: at[0], end: at[1] };
}

function edit(input: Buffer, re: RegExp, group: number, rng: Rng, value: (old: string) => string): { text: string; old: string; value: string } | null {
  const text = toText(input);
  const m = pickMatch(rng, text, re);
  if (!m) return null;
  const s = span(m, group);
  const old = text.slice(s.start, s.end);
  const v = value(old);
  return { text: replaceKeepingOffsets(text, s, v), old, value: v };
}

/** A direct number after `key` (not the object number of a reference `N G R`). */
function extremeAfterKey(key: string): Mutator {
  return {
    name: `extreme number: ${key}`,
    weight: 1,
    mutate(input, { rng }) {
      const re = new RegExp(`${key.replace('/', '\\/')}\\s*([-+]?\\d*\\.?\\d+)(?!\\s+\\d+\\s+R)(?![\\d.])`, 'dg');
      const r = edit(input, re, 1, rng, () => rng.pick(EXTREME_NUMBERS));
      return r && { bytes: toBytes(r.text), detail: `${key} ${r.old} → ${r.value}` };
    },
  };
}

/** One element of an array after `key`, or the whole array. */
function extremeArray(key: string, wholes: readonly string[]): Mutator {
  return {
    name: `extreme number: ${key}`,
    weight: 1,
    mutate(input, { rng }) {
      const re = new RegExp(`${key.replace('/', '\\/')}\\s*(\\[[^\\]]{0,200}\\])`, 'dg');
      const r = edit(input, re, 1, rng, (old) => {
        if (rng.chance(0.5)) return rng.pick(wholes);
        const items = old.slice(1, -1).trim().split(/\s+/);
        items[rng.int(items.length)] = rng.pick(EXTREME_NUMBERS);
        return `[${items.join(' ')}]`;
      });
      return r && { bytes: toBytes(r.text), detail: `${key} ${r.old} → ${r.value}` };
    },
  };
}

const extremeObjectHeader: Mutator = {
  name: 'extreme number: N G obj',
  weight: 2,
  mutate(input, { rng }) {
    const group = rng.chance(0.75) ? 1 : 2;
    const r = edit(input, /(?<=[\r\n])(\d+)\s+(\d+)\s+obj\b/dg, group, rng, () => rng.pick(EXTREME_NUMBERS));
    return r && { bytes: toBytes(r.text), detail: `${group === 1 ? 'object' : 'generation'} number ${r.old} → ${r.value}` };
  },
};

const extremeStartxref: Mutator = {
  name: 'extreme number: startxref',
  weight: 1,
  mutate(input, { rng }) {
    const r = edit(input, /startxref\s+(\d+)/dg, 1, rng, () => rng.pick(EXTREME_NUMBERS));
    return r && { bytes: toBytes(r.text), detail: `startxref ${r.old} → ${r.value}` };
  },
};

/** A damaged startxref sends the reader to reconstruction (offsets kept). */
function breakStartxref(text: string): string {
  const m = matchesOf(text, /startxref\s+(\d+)/dg).pop();
  return m ? replaceKeepingOffsets(text, span(m, 1), '0') : text;
}

function insertionPoint(rng: Rng, text: string): number {
  const bounds = objectBoundaries(text);
  if (bounds.length > 0 && rng.chance(0.7)) return rng.pick(bounds);
  const sx = text.lastIndexOf('startxref');
  return sx >= 0 && rng.chance(0.5) ? sx : rng.int(text.length + 1);
}

const hugeObjectNumber: Mutator = {
  name: 'object number beyond 8,388,607',
  weight: 3,
  mutate(input, { rng }) {
    let text = toText(input);
    const num = rng.pick(['8388608', '2147483649', '999999999', '4294967297', '9007199254740993']);
    const body = rng.pick(['<< /Type /Page >>', '(x)', '<< /Length 0 >>\nstream\n\nendstream', '[1 0 R]']);
    const at = insertionPoint(rng, text);
    text = insertAt(text, at, `${num} 0 obj\n${body}\nendobj\n`);
    const damage = rng.chance(0.5);
    if (damage) text = breakStartxref(text);
    return { bytes: toBytes(text), detail: `"${num} 0 obj ${body}" inserted at ${at}${damage ? ', startxref → 0' : ''}` };
  },
};

const repeatedObjectHeaders: Mutator = {
  name: 'repeated "1 0 obj ("',
  weight: 2,
  mutate(input, { rng }) {
    let text = toText(input);
    const count = rng.pick([100, 3_000, 30_000]);
    const at = insertionPoint(rng, text);
    text = insertAt(text, at, '1 0 obj ('.repeat(count));
    const damage = rng.chance(0.5);
    if (damage) text = breakStartxref(text);
    return { bytes: toBytes(text), detail: `${count} × "1 0 obj (" at ${at}${damage ? ', startxref → 0' : ''}` };
  },
};

interface LengthEntry {
  value: Span;
  /** The object that holds the /Length (the stream), when found. */
  owner: { num: string; gen: string } | null;
}

function lengthEntries(text: string): LengthEntry[] {
  return matchesOf(text, /\/Length\s+(\d+(?:\s+\d+\s+R)?)/dg, 5_000).map((m) => {
    const value = span(m, 1);
    const before = text.slice(Math.max(0, m.index - 4096), m.index);
    const header = [...before.matchAll(/(\d+)\s+(\d+)\s+obj\b/g)].pop();
    return { value, owner: header ? { num: header[1]!, gen: header[2]! } : null };
  });
}

const lengthLoop: Mutator = {
  name: '/Length refers to a stream',
  weight: 3,
  mutate(input, { rng }) {
    const text = toText(input);
    const entries = lengthEntries(text).filter((e) => e.owner);
    if (entries.length === 0) return null;
    const a = rng.pick(entries);
    const b = rng.pick(entries);
    const variant = entries.length > 1 && a !== b ? rng.pick(['self', 'other', 'cycle'] as const) : 'self';
    if (variant === 'self') {
      const ref = `${a.owner!.num} ${a.owner!.gen} R`;
      return { bytes: toBytes(replaceKeepingOffsets(text, a.value, ref)), detail: `/Length of object ${a.owner!.num} → ${ref} (itself)` };
    }
    const refB = `${b.owner!.num} ${b.owner!.gen} R`;
    if (variant === 'other') {
      return { bytes: toBytes(replaceKeepingOffsets(text, a.value, refB)), detail: `/Length of object ${a.owner!.num} → ${refB} (another stream)` };
    }
    // Both edits, the later one first, so that the earlier span is still where it was.
    const refA = `${a.owner!.num} ${a.owner!.gen} R`;
    const [first, second] = a.value.start > b.value.start ? [[a, refB], [b, refA]] as const : [[b, refA], [a, refB]] as const;
    const out = replaceKeepingOffsets(replaceKeepingOffsets(text, first[0].value, first[1]), second[0].value, second[1]);
    return { bytes: toBytes(out), detail: `/Length cycle between objects ${a.owner!.num} and ${b.owner!.num}` };
  },
};

const KEYWORDS = ['endstream', 'endobj', 'trailer', 'startxref', 'xref', 'stream', '%%EOF', ' obj'] as const;

const brokenKeyword: Mutator = {
  name: 'keyword removed or corrupted',
  weight: 4,
  mutate(input, { rng }) {
    const text = toText(input);
    const keyword = rng.pick(KEYWORDS);
    const all = matchesOf(text, new RegExp(keyword, 'g'), 5_000);
    if (all.length === 0) return null;
    const m = rng.chance(0.5) ? all[all.length - 1]! : rng.pick(all);
    const s = { start: m.index, end: m.index + m[0].length };
    const action = rng.pick(['blanked', 'misspelt', 'deleted'] as const);
    let out: string;
    if (action === 'blanked') out = replaceKeepingOffsets(text, s, '');
    else if (action === 'misspelt') {
      const i = s.start + rng.int(keyword.length);
      out = text.slice(0, i) + String.fromCharCode(0x41 + rng.int(26)) + text.slice(i + 1);
    } else out = text.slice(0, s.start) + text.slice(s.end);
    return { bytes: toBytes(out), detail: `"${keyword.trim()}" at ${s.start} ${action}` };
  },
};

const byteRangeContents: Mutator = {
  name: '/ByteRange or /Contents inconsistent',
  weight: 4,
  mutate(input, { rng, seed }) {
    if (!seed.signed) return null;
    const text = toText(input);
    const m = pickMatch(rng, text, /\/ByteRange\s*(\[[^\]]{0,200}\])/dg);
    if (!m) return null;
    const s = span(m, 1);
    const old = text.slice(s.start, s.end);
    const br = old.slice(1, -1).trim().split(/\s+/).map(Number);
    const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = br;
    const variant = rng.pick(['one number', 'gap shifted', 'gap widened', 'three ranges', 'contents digit', 'contents shortened'] as const);
    let out: string;
    let detail: string;
    if (variant === 'contents digit' || variant === 'contents shortened') {
      const c = /\/Contents\s*<([0-9A-Fa-f]*)>/d.exec(text.slice(Math.max(0, m.index - 70_000), m.index + 70_000));
      if (!c) return null;
      const base = Math.max(0, m.index - 70_000);
      const hex = { start: base + c.indices![1]![0], end: base + c.indices![1]![1] };
      if (variant === 'contents digit') {
        // A digit among the first 2,000: inside the DER, not in the zero padding.
        const i = hex.start + rng.int(Math.min(2_000, hex.end - hex.start));
        const digit = '0123456789abcdef'[rng.int(16)]!;
        out = text.slice(0, i) + digit + text.slice(i + 1);
        detail = `/Contents hex digit at ${i} → ${digit}`;
      } else {
        const cut = rng.range(1, 64);
        out = text.slice(0, hex.end - cut) + '>' + ' '.repeat(cut - 1) + text.slice(hex.end + 1);
        detail = `/Contents shortened by ${cut} digits (gap no longer matches)`;
      }
      return { bytes: toBytes(out), detail };
    }
    let value: number[];
    if (variant === 'one number') {
      value = [b0, b1, b2, b3];
      const i = rng.int(4);
      value[i] = rng.pick([value[i]! + 1, value[i]! - 1, 0, input.length, input.length * 2, 2 ** 31, -1]);
    } else if (variant === 'gap shifted') {
      const k = rng.pick([-100, -1, 1, 100]);
      value = [b0, b1 + k, b2 + k, b3 - k];
    } else if (variant === 'gap widened') {
      value = [b0, Math.max(0, b1 - 1000), b2, b3];
    } else {
      value = [b0, b1, b2, Math.max(0, b3 - 10), b2 + b3 - 5, 5];
    }
    out = replaceKeepingOffsets(text, s, `[${value.join(' ')}]`);
    detail = `/ByteRange ${old} → [${value.join(' ')}] (${variant})`;
    return { bytes: toBytes(out), detail };
  },
};

/** The dictionary of the newest trailer or xref stream: where a reader looks first. */
function lastTrailerDict(text: string): number | null {
  const trailer = text.lastIndexOf('trailer');
  const xrefStm = matchesOf(text, /\/Type\s*\/XRef\b/g).pop()?.index ?? -1;
  const at = Math.max(trailer >= 0 ? text.indexOf('<<', trailer) : -1, xrefStm >= 0 ? text.lastIndexOf('<<', xrefStm) : -1);
  return at >= 0 ? at + 2 : null;
}

const ENCRYPT_VALUES = [
  '999 0 R',
  '1 0 R',
  '<< /Filter /Standard /V 2 /R 3 /Length 128 /O <00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff> /U <00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff> /P -1028 >>',
  '<< /Filter /Bogus >>',
  'null',
] as const;

const insertedEncrypt: Mutator = {
  name: '/Encrypt inserted',
  weight: 3,
  mutate(input, { rng }) {
    let text = toText(input);
    const at = lastTrailerDict(text);
    if (at === null) return null;
    const value = rng.pick(ENCRYPT_VALUES);
    text = insertAt(text, at, ` /Encrypt ${value} `);
    // A damaged trailer must not hide the /Encrypt: reconstruction has to find it too.
    const damage = rng.chance(0.4);
    if (damage) text = breakStartxref(text);
    return { bytes: toBytes(text), detail: `/Encrypt ${value} in the last trailer${damage ? ', startxref → 0' : ''}` };
  },
};

const deepNesting: Mutator = {
  name: 'deep nesting',
  weight: 2,
  mutate(input, { rng }) {
    const text = toText(input);
    const depth = rng.pick([300, 5_000, 100_000]);
    const kind = rng.pick(['array', 'dictionary'] as const);
    const value = kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'<< /A '.repeat(depth)}${'>>'.repeat(depth)}`;
    const trailer = lastTrailerDict(text);
    const dicts = matchesOf(text, /(?<=\bobj\s*)<</g, 5_000);
    const at = trailer !== null && rng.chance(0.5) ? trailer : dicts.length > 0 ? rng.pick(dicts).index + 2 : null;
    if (at === null) return null;
    return { bytes: toBytes(insertAt(text, at, ` /Deep ${value} `)), detail: `${kind} nested ${depth} deep at ${at}` };
  },
};

const hugeString: Mutator = {
  name: 'huge string',
  weight: 0.5,
  mutate(input, { rng }) {
    const text = toText(input);
    const at = lastTrailerDict(text);
    if (at === null) return null;
    const size = rng.pick([1, 32]) * 1024 * 1024;
    const hex = rng.chance(0.5);
    const value = hex ? `<${'41'.repeat(size / 2)}>` : `(${'A'.repeat(size)})`;
    return { bytes: toBytes(insertAt(text, at, ` /Junk ${value} `)), detail: `${hex ? 'hex' : 'literal'} string of ${size} bytes in the last trailer` };
  },
};

export const pdfMutators: Mutator[] = [
  extremeObjectHeader,
  extremeStartxref,
  ...['/Size', '/Columns', '/Count', '/Length', '/Prev', '/N', '/First'].map(extremeAfterKey),
  extremeArray('/W', ['[0 0 0]', '[1 2]', '[1 2 2 2]', '[-1 2 2]', '[4 8 8]', '[1 2147483647 2]', '[0 10000000 0]']),
  extremeArray('/Index', ['[0 100000000]', '[0 2147483647]', '[0]', '[-5 3]', '[8388600 100]', '[0 1 0 1 0 1]']),
  hugeObjectNumber,
  repeatedObjectHeaders,
  lengthLoop,
  brokenKeyword,
  byteRangeContents,
  insertedEncrypt,
  deepNesting,
  hugeString,
];

