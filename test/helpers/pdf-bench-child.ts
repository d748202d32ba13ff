/**
 * One measurement of the `sign` benchmark in a fresh process, so that peak RSS belongs to that
 * measurement alone: `node bin/run-ts.mjs test/helpers/pdf-bench-child.ts hash|copy|sign|idle FILE [OUT]`.
 * Prints one JSON line: { ms, msBeforeWrite, maxRssBytes }.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { buildPadesCms, estimateCmsSize, preparePdfSignature } from '../../core/pdf/index.js';
import { testPdfSigner } from './pdf-signer.js';

const [task, file, out] = process.argv.slice(2);
const signer = task === 'sign' ? testPdfSigner() : undefined;
const t0 = performance.now();
let msBeforeWrite: number | undefined;
if (task === 'copy') {
  const buf = readFileSync(file!);
  const fd = openSync(out!, 'w');
  writeSync(fd, buf);
  closeSync(fd);
} else if (task === 'hash') {
  const buf = readFileSync(file!);
  createHash('sha256').update(buf).digest();
} else if (task === 'sign' && signer) {
  const pdf = readFileSync(file!);
  const prepared = preparePdfSignature(pdf, {
    signingTime: new Date(),
    contentsSize: estimateCmsSize(signer, { timestamp: false }),
    stamp: { page: 1, x: 36, y: 36, size: 's', signerName: 'Benchmark', qrText: 'https://sello.example/v/bench' },
  });
  const cms = await buildPadesCms({ digest: prepared.digest, signer });
  const parts = prepared.embedParts(cms);
  msBeforeWrite = performance.now() - t0;
  // Written as two chunks: the original buffer and the update, never joined in memory.
  const fd = openSync(out!, 'w');
  for (const part of parts) writeSync(fd, part);
  closeSync(fd);
}
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms, msBeforeWrite, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);
