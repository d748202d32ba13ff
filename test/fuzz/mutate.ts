/**
 * Mutant #i of a campaign: a seed and one mutator (sometimes a second one on top), all drawn
 * from the stream of (campaign seed, i), so that `FUZZ_SEED=s FUZZ_ONLY=i` rebuilds it alone.
 */
import { byteMutators } from './byte-mutators.js';
import type { MutationContext, Mutator } from './mutator.js';
import { pdfMutators } from './pdf-mutators.js';
import { Rng } from './prng.js';
import type { Seed } from './seeds.js';
import { streamMutators } from './stream-mutators.js';

export const MUTATORS: readonly Mutator[] = [...byteMutators, ...pdfMutators, ...streamMutators];

export interface Mutant {
  index: number;
  seed: Seed;
  /** The first mutator's name: the row of the table. */
  mutation: string;
  /** Every mutation applied, in order. */
  details: string[];
  bytes: Buffer;
}

function weighted(rng: Rng): Mutator {
  const total = MUTATORS.reduce((s, m) => s + m.weight, 0);
  let r = rng.next() * total;
  for (const m of MUTATORS) {
    r -= m.weight;
    if (r < 0) return m;
  }
  return MUTATORS[MUTATORS.length - 1]!;
}

/** One mutation that applies to `input`; blind bit flips when nothing else does. */
function mutateOnce(input: Buffer, ctx: MutationContext): { name: string; bytes: Buffer; detail: string } {
  for (let attempt = 0; attempt < 20 && input.length > 0; attempt++) {
    const m = weighted(ctx.rng);
    let r: ReturnType<Mutator['mutate']>;
    try {
      r = m.mutate(input, ctx);
    } catch (err) {
      // A bug of the harness, not of Sello: stop, saying where.
      throw new Error(`mutator "${m.name}" failed on ${ctx.seed.name}: ${String(err)}`, { cause: err });
    }
    if (r) return { name: m.name, bytes: r.bytes, detail: `${m.name}: ${r.detail}` };
  }
  const bytes = Buffer.concat([input, ctx.rng.bytes(16)]);
  return { name: 'random bytes', bytes, detail: 'random bytes: 16 appended (nothing else applied)' };
}

/**
 * A seed, the large ones less often: a 1.7 MB file costs Sello, pdfsig and qpdf ten times what
 * a small one does and exposes the same parser paths, so it weighs 1 / (1 + size / 256 KB) —
 * each of the corpus's 1–2 MB books still comes up about once in 300 mutants.
 */
function pickSeed(rng: Rng, seeds: readonly Seed[]): Seed {
  const weights = seeds.map((s) => 1 / (1 + s.bytes.length / (256 * 1024)));
  let r = rng.next() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < seeds.length; i++) {
    r -= weights[i]!;
    if (r < 0) return seeds[i]!;
  }
  return seeds[seeds.length - 1]!;
}

export function makeMutant(campaignSeed: number, index: number, seeds: readonly Seed[], bomb: Buffer): Mutant {
  const rng = Rng.forMutant(campaignSeed, index);
  const seed = pickSeed(rng, seeds);
  const ctx: MutationContext = { rng, seed, seeds, bomb };
  const first = mutateOnce(seed.bytes, ctx);
  const details = [first.detail];
  let bytes = first.bytes;
  // A second mutation now and then: a hidden /Encrypt behind a broken trailer, a bomb in a
  // truncated file… the combinations that single mutations never reach.
  if (rng.chance(0.2)) {
    const second = mutateOnce(bytes, ctx);
    details.push(second.detail);
    bytes = second.bytes;
  }
  return { index, seed, mutation: first.name, details, bytes };
}
