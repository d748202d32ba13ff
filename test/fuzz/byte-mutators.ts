/**
 * Blind mutators: they know nothing of PDF. Offsets lean towards the head and the tail of the
 * file, where the header, the cross-reference section and the trailer are: a flip in the middle
 * of a 1 MB file usually lands in page content, which the signer never decodes.
 */
import type { Rng } from './prng.js';
import type { Mutator } from './mutator.js';

function offset(rng: Rng, length: number): number {
  const r = rng.next();
  if (r < 0.4) return Math.max(0, length - 1 - rng.int(Math.min(length, 4096)));
  if (r < 0.55) return rng.int(Math.min(length, 1024));
  return rng.int(length);
}

const bitFlips: Mutator = {
  name: 'bit flips',
  weight: 5,
  mutate(input, { rng }) {
    const out = Buffer.from(input);
    const at: number[] = [];
    for (let k = rng.range(1, 8); k > 0; k--) {
      const i = offset(rng, out.length);
      out[i] = out[i]! ^ (1 << rng.int(8));
      at.push(i);
    }
    return { bytes: out, detail: `bits flipped at ${at.join(', ')}` };
  },
};

const randomBytes: Mutator = {
  name: 'random bytes',
  weight: 4,
  mutate(input, { rng }) {
    const out = Buffer.from(input);
    const at = offset(rng, out.length);
    const run = rng.bytes(Math.min(rng.range(1, 32), out.length - at));
    run.copy(out, at);
    return { bytes: out, detail: `${run.length} random bytes at ${at}` };
  },
};

const truncate: Mutator = {
  name: 'truncation',
  weight: 4,
  mutate(input, { rng }) {
    const at = offset(rng, input.length);
    return { bytes: Buffer.from(input.subarray(0, at)), detail: `cut at ${at} of ${input.length}` };
  },
};

const duplicateChunk: Mutator = {
  name: 'chunk duplicated',
  weight: 3,
  mutate(input, { rng }) {
    const from = offset(rng, input.length);
    const len = Math.min(rng.range(1, 4096), input.length - from);
    const to = offset(rng, input.length);
    const bytes = Buffer.concat([input.subarray(0, to), input.subarray(from, from + len), input.subarray(to)]);
    return { bytes, detail: `${len} bytes from ${from} copied to ${to}` };
  },
};

const removeChunk: Mutator = {
  name: 'chunk removed',
  weight: 3,
  mutate(input, { rng }) {
    const from = offset(rng, input.length);
    const len = Math.min(rng.range(1, 4096), input.length - from);
    return { bytes: Buffer.concat([input.subarray(0, from), input.subarray(from + len)]), detail: `${len} bytes removed at ${from}` };
  },
};

const splice: Mutator = {
  name: 'splice of two files',
  weight: 3,
  mutate(input, { rng, seeds, seed }) {
    const other = rng.pick(seeds);
    const a = rng.int(input.length);
    const b = rng.int(other.bytes.length);
    const bytes = Buffer.concat([input.subarray(0, a), other.bytes.subarray(b)]);
    return { bytes, detail: `${seed.name}[0, ${a}) + ${other.name}[${b}, end)` };
  },
};

export const byteMutators: Mutator[] = [bitFlips, randomBytes, truncate, duplicateChunk, removeChunk, splice];
