/**
 * PDFs that make a test PDF thread misbehave, standing in for a reader bug that a hostile file
 * finds: so that the PDF thread's defences (deadline, memory, culprit and innocents) are tested
 * whatever the state of the real reader's bounds. The thread that obeys them is
 * ./misbehaving-pdf-thread.ts, started with `misbehavingThreadEntry`.
 *
 * The marker is a PDF comment after `%%EOF` (readers ignore it): `%SELLO-PRUEBA hang prepare`
 * makes the prepare phase never end; `oom` allocates until the heap limit, `deep` overflows the
 * stack, `slow` takes 150 ms; the phase is `inspect`, `verify`, `prepare` or `complete`.
 */
import type { PdfOperations } from '../../core/signing/pdf-thread/index.js';

export type Misbehaviour = 'hang' | 'oom' | 'deep' | 'slow';
export type Phase = keyof PdfOperations;

/** The entry of a PDF thread that obeys the markers. */
export const misbehavingThreadEntry = new URL('./misbehaving-pdf-thread-entry.mjs', import.meta.url);

/** `pdf` with the marker that makes `phase` misbehave. */
export function misbehaving(pdf: Buffer, behaviour: Misbehaviour, phase: Phase): Buffer {
  return Buffer.concat([pdf, Buffer.from(`%SELLO-PRUEBA ${behaviour} ${phase}\n`, 'latin1')]);
}

function recurse(depth: number): number {
  return depth === 0 ? 0 : 1 + recurse(depth + 1);
}

/** Does what the marker of `pdf` asks for `phase`, if anything. */
export function misbehave(pdf: Buffer, phase: Phase): void {
  const tail = pdf.subarray(Math.max(0, pdf.length - 64)).toString('latin1');
  const found = /%SELLO-PRUEBA (\w+) (\w+)\n$/.exec(tail);
  if (!found || found[2] !== phase) return;
  switch (found[1] as Misbehaviour) {
    case 'hang':
      for (;;);
    case 'oom': {
      // Large arrays filled natively: the heap limit is reached in a few steps, not after thousands of small ones.
      const hoard: number[][] = [];
      for (let i = 0; ; i++) hoard.push(new Array<number>(4_000_000).fill(i));
    }
    case 'deep':
      recurse(1);
      return;
    case 'slow': {
      const until = Date.now() + 150;
      while (Date.now() < until);
      return;
    }
  }
}
