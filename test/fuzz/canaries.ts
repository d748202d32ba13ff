/**
 * Misbehaviour on demand, to prove that the harness sees what it claims to see (harness.test.ts):
 * a child started with SELLO_FUZZ_CANARIES=1 that receives `%SELLO-FUZZ-CANARY:<kind>` crashes,
 * hangs, bloats or throws instead of reading the file. Never active in a campaign.
 */
export const CANARY_KINDS = ['crash', 'hang', 'memory', 'heap', 'raw'] as const;
export type CanaryKind = (typeof CANARY_KINDS)[number];

const PREFIX = '%SELLO-FUZZ-CANARY:';

export function canaryPdf(kind: CanaryKind): Buffer {
  return Buffer.from(`${PREFIX}${kind}\n`, 'latin1');
}

export function misbehaveIfCanary(pdf: Buffer): void {
  if (process.env.SELLO_FUZZ_CANARIES !== '1' || !pdf.subarray(0, PREFIX.length).equals(Buffer.from(PREFIX))) return;
  const kind = pdf.toString('latin1', PREFIX.length).trim() as CanaryKind;
  if (kind === 'crash') process.abort();
  if (kind === 'hang') for (;;);
  if (kind === 'memory') {
    // Outside V8's heap, as inflated streams are: only the RSS watch can see it.
    const held: Buffer[] = [];
    for (;;) held.push(Buffer.alloc(64 * 1024 * 1024, 1));
  }
  if (kind === 'heap') {
    const held: number[][] = [];
    for (;;) held.push(new Array(10_000_000).fill(0.5));
  }
  if (kind === 'raw') throw new TypeError("Cannot read properties of undefined (reading 'canary')");
}
