/**
 * One fuzz child process: `node bin/run-ts.mjs test/fuzz/fuzz-child.ts`, forked by child-pool.ts
 * with an IPC channel. It runs the mutants it is sent, one at a time, through what an office's
 * agent does with an untrusted file — inspectPdf, signPdf (a visible stamp on page 1 when it
 * fits), verifyPdfSignatures on the input and on the signed output — and reports each stage's
 * outcome and its own peak memory. A crash, a hang or runaway memory is the parent's to see:
 * this process just dies or stops answering.
 */
import { createPrivateKey, sign as cryptoSign, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isSelloError } from '../../core/errors/index.js';
import { inspectPdf, signPdf, stampDimensions, verifyPdfSignatures, type CmsSigner, type StampOptions } from '../../core/pdf/index.js';
import { withPdfDocument } from '../../core/pdf/syntax/pdf-document.js';
import { misbehaveIfCanary } from './canaries.js';
import { objectsDefinedIn } from './qpdf-criterion.js';
import { REFUSAL_CODES, SIGNING_TIME, type FromChild, type InitMessage, type RunMessage, type Stage, type StageOutcome, type ToChild } from './protocol.js';

const send = (msg: FromChild): void => {
  process.send?.(msg);
};

function classify(stage: Stage, err: unknown): StageOutcome {
  if (isSelloError(err) && REFUSAL_CODES.has(err.code)) return { stage, result: 'refused', code: err.code };
  if (isSelloError(err)) return { stage, result: 'finding', error: `SelloError ${err.code}: ${err.message}`, stack: err.stack ?? '' };
  if (err instanceof Error) return { stage, result: 'finding', error: `${err.name}: ${err.message}`, stack: err.stack ?? '' };
  return { stage, result: 'finding', error: `thrown non-Error: ${String(err)}`, stack: '' };
}

/** Linux keeps the peak RSS in VmHWM; writing 5 to clear_refs resets it, so each mutant is measured alone. */
function resetPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the peak since start (maxRSS) is the best there is.
  }
}

function peakRss(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // Fall through.
  }
  return process.resourceUsage().maxRSS * 1024;
}

function signerFrom(init: InitMessage): CmsSigner {
  const key = createPrivateKey(init.keyPem);
  return {
    certificate: Buffer.from(new X509Certificate(init.certPem).raw),
    sign: async (data: Buffer) => cryptoSign('sha256', data, key),
  };
}

const STAMP_DIM = stampDimensions('s');

/** The objects of `pdf` that the update in `output` rewrote, as Sello reads `pdf` (it signed it, so it can). */
function rewrittenBy(pdf: Buffer, output: Buffer): number[] {
  const defined = objectsDefinedIn(output.subarray(pdf.length));
  return withPdfDocument(pdf, (doc) => [...defined].filter((n) => doc.xref.entries.get(n)?.kind === 'offset' || doc.xref.entries.get(n)?.kind === 'compressed'));
}

async function runMutant(signer: CmsSigner, msg: RunMessage): Promise<void> {
  const pdf = Buffer.from(msg.pdf.buffer, msg.pdf.byteOffset, msg.pdf.byteLength);
  const outcomes: StageOutcome[] = [];
  const t0 = performance.now();
  resetPeak();
  const stage = async <T>(name: Stage, fn: () => T | Promise<T>): Promise<T | undefined> => {
    send({ type: 'stage', index: msg.index, stage: name });
    try {
      const value = await fn();
      outcomes.push({ stage: name, result: 'ok' });
      return value;
    } catch (err) {
      outcomes.push(classify(name, err));
      return undefined;
    }
  };

  const summary = await stage('inspect', () => {
    misbehaveIfCanary(pdf);
    return inspectPdf(pdf);
  });
  const first = summary?.pages[0];
  const fits = first !== undefined && first.width >= STAMP_DIM.width + 20 && first.height >= STAMP_DIM.height + 20;
  const stamp: StampOptions | undefined = fits ? { page: 1, x: 10, y: 10, size: 's', signerName: 'Prueba de Fuzzing', qrText: `https://sello.example/v/fuzz-${msg.index}` } : undefined;
  const output = await stage('sign', () => signPdf(pdf, signer, { signingTime: SIGNING_TIME, ...(stamp ? { stamp } : {}) }));
  await stage('verify input', () => verifyPdfSignatures(pdf));
  if (output) {
    await stage('verify output', () => {
      // Ours is the one whose /ByteRange reaches the end of the output: no earlier one can.
      const ours = verifyPdfSignatures(output).find((r) => r.byteRange.length === 4 && r.byteRange[2]! + r.byteRange[3]! === output.length);
      if (!ours?.intact || !ours.coversWholeFile) throw new Error(`Sello's own verification does not find the new signature intact: ${JSON.stringify(ours ?? null)}`);
    });
  }
  const ms = performance.now() - t0;
  send({ type: 'result', index: msg.index, outcomes, output: output ?? null, rewritten: output ? rewrittenBy(pdf, output) : [], peakRssBytes: peakRss(), ms });
  // A fresh baseline for the next mutant's peak: garbage of this one must not count against it.
  if (process.memoryUsage.rss() > 256 * 1024 * 1024) (globalThis as { gc?: () => void }).gc?.();
}

let signer: CmsSigner | undefined;
// Mutants run one at a time: the parent sends the next only after this one's result.
process.on('message', (msg: ToChild) => {
  if (msg.type === 'init') {
    signer = signerFrom(msg);
    send({ type: 'ready' });
  } else if (signer) {
    void runMutant(signer, msg);
  }
});
// An error that escapes every stage (a callback of a timer, a stream) is a crash.
process.on('unhandledRejection', (err) => {
  throw err;
});
