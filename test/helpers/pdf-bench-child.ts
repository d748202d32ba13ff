/**
 * One measurement of the `sign` benchmark in a fresh process, so that peak RSS belongs to that
 * measurement alone: `node bin/run-ts.mjs test/helpers/pdf-bench-child.ts hash|copy|sign|thread|idle FILE [OUT]`.
 * `sign` runs core/pdf on this thread; `thread` signs as the agent and the CLI do, on the PDF
 * thread (core/signing/pdf-thread), the file handed over to it. Peak RSS counts both threads.
 * Prints one JSON line: { ms, msBeforeWrite, maxRssBytes }.
 */
import { createHash, createPrivateKey } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { buildPadesCms, estimateCmsSize, preparePdfSignature } from '../../core/pdf/index.js';
import { softwareKeySource } from '../../core/signing/key-sources/index.js';
import { testPdfSigner } from './pdf-signer.js';

const [task, file, out] = process.argv.slice(2);
const signer = task === 'sign' || task === 'thread' ? testPdfSigner() : undefined;
// The agent's PDF thread is up before a file arrives: started and used once before the clock
// starts. Loaded only for `thread`, so that the other children's peak RSS (and `idle`, Node's
// own) holds only what they measure.
const pdfs = task === 'thread' ? await startPdfThread() : undefined;
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
} else if (task === 'thread' && signer && pdfs) {
  const source = softwareKeySource({ key: createPrivateKey(signer.keyPem), certificate: signer.certificate });
  const { original, update } = await pdfs.sign(readFileSync(file!), source, {
    stamp: { page: 1, x: 36, y: 36, size: 's', signerName: 'Benchmark', qrText: 'https://sello.example/v/bench' },
  });
  msBeforeWrite = performance.now() - t0;
  const fd = openSync(out!, 'w');
  for (const part of [original, update]) writeSync(fd, part);
  closeSync(fd);
  await pdfs.close();
}
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms, msBeforeWrite, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`);

async function startPdfThread() {
  const [{ createLogger }, { createPdfThread }, { makePdf }] = await Promise.all([
    import('../../core/log/index.js'),
    import('../../core/signing/pdf-thread/index.js'),
    import('./pdf-fixtures.js'),
  ]);
  const thread = createPdfThread({ log: createLogger('silent'), deadlineMs: 30_000, memoryMb: 512 });
  await thread.inspect(await makePdf());
  return thread;
}
