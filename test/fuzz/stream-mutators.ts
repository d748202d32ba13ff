/**
 * Mutators that reach inside compressed structure or append a hostile update: a zlib bomb where
 * the reader must inflate (object and xref streams; content streams are never decoded), object
 * streams whose header lies (lists itself, disagrees with the xref, absurd numbers), xref
 * streams with absurd /W, /Index or /Columns, and /Prev chains that loop.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { appendTableUpdate, appendXrefStreamUpdate, type XrefStreamShape } from './hostile-update.js';
import type { Mutator } from './mutator.js';
import { EXTREME_NUMBERS } from './pdf-mutators.js';
import type { Rng } from './prng.js';
import { matchesOf, replaceKeepingOffsets, tailInfo, toBytes, toText } from './pdf-text.js';

interface StreamAt {
  /** Object number of the stream. */
  num: number;
  dict: string;
  dataStart: number;
  dataEnd: number;
  /** The direct /Length value's span, when it is direct. */
  length: { start: number; end: number } | null;
}

/** Flate streams whose dictionary says /Type /ObjStm or /Type /XRef, with their data. */
function compressedStreams(text: string, type: 'ObjStm' | 'XRef'): StreamAt[] {
  const out: StreamAt[] = [];
  for (const m of matchesOf(text, new RegExp(`/Type\\s*/${type}\\b`, 'g'), 2_000)) {
    const headText = text.slice(Math.max(0, m.index - 2_000), m.index);
    const header = [...headText.matchAll(/(\d+)\s+\d+\s+obj\b/g)].pop();
    const kw = /stream(\r\n|\n|\r)/g;
    kw.lastIndex = m.index;
    const s = kw.exec(text);
    if (!header || !s || s.index - m.index > 2_000) continue;
    const dictStart = Math.max(0, m.index - 2_000) + header.index + header[0].length;
    const dict = text.slice(dictStart, s.index);
    if (!/FlateDecode/.test(dict)) continue;
    const dataStart = s.index + s[0].length;
    const len = /\/Length\s+(\d+)(?!\s+\d+\s+R)/d.exec(dict);
    const end = text.indexOf('endstream', dataStart);
    const dataEnd = len ? dataStart + Number(len[1]) : end;
    if (dataEnd < dataStart || dataEnd > text.length) continue;
    const length = len ? { start: dictStart + len.indices![1]![0], end: dictStart + len.indices![1]![1] } : null;
    out.push({ num: Number(header[1]), dict, dataStart, dataEnd, length });
  }
  return out;
}

/**
 * `text` with the data of `stream` replaced by `data`: in the same room when it fits (the rest
 * padded with newlines, which inflaters ignore after the end of the zlib stream), so that every
 * offset holds; otherwise spliced in with /Length updated.
 */
function replaceStreamData(text: string, stream: StreamAt, data: Buffer): string | null {
  const room = stream.dataEnd - stream.dataStart;
  const latin = data.toString('latin1');
  if (data.length <= room) return text.slice(0, stream.dataStart) + latin.padEnd(room, '\n') + text.slice(stream.dataEnd);
  if (!stream.length) return null;
  const spliced = text.slice(0, stream.dataStart) + latin + text.slice(stream.dataEnd);
  return replaceKeepingOffsets(spliced, stream.length, String(data.length));
}

const bomb: Mutator = {
  name: 'zlib bomb',
  weight: 3,
  mutate(input, { rng, bomb }) {
    const text = toText(input);
    const tail = tailInfo(text);
    const inPlace = [...compressedStreams(text, 'ObjStm'), ...compressedStreams(text, 'XRef')];
    const variants = [...(tail ? (['object stream in an update', 'xref stream in an update'] as const) : []), ...(inPlace.length > 0 ? (['existing stream'] as const) : [])];
    if (variants.length === 0) return null;
    const variant = rng.pick(variants);
    if (variant === 'object stream in an update' && tail) {
      // The catalog moves into the bomb: any reader that opens the file has to inflate it.
      const num = tail.size;
      const body = Buffer.concat([toBytes(`<< /Type /ObjStm /N 1 /First 10 /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`), bomb, toBytes('\nendstream')]);
      const bytes = appendXrefStreamUpdate(input, tail, [{ num, body }], new Map([[tail.rootNum, [num, 0]]]));
      return { bytes, detail: `update: catalog ${tail.rootNum} compressed in object stream ${num}, a zlib bomb` };
    }
    if (variant === 'xref stream in an update' && tail) {
      return { bytes: appendXrefStreamUpdate(input, tail, [], new Map(), { data: bomb, extra: '/Filter /FlateDecode' }), detail: 'update: xref stream data is a zlib bomb' };
    }
    const target = rng.pick(inPlace);
    const out = replaceStreamData(text, target, bomb);
    return out === null ? null : { bytes: toBytes(out), detail: `data of stream ${target.num} (${/ObjStm/.test(target.dict) ? 'ObjStm' : 'XRef'}) replaced by a zlib bomb` };
  },
};

/** What to do to an object stream's decoded text. */
function mutateObjectStream(rng: Rng, content: string, own: number, first: number): { content: string; detail: string } {
  const header = content.slice(0, first);
  const pairs = header.trim().split(/\s+/).map(Number);
  const variant = rng.pick(['lists itself', 'header number extreme', 'header offset extreme', 'numbers swapped', 'inner number extreme', 'random bytes'] as const);
  // The header keeps its length where it can, so that /First and the objects stay in place.
  const setPair = (i: number, v: string): string => {
    const items = header.trim().split(/\s+/);
    items[i] = v;
    return items.join(' ').padEnd(first, ' ') + content.slice(first);
  };
  if (pairs.length >= 2 && variant === 'lists itself') return { content: setPair(2 * rng.int(pairs.length / 2), String(own)), detail: `header lists the stream itself (${own})` };
  if (pairs.length >= 2 && variant === 'header number extreme') {
    const v = rng.pick(EXTREME_NUMBERS);
    return { content: setPair(2 * rng.int(pairs.length / 2), v), detail: `header object number → ${v}` };
  }
  if (pairs.length >= 2 && variant === 'header offset extreme') {
    const v = rng.pick(EXTREME_NUMBERS);
    return { content: setPair(2 * rng.int(pairs.length / 2) + 1, v), detail: `header offset → ${v}` };
  }
  if (pairs.length >= 4 && variant === 'numbers swapped') {
    const items = header.trim().split(/\s+/);
    const i = 2 * rng.int(items.length / 2);
    const j = 2 * rng.int(items.length / 2);
    [items[i], items[j]] = [items[j]!, items[i]!];
    return { content: items.join(' ').padEnd(header.length, ' ') + content.slice(first), detail: `header numbers ${i / 2} and ${j / 2} swapped (disagrees with the xref)` };
  }
  const inner = matchesOf(content, /\/(?:Count|Size|Length|Rotate|Parent|Kids|First|N)\s*(\d+)/dg);
  if (variant === 'inner number extreme' && inner.length > 0) {
    const m = rng.pick(inner);
    const v = rng.pick(EXTREME_NUMBERS);
    const at = m.indices![1]!;
    return { content: content.slice(0, at[0]) + v + content.slice(at[1]), detail: `${m[0]} → ${v}` };
  }
  const at = rng.int(content.length);
  const run = rng.bytes(Math.min(16, content.length - at)).toString('latin1');
  return { content: content.slice(0, at) + run + content.slice(at + run.length), detail: `${run.length} random bytes at ${at} of the decoded stream` };
}

const compressedContents: Mutator = {
  name: 'object or xref stream contents',
  weight: 4,
  mutate(input, { rng }) {
    const text = toText(input);
    const type = rng.pick(['ObjStm', 'ObjStm', 'XRef'] as const);
    const streams = compressedStreams(text, type);
    if (streams.length === 0) return null;
    const target = rng.pick(streams);
    let decoded: Buffer;
    try {
      decoded = inflateSync(Buffer.from(text.slice(target.dataStart, target.dataEnd), 'latin1'), { maxOutputLength: 64 * 1024 * 1024 });
    } catch {
      return null;
    }
    let content = decoded.toString('latin1');
    let detail: string;
    if (type === 'ObjStm') {
      const first = Number(/\/First\s+(\d+)/.exec(target.dict)?.[1] ?? 0);
      ({ content, detail } = mutateObjectStream(rng, content, target.num, first));
    } else {
      // Xref rows: a field set to all ones (huge offsets, object stream numbers, indexes).
      const at = rng.int(content.length);
      const run = rng.chance(0.5) ? '\xff'.repeat(Math.min(4, content.length - at)) : rng.bytes(Math.min(8, content.length - at)).toString('latin1');
      content = content.slice(0, at) + run + content.slice(at + run.length);
      detail = `${run.length} bytes at ${at} of the decoded rows`;
    }
    const out = replaceStreamData(text, target, deflateSync(Buffer.from(content, 'latin1'), { level: 9 }));
    return out === null ? null : { bytes: toBytes(out), detail: `${type} ${target.num}: ${detail}` };
  },
};

const XREF_SHAPES: ReadonlyArray<[string, XrefStreamShape]> = [
  ['/W [0 0 0] /Index [0 100000000]', { w: '[0 0 0]', index: '[0 100000000]' }],
  ['/Index [0 2147483647]', { index: '[0 2147483647]' }],
  ['/Index [8388600 100]', { index: '[8388600 100]' }],
  ['/Index with an odd count', { index: '[0 1 5]' }],
  ['/W [1 2147483647 2]', { w: '[1 2147483647 2]' }],
  ['/W [8 8 8]', { w: '[8 8 8]' }],
  ['/W [1 4]', { w: '[1 4]' }],
  ['/W [-1 4 2]', { w: '[-1 4 2]' }],
  ['/Columns 2000000000', { extra: '/DecodeParms << /Predictor 12 /Columns 2000000000 >>' }],
  ['/Columns -3', { extra: '/DecodeParms << /Predictor 12 /Columns -3 >>' }],
  ['/Columns 0', { extra: '/DecodeParms << /Predictor 12 /Columns 0 >>' }],
  ['/Colors 1000000 /BitsPerComponent 32', { extra: '/DecodeParms << /Predictor 12 /Columns 100000 /Colors 1000000 /BitsPerComponent 32 >>' }],
];

const hostileXrefStream: Mutator = {
  name: 'xref stream /W /Index /Columns in an update',
  weight: 3,
  mutate(input, { rng }) {
    const tail = tailInfo(toText(input));
    if (!tail) return null;
    const [label, shape] = rng.pick(XREF_SHAPES);
    // Predictors apply after FlateDecode only: those variants are compressed.
    const rowsShape: XrefStreamShape = shape.extra ? { ...shape, extra: `/Filter /FlateDecode ${shape.extra}` } : shape;
    const bytes = appendXrefStreamUpdate(input, tail, [], new Map(), rowsShape);
    if (!shape.extra) return { bytes, detail: `update: xref stream with ${label}` };
    // Compress the rows the update wrote (they sit just before "\nendstream" of the last object).
    const text = toText(bytes);
    const streams = compressedStreams(text, 'XRef');
    const own = streams[streams.length - 1];
    if (!own) return null;
    const raw = Buffer.from(text.slice(own.dataStart, text.indexOf('\nendstream', own.dataStart)), 'latin1');
    const out = replaceStreamData(text, { ...own, dataEnd: own.dataStart + raw.length }, deflateSync(raw));
    return out === null ? null : { bytes: toBytes(out), detail: `update: xref stream with ${label}` };
  },
};

const prevChain: Mutator = {
  name: '/Prev loop or out of range',
  weight: 3,
  mutate(input, { rng }) {
    const tail = tailInfo(toText(input));
    if (!tail) return null;
    const variant = rng.pick(['table to itself', 'xref stream to itself', 'two sections in a loop', 'into an object', 'extreme'] as const);
    if (variant === 'table to itself') return { bytes: appendTableUpdate(input, tail, [], '', 'self'), detail: 'update: xref table whose /Prev is itself' };
    if (variant === 'xref stream to itself') return { bytes: appendXrefStreamUpdate(input, tail, [], new Map(), { prev: 'self' }), detail: 'update: xref stream whose /Prev is itself' };
    if (variant === 'into an object' || variant === 'extreme') {
      const prev = variant === 'extreme' ? Number(rng.pick(['2147483649', '9007199254740992', '999999999'])) : rng.int(input.length);
      return { bytes: appendTableUpdate(input, tail, [], '', prev), detail: `update: xref table with /Prev ${prev}` };
    }
    // A → original, then B → A, then A's /Prev rewritten to B: A and B point at each other.
    // Spaces after A's /Prev leave room for B's offset, so that writing it moves nothing.
    const a = appendTableUpdate(input, tail, [], ' '.repeat(12), 0);
    const aText = toText(a);
    const aTail = tailInfo(aText)!;
    const b = toText(appendTableUpdate(a, aTail, [], '', aTail.startxref));
    const bAt = tailInfo(b)!.startxref;
    const prevOfA = matchesOf(b, /\/Prev (0)\b/dg).pop();
    if (!prevOfA) return null;
    const looped = replaceKeepingOffsets(b, { start: prevOfA.indices![1]![0], end: prevOfA.indices![1]![1] }, String(bAt));
    return { bytes: toBytes(looped), detail: 'update: two xref sections whose /Prev point at each other' };
  },
};

export const streamMutators: Mutator[] = [bomb, compressedContents, hostileXrefStream, prevChain];
