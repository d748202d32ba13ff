/**
 * The PDF thread (core/signing/pdf-thread): untrusted PDF bytes are parsed on a worker thread
 * with resourceLimits and a deadline per untrusted phase, never on the process's own thread.
 * Signatures come back the same as when made in one go; refusals keep their code; a token's
 * CMS is built here between two phases there; a phase that runs past the deadline, takes all
 * the memory or overflows the stack fails its own job with `pdf_too_complex` while the jobs
 * beside it are run again and signed; a thread that cannot start fails its jobs, it never
 * makes them here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../../core/log/index.js';
import { verifyPdfSignatures, type SignPdfOptions, type VerifyOptions } from '../../../core/pdf/index.js';
import { softwareKeySource, type KeySource } from '../../../core/signing/key-sources/index.js';
import { createPdfThread, type PdfThread, type PdfThreadOptions, type SignedPdf } from '../../../core/signing/pdf-thread/index.js';
import { tempDir } from '../../helpers/agent.js';
import { misbehaving, misbehavingThreadEntry } from '../../helpers/misbehaving-pdfs.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { pdfsig } from '../../helpers/pdf-tools.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let source: KeySource;
let pdf: Buffer;
let dir: string;
const threads: PdfThread[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  source = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain });
  pdf = await makePdf();
  dir = tempDir('sello-pdf-thread-');
});
afterAll(() => {
  pki.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(threads.splice(0).map((t) => t.close()));
});

/** A logger that keeps its lines. */
function recordingLog(): { log: Logger; lines: () => Array<{ level: string; msg: string } & Record<string, unknown>> } {
  const lines: string[] = [];
  return { log: createLogger('debug', (line) => lines.push(line)), lines: () => lines.map((l) => JSON.parse(l) as { level: string; msg: string }) };
}

function thread(opts: Partial<PdfThreadOptions> = {}): PdfThread {
  const t = createPdfThread({ log: createLogger('silent'), deadlineMs: 30_000, memoryMb: 512, ...opts });
  threads.push(t);
  return t;
}

/** An entry module for the thread, written for one test. */
function entry(name: string, code: string): URL {
  const file = path.join(dir, name);
  fs.writeFileSync(file, code);
  return pathToFileURL(file);
}

const stamp = (signedAt: Date) => ({ page: 1, x: 36, y: 36, size: 's' as const, signerName: 'MARÍA PEÑA', qrText: `FECHA: ${signedAt.toISOString()}` });
const joined = (s: SignedPdf): Buffer => Buffer.concat([s.original, s.update]);

async function expectSignedOnce(signed: Buffer, original: Buffer = pdf): Promise<void> {
  expect(signed.subarray(0, original.length).equals(original)).toBe(true); // an incremental update of the original
  const reports = verifyPdfSignatures(signed);
  expect(reports).toHaveLength(1);
  expect(reports[0]).toMatchObject({ intact: true, coversWholeFile: true });
  expect(JSON.stringify(await pdfsig(signed))).toContain('Signature is Valid');
}

describe('PDF thread', () => {
  it('signs on the thread, many at once, each signature valid and the original untouched', async () => {
    const t = thread();
    const signedAt = new Date();
    const before = Buffer.from(pdf);
    const signed = await Promise.all(Array.from({ length: 12 }, () => t.sign(pdf, source, { signingTime: signedAt, stamp: stamp(signedAt) })));
    expect(t.counts()).toMatchObject({ answered: 12, starts: 1, culprits: 0 });
    expect(pdf.equals(before)).toBe(true);
    for (const s of signed.slice(0, 3)) await expectSignedOnce(joined(s));
    expect(new Set(signed.map((s) => s.update.length)).size).toBe(1);
  });

  it('inspects and verifies on the thread, with the same answers as core/pdf, its options passed as they are', async () => {
    const t = thread();
    expect(await t.inspect(pdf)).toMatchObject({ pageCount: 1, encryption: 'none', signatureCount: 0 });
    const signed = joined(await t.sign(pdf, source, { signingTime: new Date('2026-01-02T03:04:05Z') }));
    const options: VerifyOptions = { now: new Date(), trustAnchors: [{ source: 'configured', certificate: new Uint8Array(pki.ca.certificate) }] };
    const onThread = await t.verify(signed, options);
    expect(onThread).toEqual(verifyPdfSignatures(signed, options));
    expect(onThread[0]).toMatchObject({ signingTime: new Date('2026-01-02T03:04:05Z'), trusted: true });
    expect((await t.verify(signed, { now: options.now! }))[0]).toMatchObject({ trusted: false });
  });

  it('keeps the code and the Spanish text of a refusal made on the thread, and goes on', async () => {
    const t = thread();
    const future = pki.issue({ subject: { commonName: 'FUTURO' }, notBefore: new Date(Date.now() + 86_400_000), validityDays: 10 });
    const notYet = softwareKeySource({ key: future.privateKey, certificate: future.certificate, chain: future.chain });
    await expect(t.sign(pdf, notYet, {})).rejects.toMatchObject({ code: 'certificate_expired', message: expect.stringMatching(/todavía no es válido/) });
    await expect(t.sign(Buffer.from('%PDF-1.7\nbasura\n%%EOF\n'), source, {})).rejects.toMatchObject({ code: expect.stringMatching(/^pdf_/) });
    await expect(t.inspect(Buffer.from('%PDF-1.7\nbasura\n%%EOF\n'))).rejects.toMatchObject({ code: expect.stringMatching(/^pdf_/) });
    expect(t.counts()).toMatchObject({ answered: 3, starts: 1 });
    await expectSignedOnce(joined(await t.sign(pdf, source, {})));
  });

  it('signs with a token-like key: the PDF read on the thread before and after, the CMS made here', async () => {
    const t = thread();
    let signedHere = 0;
    const tokenLike: KeySource = {
      kind: 'token',
      certificate: source.certificate,
      chain: source.chain,
      sign: (data) => {
        signedHere++;
        return source.sign(data);
      },
    };
    await expectSignedOnce(joined(await t.sign(pdf, tokenLike, { stamp: stamp(new Date()) })));
    expect(signedHere).toBe(1);
    expect(t.counts()).toMatchObject({ answered: 2 }); // prepare, then complete (with its read-back)
    await expect(t.sign(misbehaving(pdf, 'hang', 'complete'), tokenLike, {})).resolves.toBeDefined(); // the default reader ignores markers
  });

  it('stops the thread on close and once idle, and starts it again for the next job', async () => {
    const t = thread({ idleMs: 50 });
    await t.sign(pdf, source, {});
    expect(t.running()).toBe(true);
    await t.close();
    expect(t.running()).toBe(false);
    await expectSignedOnce(joined(await t.sign(pdf, source, {})));
    await new Promise((r) => setTimeout(r, 300));
    expect(t.running()).toBe(false);
    await expectSignedOnce(joined(await t.sign(pdf, source, {})));
    expect(t.counts()).toMatchObject({ answered: 3, starts: 3 });
  });

  it('hands a large PDF over to the thread rather than copying it, and gives it back', async () => {
    const t = thread({ handOverMinBytes: 512 });
    const mine = Buffer.alloc(pdf.length);
    pdf.copy(mine); // a Buffer that is the whole of its memory (pdf itself may be a view)
    const signed = await t.sign(mine, source, {});
    expect(mine.length).toBe(0); // handed over: the caller reads the original from the answer
    expect(signed.original.equals(pdf)).toBe(true);
    await expectSignedOnce(joined(signed));
    // Beside others: each in the thread alone, all signed.
    const many = await Promise.all([0, 1, 2].map(() => t.sign(Buffer.from(pdf), source, {})));
    for (const s of many) expect(s.original.equals(pdf)).toBe(true);
  });

  // Replaces "signs here what cannot be handed to the thread": nothing untrusted is parsed here any more.
  it('refuses, with internal_error, what cannot be handed to the thread, and goes on', async () => {
    const t = thread();
    const options = { signingTime: new Date(), stamp: { ...stamp(new Date()), notCloneable: () => 1 } } as unknown as SignPdfOptions;
    await expect(t.sign(pdf, source, options)).rejects.toMatchObject({ code: 'internal_error' });
    await expectSignedOnce(joined(await t.sign(pdf, source, {})));
  });

  // Replaces "signs everything here, with one warning, when the thread cannot start".
  it('fails every job with internal_error and a logged reason when the thread cannot start, never parsing here', async () => {
    const { log, lines } = recordingLog();
    const t = thread({ entry: entry('no-arranca.mjs', "throw new Error('no arranca');\n"), log });
    t.warm();
    const jobs = await Promise.allSettled([t.sign(pdf, source, {}), t.inspect(pdf), t.verify(pdf)]);
    for (const job of jobs) {
      expect(job.status).toBe('rejected');
      expect((job as PromiseRejectedResult).reason).toMatchObject({ code: 'internal_error', message: expect.stringMatching(/no pudo iniciar su lector de PDF/) });
    }
    expect(t.running()).toBe(false);
    const warnings = lines().filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.msg)).toEqual(['PDF thread could not start; PDF jobs fail until it can']);
    expect(JSON.stringify(warnings[0])).toContain('no arranca');
    // The next job tries to start a thread again (and fails again, the same way).
    await expect(t.inspect(pdf)).rejects.toMatchObject({ code: 'internal_error' });
    expect(t.counts().starts).toBe(2);
  });

  // Replaces "makes here the signatures of a thread that dies with them".
  it('runs again on a fresh thread the jobs of a thread that dies outside their phases, and gives up after three deaths', async () => {
    const { log, lines } = recordingLog();
    const dies = entry('muere.mjs', "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\nparentPort.postMessage({ ready: true });\n");
    const t = thread({ entry: dies, log });
    const jobs = await Promise.allSettled([1, 2, 3].map(() => t.sign(pdf, source, {})));
    for (const job of jobs) expect((job as PromiseRejectedResult).reason).toMatchObject({ code: 'internal_error', message: expect.stringMatching(/se detuvo mientras tenía este archivo/) });
    expect(t.counts()).toMatchObject({ starts: 3, culprits: 0, reruns: 6 });
    expect(lines().filter((l) => l.msg === 'PDF thread stopped')).toHaveLength(3);
  });
});

describe('PDF thread against a hostile file', () => {
  it('stops a phase that runs past the deadline: its job fails with pdf_too_complex, the jobs beside it are signed', async () => {
    const { log, lines } = recordingLog();
    const t = thread({ entry: misbehavingThreadEntry, deadlineMs: 1_000, log });
    const started = Date.now();
    const hostile = t.sign(misbehaving(pdf, 'hang', 'prepare'), source, {});
    const innocents = Array.from({ length: 5 }, () => t.sign(pdf, source, {}));
    await expect(hostile).rejects.toMatchObject({ code: 'pdf_too_complex', message: expect.stringMatching(/más de 1 s/) });
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const s of await Promise.all(innocents)) await expectSignedOnce(joined(s));
    expect(t.counts()).toMatchObject({ culprits: 1, starts: 2 });
    expect(lines().find((l) => l.msg === 'PDF thread stopped')).toMatchObject({ death: 'deadline', kind: 'sign' });
  }, 30_000);

  it('times each phase, not the wait in the queue: many slow jobs queued together all finish', async () => {
    const t = thread({ entry: misbehavingThreadEntry, deadlineMs: 1_000 });
    // 12 phases of 150 ms: 1.8 s in all, more than the deadline, each well within it.
    const slow = misbehaving(pdf, 'slow', 'inspect');
    const summaries = await Promise.all(Array.from({ length: 12 }, () => t.inspect(slow)));
    expect(summaries.every((s) => s.pageCount === 1)).toBe(true);
    expect(t.counts()).toMatchObject({ culprits: 0, starts: 1 });
  }, 30_000);

  it('fails with pdf_too_complex the job whose phase takes all the memory; the thread comes back for the others', async () => {
    const { log, lines } = recordingLog();
    const t = thread({ entry: misbehavingThreadEntry, memoryMb: 96, log });
    const hostile = t.inspect(misbehaving(pdf, 'oom', 'inspect'));
    const innocents = [t.inspect(pdf), t.sign(pdf, source, {}), t.inspect(pdf)];
    await expect(hostile).rejects.toMatchObject({ code: 'pdf_too_complex', message: expect.stringMatching(/más de 96 MB de memoria/) });
    const [a, signed, b] = await Promise.all(innocents);
    expect(a).toEqual(b);
    await expectSignedOnce(joined(signed as SignedPdf));
    expect(lines().find((l) => l.msg === 'PDF thread stopped')).toMatchObject({ death: 'memory', kind: 'inspect' });
    expect(t.counts()).toMatchObject({ culprits: 1 });
  }, 60_000);

  it('refuses a structure deeper than the stack with pdf_too_complex, without losing the thread', async () => {
    const t = thread({ entry: misbehavingThreadEntry });
    await expect(t.verify(misbehaving(pdf, 'deep', 'verify'))).rejects.toMatchObject({ code: 'pdf_too_complex', message: expect.stringMatching(/anidadas/) });
    await expectSignedOnce(joined(await t.sign(pdf, source, {})));
    expect(t.counts()).toMatchObject({ starts: 1, culprits: 0 });
  });

  it('fails the read-back of a token signature that hangs, with the token used once', async () => {
    const t = thread({ entry: misbehavingThreadEntry, deadlineMs: 500 });
    let signedHere = 0;
    const tokenLike: KeySource = { kind: 'token', certificate: source.certificate, chain: source.chain, sign: (data) => (signedHere++, source.sign(data)) };
    await expect(t.sign(misbehaving(pdf, 'hang', 'complete'), tokenLike, {})).rejects.toMatchObject({ code: 'pdf_too_complex' });
    expect(signedHere).toBe(1);
    await expectSignedOnce(joined(await t.sign(pdf, tokenLike, {})));
  }, 30_000);

  it('keeps this thread free while the thread is stuck in a phase', async () => {
    const t = thread({ entry: misbehavingThreadEntry, deadlineMs: 2_000 });
    const hostile = t.inspect(misbehaving(pdf, 'hang', 'inspect')).catch(() => 'refused');
    let worstLagMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worstLagMs = Math.max(worstLagMs, now - last - 20);
      last = now;
    }, 20);
    expect(await hostile).toBe('refused');
    clearInterval(ticker);
    expect(worstLagMs).toBeLessThan(200);
  }, 30_000);
});
