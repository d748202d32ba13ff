/**
 * The signing thread (core/signing/signing-thread): signatures with keys held in the process
 * are built on a worker thread, and come back the same as when made here; refusals keep their
 * code; token keys stay here; a thread that cannot start or dies costs no signature.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../../core/log/index.js';
import { verifyPdfSignatures } from '../../../core/pdf/index.js';
import { softwareKeySource, type KeySource } from '../../../core/signing/key-sources/index.js';
import { createSigningThread, type PdfSigner } from '../../../core/signing/signing-thread/index.js';
import { tempDir } from '../../helpers/agent.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { pdfsig } from '../../helpers/pdf-tools.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let source: KeySource;
let pdf: Buffer;
let dir: string;
const signers: PdfSigner[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  source = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain });
  pdf = await makePdf();
  dir = tempDir('sello-signing-thread-');
});
afterAll(() => {
  pki.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(signers.splice(0).map((s) => s.close()));
});

/** A logger that keeps its lines. */
function recordingLog(): { log: Logger; lines: () => Array<{ level: string; msg: string }> } {
  const lines: string[] = [];
  return { log: createLogger('debug', (line) => lines.push(line)), lines: () => lines.map((l) => JSON.parse(l) as { level: string; msg: string }) };
}

function thread(opts: { entry?: URL; idleMs?: number; log?: Logger } = {}): PdfSigner {
  const signer = createSigningThread({ log: opts.log ?? createLogger('silent'), ...(opts.entry ? { entry: opts.entry } : {}), ...(opts.idleMs ? { idleMs: opts.idleMs } : {}) });
  signers.push(signer);
  return signer;
}

/** An entry module for the thread, written for one test. */
function entry(name: string, code: string): URL {
  const file = path.join(dir, name);
  fs.writeFileSync(file, code);
  return pathToFileURL(file);
}

const stamp = (signedAt: Date) => ({ page: 1, x: 36, y: 36, size: 's' as const, signerName: 'MARÍA PEÑA', qrText: `FECHA: ${signedAt.toISOString()}` });

async function expectSignedOnce(signed: Buffer): Promise<void> {
  expect(signed.subarray(0, pdf.length).equals(pdf)).toBe(true); // an incremental update of the original
  const reports = verifyPdfSignatures(signed);
  expect(reports).toHaveLength(1);
  expect(reports[0]).toMatchObject({ intact: true, coversWholeFile: true });
  expect(JSON.stringify(await pdfsig(signed))).toContain('Signature is Valid');
}

describe('signing thread', () => {
  it('signs on the thread, many at once, each signature valid and the original untouched', async () => {
    const signer = thread();
    const signedAt = new Date();
    const before = Buffer.from(pdf);
    const signed = await Promise.all(Array.from({ length: 12 }, () => signer.signPdf(pdf, source, { signingTime: signedAt, stamp: stamp(signedAt) })));
    expect(signer.counts()).toEqual({ thread: 12, here: 0 });
    expect(pdf.equals(before)).toBe(true);
    for (const s of signed.slice(0, 3)) await expectSignedOnce(s);
    expect(new Set(signed.map((s) => s.length)).size).toBe(1);
  });

  it('keeps the code and the Spanish text of a refusal made on the thread', async () => {
    const signer = thread();
    const future = pki.issue({ subject: { commonName: 'FUTURO' }, notBefore: new Date(Date.now() + 86_400_000), validityDays: 10 });
    const notYet = softwareKeySource({ key: future.privateKey, certificate: future.certificate, chain: future.chain });
    await expect(signer.signPdf(pdf, notYet, {})).rejects.toMatchObject({ code: 'certificate_expired', message: expect.stringMatching(/todavía no es válido/) });
    await expect(signer.signPdf(Buffer.from('%PDF-1.7\nbasura\n%%EOF\n'), source, {})).rejects.toMatchObject({ code: expect.stringMatching(/^pdf_/) });
    expect(signer.counts()).toEqual({ thread: 2, here: 0 });
    await expectSignedOnce(await signer.signPdf(pdf, source, {})); // the thread goes on after refusals
  });

  it('signs here with a key the process does not hold (a token), and with the thread stopped and started again', async () => {
    const signer = thread();
    const tokenLike: KeySource = { kind: 'token', certificate: source.certificate, chain: source.chain, sign: (data) => source.sign(data) };
    await expectSignedOnce(await signer.signPdf(pdf, tokenLike, {}));
    expect(signer.counts()).toEqual({ thread: 0, here: 1 });
    await signer.signPdf(pdf, source, {});
    expect(signer.running()).toBe(true);
    await signer.close();
    expect(signer.running()).toBe(false);
    await expectSignedOnce(await signer.signPdf(pdf, source, {}));
    expect(signer.counts()).toEqual({ thread: 2, here: 1 });
  });

  it('signs here what cannot be handed to the thread', async () => {
    const signer = thread();
    const options = { signingTime: new Date(), notCloneable: () => 1 } as unknown as Parameters<PdfSigner['signPdf']>[2];
    await expectSignedOnce(await signer.signPdf(pdf, source, options));
    await expectSignedOnce(await signer.signPdf(pdf, source, {}));
    expect(signer.counts()).toEqual({ thread: 1, here: 1 });
  });

  it('stops the thread once idle, and starts it again for the next signature', async () => {
    const signer = thread({ idleMs: 50 });
    await signer.signPdf(pdf, source, {});
    expect(signer.running()).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(signer.running()).toBe(false);
    await expectSignedOnce(await signer.signPdf(pdf, source, {}));
    expect(signer.counts()).toEqual({ thread: 2, here: 0 });
  });

  it('signs everything here, with one warning, when the thread cannot start', async () => {
    const { log, lines } = recordingLog();
    const signer = thread({ entry: entry('no-arranca.mjs', "throw new Error('no arranca');\n"), log });
    signer.warm();
    const signed = await Promise.all([signer.signPdf(pdf, source, {}), signer.signPdf(pdf, source, {})]);
    for (const s of signed) await expectSignedOnce(s);
    await expectSignedOnce(await signer.signPdf(pdf, source, {}));
    expect(signer.counts()).toEqual({ thread: 0, here: 3 });
    expect(signer.running()).toBe(false); // not started again for each signature
    expect(lines().filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['signing thread could not start; signing on the main thread']);
  });

  it('makes here the signatures of a thread that dies with them', async () => {
    const { log, lines } = recordingLog();
    const dies = entry('muere.mjs', "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\nparentPort.postMessage({ ready: true });\n");
    const signer = thread({ entry: dies, log });
    const signed = await Promise.all([1, 2, 3].map(() => signer.signPdf(pdf, source, {})));
    for (const s of signed) await expectSignedOnce(s);
    expect(signer.counts()).toEqual({ thread: 0, here: 3 });
    expect(lines().some((l) => l.level === 'warn' && l.msg.startsWith('signing thread stopped'))).toBe(true);
  });
});
