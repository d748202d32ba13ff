/**
 * The signing thread (./index.ts): signs PDFs with software keys the process hands it, and
 * answers with the signed update alone (the process has the original bytes).
 */
import { parentPort } from 'node:worker_threads';
import { isSelloError } from '../../errors/index.js';
import { signPdfParts } from '../../pdf/index.js';
import { makeSoftwareSource, type SoftwareKeySource } from '../key-sources/software.js';
import type { Ready, SignAnswer, SignJob } from './protocol.js';

/** Key sources seen, by the process's number: opening one checks the key against its certificate. */
const sources = new Map<number, SoftwareKeySource>();
/** Keys kept at most: a process opens one source per certificate it signs with. */
const MAX_SOURCES = 64;

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

function sourceFor(job: SignJob): SoftwareKeySource {
  let source = sources.get(job.sourceId);
  if (!source) {
    if (!job.key) throw new Error(`signing thread: key source ${job.sourceId} unknown`);
    source = makeSoftwareSource(job.key.kind, { key: job.key.privateKey, certificate: asBuffer(job.key.certificate), chain: job.key.chain.map(asBuffer) });
    if (sources.size >= MAX_SOURCES) sources.delete(sources.keys().next().value!);
    sources.set(job.sourceId, source);
  }
  return source;
}

async function sign(job: SignJob): Promise<SignAnswer> {
  try {
    const [, update] = await signPdfParts(asBuffer(job.pdf), sourceFor(job), job.options);
    return { id: job.id, ok: true, update: new Uint8Array(update) }; // an ArrayBuffer of its own, transferred
  } catch (err) {
    if (isSelloError(err)) {
      const { cause: _cause, ...details } = err.details; // a cause may not cross threads
      return { id: job.id, ok: false, code: err.code, details, message: err.message };
    }
    return { id: job.id, ok: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

parentPort!.on('message', (job: SignJob) => {
  void sign(job).then((answer) => parentPort!.postMessage(answer, answer.ok ? [answer.update.buffer as ArrayBuffer] : []));
});
parentPort!.postMessage({ ready: true } satisfies Ready);
