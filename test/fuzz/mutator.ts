/**
 * What a mutator is. A mutator returns null when the file offers nothing for it to change (no
 * /ByteRange in an unsigned file, no object stream in a classic file): the campaign then picks
 * another, so that every mutant is really mutated.
 */
import type { Rng } from './prng.js';
import type { Seed } from './seeds.js';

export interface MutationContext {
  rng: Rng;
  seed: Seed;
  /** Every seed, for splicing. */
  seeds: readonly Seed[];
  /** See zlib-bomb.ts. */
  bomb: Buffer;
}

export interface Mutation {
  bytes: Buffer;
  /** What was done, precisely enough to read in a finding's report. */
  detail: string;
}

export interface Mutator {
  /** The class of mutation, a row of the campaign's table. */
  name: string;
  /** Relative frequency. */
  weight: number;
  mutate(input: Buffer, ctx: MutationContext): Mutation | null;
}
