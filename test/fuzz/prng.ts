/**
 * A small seeded PRNG (mulberry32, seeded through splitmix32) for the fuzz campaign. Each mutant
 * gets its own stream derived from (campaign seed, mutant index), so mutant #i is the same
 * whether the campaign runs all of them, stops early, or runs only #i (`FUZZ_ONLY`).
 */

function splitmix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = splitmix32(seed) || 1;
  }

  /** The stream of mutant `index` of the campaign seeded with `seed`. */
  static forMutant(seed: number, index: number): Rng {
    return new Rng(splitmix32(seed ^ splitmix32(index + 1)));
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n); 0 when n ≤ 0. */
  int(n: number): number {
    return n <= 0 ? 0 : Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}

/** A fresh campaign seed when none is given (printed, so that the run can be replayed). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
