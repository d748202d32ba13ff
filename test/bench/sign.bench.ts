/**
 * `npm run bench -- sign`: PDF signing throughput and the cost of a large file.
 *
 * - signatures per second on a 2-page and a 200-page PDF with a software RSA-2048 key
 *   (prepare + CMS + embed, sequential);
 * - a generated 100 MB PDF: time and peak RSS to sign it (read, prepare, CMS, write) against
 *   reading it and computing its SHA-256. Each large-file figure comes from a fresh process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { signPdf, type CmsSigner } from '../../core/pdf/index.js';
import { tokenKeySource } from '../../core/signing/key-sources/index.js';
import { loadTokenDriver } from '../../native/index.js';
import { createSoftHsm, SOFTHSM_MODULE } from '../helpers/softhsm.js';
import { createTestPki } from '../helpers/test-ca.js';
import { makeLargePdf, writeLargePdfFile } from '../helpers/pdf-fixtures.js';
import { testPdfSigner } from '../helpers/pdf-signer.js';
import type { Benchmark } from './run.js';

const MB = 1024 * 1024;

async function perSecond(pdf: Buffer, seconds: number, signer: CmsSigner = testPdfSigner()): Promise<{ n: number; rate: number; msEach: number }> {
  await signPdf(pdf, signer, {}); // warm-up (JIT, key import)
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    await signPdf(pdf, signer, { stamp: { page: 1, x: 36, y: 36, size: 's', signerName: 'José Peña', qrText: `https://sello.example/v/${n}` } });
    n++;
  }
  const ms = performance.now() - t0;
  return { n, rate: (n * 1000) / ms, msEach: ms / n };
}

interface ChildResult {
  ms: number;
  msBeforeWrite?: number;
  maxRssBytes: number;
}

function child(task: string, ...args: string[]): ChildResult {
  const out = execFileSync(process.execPath, ['bin/run-ts.mjs', 'test/helpers/pdf-bench-child.ts', task, ...args], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
}

const benchmark: Benchmark = {
  description: 'PAdES signatures per second (software key and SoftHSM2) and the cost of a 100 MB PDF',
  notes: `
Sequential signatures, each with a visible QR stamp. Each 100 MB figure comes from a fresh
process, after the file has been read once so that the page cache holds it. Signing cost
grows with the size of the update, not of the document: the 200-page PDF signs about as
fast as the 2-page one. A stock pdf-lib load-and-save of the small PDF manages about 45 per
second on this machine kind. The synced write of 100 MB is bound by the disk, as the plain
copy shows.
`,
  async run(report) {
    const rows: string[][] = [];
    let smallSoftwareRate = 0;
    // A SoftHSM2 token with an RSA-2048 key: the same pipeline through PKCS#11.
    const pki = await createTestPki();
    const hsm = await createSoftHsm();
    const token = await hsm.initToken({ label: 'bench', pin: '1234' });
    await token.importKey({ id: '01', label: 'bench', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
    const driver = loadTokenDriver(SOFTHSM_MODULE);
    try {
      const serial = (await driver.listSlots()).find((s) => s.token?.label === 'bench')!.token!.serialNumber;
      const softhsm = await tokenKeySource({ driver, tokenSerial: serial, keyId: Buffer.from('01', 'hex'), pin: async () => '1234' });
      for (const pages of [2, 200]) {
        const pdf = await makeLargePdf(pages);
        const kb = (pdf.length / 1024).toFixed(0);
        const software = await perSecond(pdf, 3);
        if (pages === 2) smallSoftwareRate = software.rate;
        rows.push([`${pages}-page PDF (${kb} KB), software key`, `${software.rate.toFixed(0)} signatures/s`, `${software.msEach.toFixed(2)} ms each, ${software.n} signatures`]);
        const onToken = await perSecond(pdf, 3, softhsm);
        rows.push([`${pages}-page PDF (${kb} KB), SoftHSM2`, `${onToken.rate.toFixed(0)} signatures/s`, `${onToken.msEach.toFixed(2)} ms each, ${onToken.n} signatures`]);
      }
    } finally {
      await driver.close();
      await hsm.cleanup();
      await pki.cleanup();
    }

    const dir = mkdtempSync(path.join(tmpdir(), 'sello-bench-'));
    try {
      const big = path.join(dir, 'big.pdf');
      writeLargePdfFile(big, 100 * MB);
      const size = statSync(big).size;
      child('hash', big); // warm the page cache
      const idle = child('idle');
      const hash = child('hash', big);
      const copy = child('copy', big, path.join(dir, 'copy.pdf'));
      const sign = child('sign', big, path.join(dir, 'signed.pdf'));
      // As the agent and the CLI sign: on the PDF thread, the file handed over rather than copied.
      const onThread = child('thread', big, path.join(dir, 'signed-thread.pdf'));
      const threadCheck = execFileSync('pdfsig', ['-nocert', path.join(dir, 'signed-thread.pdf')], { encoding: 'utf8' });
      const inMemory = sign.msBeforeWrite ?? sign.ms;
      const check = execFileSync('pdfsig', ['-nocert', path.join(dir, 'signed.pdf')], { encoding: 'utf8' });
      const valid = check.includes('Signature is Valid.') ? 'pdfsig: valid' : 'pdfsig: NOT valid';
      const timeRatio = inMemory / hash.ms;
      const memoryRatio = sign.maxRssBytes / size;
      rows.push(['100 MB: read + SHA-256', `${hash.ms.toFixed(0)} ms`, `peak RSS ${(hash.maxRssBytes / MB).toFixed(0)} MB`]);
      rows.push(['100 MB: sign (read, prepare, CMS, write synced)', `${sign.ms.toFixed(0)} ms`, `peak RSS ${(sign.maxRssBytes / MB).toFixed(0)} MB; ${valid}`]);
      rows.push([
        '100 MB: sign on the PDF thread (as the agent and sello sign do)',
        `${onThread.ms.toFixed(0)} ms`,
        `peak RSS ${(onThread.maxRssBytes / MB).toFixed(0)} MB (both threads); ${threadCheck.includes('Signature is Valid.') ? 'pdfsig: valid' : 'pdfsig: NOT valid'}`,
      ]);
      rows.push(['100 MB: read + copy to disk', `${copy.ms.toFixed(0)} ms`, 'the write is bound by the disk, not the signature']);
      rows.push(['100 MB: sign before writing / read + SHA-256', `${timeRatio.toFixed(2)}×`, `${inMemory.toFixed(0)} ms`]);
      rows.push(['100 MB: sign and write / read + copy', `${(sign.ms / copy.ms).toFixed(2)}×`, 'with the write on both sides']);
      rows.push(['100 MB: peak RSS / file size', `${memoryRatio.toFixed(2)}×`, `above Node's own ${(idle.maxRssBytes / MB).toFixed(0)} MB: ${((sign.maxRssBytes - idle.maxRssBytes) / size).toFixed(2)}×`]);
      report.table(['measure', 'value', 'detail'], rows);
      report.goal(`≥ 200 small PDFs signed per second with a software key (this run: ${smallSoftwareRate.toFixed(0)})`, smallSoftwareRate >= 200);
      report.goal(`the 100 MB PDF signed in ≤ 3× the time to read and hash it (this run: ${timeRatio.toFixed(2)}× before the synced write)`, timeRatio <= 3);
      report.goal(`peak memory ≤ 2× the file while signing 100 MB (this run: ${memoryRatio.toFixed(2)}×)`, memoryRatio <= 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
