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
  description: 'firmas PAdES por segundo (clave de software y SoftHSM2) y costo de un PDF de 100 MB',
  async run() {
    const rows: string[][] = [['medida', 'valor', 'detalle']];
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
        rows.push([`PDF de ${pages} páginas (${kb} KB), clave de software`, `${software.rate.toFixed(0)} firmas/s`, `${software.msEach.toFixed(2)} ms por firma, ${software.n} firmas`]);
        const onToken = await perSecond(pdf, 3, softhsm);
        rows.push([`PDF de ${pages} páginas (${kb} KB), SoftHSM2`, `${onToken.rate.toFixed(0)} firmas/s`, `${onToken.msEach.toFixed(2)} ms por firma, ${onToken.n} firmas`]);
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
      const inMemory = sign.msBeforeWrite ?? sign.ms;
      const check = execFileSync('pdfsig', ['-nocert', path.join(dir, 'signed.pdf')], { encoding: 'utf8' });
      const valid = check.includes('Signature is Valid.') ? 'pdfsig: válida' : 'pdfsig: NO válida';
      rows.push([`100 MB: leer + SHA-256`, `${hash.ms.toFixed(0)} ms`, `RSS pico ${(hash.maxRssBytes / MB).toFixed(0)} MB`]);
      rows.push([`100 MB: firmar (leer, preparar, CMS, escribir)`, `${sign.ms.toFixed(0)} ms`, `RSS pico ${(sign.maxRssBytes / MB).toFixed(0)} MB; ${valid}`]);
      rows.push([`100 MB: leer + copiar a disco`, `${copy.ms.toFixed(0)} ms`, 'la escritura la fija el disco, no la firma']);
      rows.push([`100 MB: firmar sin escribir / leer+SHA-256`, `${(inMemory / hash.ms).toFixed(2)}×`, `objetivo ≤ 3× (${inMemory.toFixed(0)} ms)`]);
      rows.push([`100 MB: firmar y escribir / leer+copiar`, `${(sign.ms / copy.ms).toFixed(2)}×`, 'con la escritura en ambos lados']);
      rows.push([`100 MB: RSS pico / tamaño`, `${(sign.maxRssBytes / size).toFixed(2)}×`, `objetivo ≤ 2×; sin la base de Node (${(idle.maxRssBytes / MB).toFixed(0)} MB): ${((sign.maxRssBytes - idle.maxRssBytes) / size).toFixed(2)}×`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    process.stdout.write([line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n') + '\n');
  },
};

export default benchmark;
