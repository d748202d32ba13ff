/**
 * `npm run bench -- watch` (issue 6): a real `sello serve` watching a folder, its certificate a
 * test certificate issued by `sello certs issue-test`. 300 small PDFs are copied in at once;
 * measured: the batch (start of the copy → last signed copy in `firmados/`), each file's latency
 * from its arrival (its copy completed) to its signed copy appearing, and, for comparison, the
 * batch's pure signing time: the same 300 PDFs signed in a loop with the same key and stamp, no
 * watcher, no store. Timings of the watcher come from `SELLO_WATCH_*` (defaults unless set).
 */
import BetterSqlite3 from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signPdf } from '../../core/pdf/index.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import { softwareKeySource } from '../../core/signing/key-sources/index.js';
import { qrText } from '../../core/signing/qr-text.js';
import { watchSettings } from '../../core/watch/index.js';
import { tempDir } from '../helpers/agent.js';
import { selloJson, startServe } from '../helpers/cli.js';
import { testPrincipal } from '../helpers/certificates.js';
import { distinctPdfs, pdfsIn, waitFor } from '../helpers/watch-files.js';
import type { Benchmark } from './run.js';

const N = Number(process.env.BENCH_WATCH_FILES ?? 300);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Signs every PDF once with the certificate's key, as the signing worker does (stamp, QR), sequentially. */
async function pureSigning(dataDir: string, certId: string, pdfs: Buffer[]): Promise<number> {
  const db = new BetterSqlite3(path.join(dataDir, 'sello.db'), { readonly: true });
  const row = db.prepare('select certificate, chain, private_key_sealed, subject_name, serial_number from certificates where id = ?').get(certId) as {
    certificate: Buffer;
    chain: string;
    private_key_sealed: string;
    subject_name: string;
    serial_number: string;
  };
  db.close();
  const key = crypto.createPrivateKey(loadSecretBox(dataDir).open(row.private_key_sealed));
  const chain = (JSON.parse(row.chain) as string[]).map((c) => Buffer.from(c, 'base64'));
  const source = softwareKeySource({ key, certificate: row.certificate, chain });
  const sign = (pdf: Buffer) => {
    const signedAt = new Date();
    return signPdf(pdf, source, {
      signingTime: signedAt,
      stamp: { page: 1, x: 36, y: 606, size: 's', signerName: row.subject_name, qrText: qrText({ signerName: row.subject_name, signedAt, serialNumber: row.serial_number }) },
    });
  };
  await sign(pdfs[0]!); // warm-up, as the server is warm by the time files arrive
  const t0 = performance.now();
  for (const pdf of pdfs) await sign(pdf);
  return performance.now() - t0;
}

const settings = watchSettings();

const benchmark: Benchmark = {
  description: `${N} small PDFs copied at once into a watched folder of a real sello serve: batch time, per-file latency from arrival to signed copy, vs pure signing`,
  async run() {
    const work = tempDir('sello-bench-watch-');
    const dataDir = path.join(work, 'data');
    const folder = path.join(work, 'facturas');
    fs.mkdirSync(folder);
    const principalFile = path.join(work, 'titular.json');
    fs.writeFileSync(principalFile, JSON.stringify(testPrincipal));
    const cert = selloJson<{ id: string }>(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', principalFile, '--data-dir', dataDir]);
    const added = selloJson<{ output_folder: string; originals_folder: string; error_folder: string }>(['folders', 'add', folder, '--cert', cert.id, '--data-dir', dataDir]);
    const pdfs = await distinctPdfs(N);
    const names = pdfs.map((_, i) => `factura-${i}.pdf`);

    const serve = await startServe(dataDir);
    const appeared = new Map<string, number>();
    const watcher = fs.watch(added.output_folder, (_event, name) => {
      const at = performance.now();
      if (name && !name.startsWith('.') && !appeared.has(name) && fs.existsSync(path.join(added.output_folder, name))) appeared.set(name, at);
    });
    const arrived = new Map<string, number>();
    let t0 = 0;
    let copyMs = 0;
    try {
      await new Promise((r) => setTimeout(r, 500)); // the folder is being watched
      t0 = performance.now();
      await Promise.all(
        pdfs.map(async (pdf, i) => {
          await fs.promises.writeFile(path.join(folder, names[i]!), pdf);
          arrived.set(names[i]!, performance.now());
        }),
      );
      copyMs = performance.now() - t0;
      await waitFor(() => appeared.size >= N && pdfsIn(added.originals_folder).length >= N, 300_000, () => `${appeared.size} signed, ${pdfsIn(added.originals_folder).length} moved`);
    } finally {
      watcher.close();
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    const errors = pdfsIn(added.error_folder).length;
    const lastSigned = Math.max(...appeared.values());
    const batchMs = lastSigned - t0;
    const latencies = names.map((n) => appeared.get(n)! - arrived.get(n)!).sort((a, b) => a - b);
    const firstSigned = Math.min(...appeared.values()) - t0;
    const pureMs = await pureSigning(dataDir, cert.id, pdfs);
    fs.rmSync(work, { recursive: true, force: true });

    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
    console.log(
      `watcher: stable ${settings.stableMs} ms (settle check every ${Math.min(100, settings.stableMs)} ms), concurrency ${settings.concurrency}; ${N} PDFs of ~${Math.round(pdfs[0]!.length / 1024)} KB; errors: ${errors}\n`,
    );
    console.log('| measure | value | goal |');
    console.log('|---|---:|---:|');
    console.log(`| copy of the ${N} files (start → last copy complete) | ${s(copyMs)} | |`);
    console.log(`| first signed copy (from start of copy) | ${s(firstSigned)} | |`);
    console.log(`| batch: start of copy → last signed copy | ${s(batchMs)} | ≤ ${s(2000 + pureMs)} (2 s + pure signing) |`);
    console.log(`| per-file latency p50 (arrival → signed copy) | ${s(percentile(latencies, 50))} | ≤ 1.50 s |`);
    console.log(`| per-file latency p99 | ${s(percentile(latencies, 99))} | |`);
    console.log(`| per-file latency max | ${s(latencies[latencies.length - 1]!)} | |`);
    console.log(`| pure signing of the ${N} (one loop, same key and stamp) | ${s(pureMs)} (${(pureMs / N).toFixed(1)} ms each) | |`);
    console.log(`| watcher overhead: batch − pure signing | ${s(batchMs - pureMs)} | ≤ 2.00 s |`);
  },
};

export default benchmark;
