/**
 * `npm run bench -- watch` (issue 6): a real `sello serve` watching a folder, its certificate a
 * test certificate issued by `sello certs issue-test`. 300 small PDFs are copied in at once;
 * measured: the batch (start of the copy → last signed copy in `firmados/`), each file's latency
 * from its arrival (its copy completed) to its signed copy appearing, and, for comparison, the
 * batch's pure signing time: the same 300 PDFs signed in a loop with the same key and stamp, no
 * watcher, no store. Also shown, not part of the goal: when the last original left the folder
 * for `originales/` (after its signed copy, CONTRACT §13). Timings of the watcher come from
 * `SELLO_WATCH_*` (defaults unless set).
 */
import BetterSqlite3 from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
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

const notes = `
Every file first waits until its size and time have stayed unchanged for 500 ms and it ends
with \`%%EOF\` (CONTRACT §13); that window is not shortened, so no latency can be below it.

What it took (batch from 5.05 s, p50 from 3.11 s): the server's one JavaScript thread was the
limit, not the fsyncs (a file fsync costs ~0.5 ms here, a folder fsync ~0.15 ms).

- local folders followed with \`fs.watch\`, whose events name the file: chokidar listed the
  folder and \`lstat\`-ed every file on each event, ~0.9 s of a 4.5 s batch, and its stats
  queued in front of the fsyncs in libuv's four I/O threads (chokidar stays for \`--poll\`);
- one settle timer for every file instead of one poll per file: a file comes out 500 ms after
  its last change, not a polling period later;
- one transaction per newly taken file (ledger row, signing request, its link and the signed
  copy's name), shared by files taken at the same moment with a savepoint each;
- folder fsyncs shared by renames waiting at the same time (~260 instead of ~900), keeping the
  order: signed copy synced, renamed, its folder synced, then the original moved;
- 16 files at once instead of 4, never more than 32 MB of PDFs in flight; a file gives back its
  place once its signed copy is durable.

What remains for the p50: about 8 ms of the thread per file: the signature itself (~3 ms),
creating the signing request (~1.2 ms, it parses the PDF again), the signing worker's reads
and commit (~1.1 ms), the watcher (~1.3 ms) and garbage collection. Signing on a second
thread, creating requests without a second parse and grouping the worker's commits are the
next steps.
`;

const benchmark: Benchmark = {
  notes,
  description: `${N} small PDFs copied at once into a watched folder of a real sello serve: batch time, per-file latency from arrival to signed copy, vs pure signing`,
  async run(report) {
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
    /** First time each name is seen in `dir` (a `.NAME.tmp` being written is not the file). */
    const firstSeen = (dir: string, seen: Map<string, number>) =>
      fs.watch(dir, (_event, name) => {
        const at = performance.now();
        if (name && !name.startsWith('.') && !seen.has(name) && fs.existsSync(path.join(dir, name))) seen.set(name, at);
      });
    const appeared = new Map<string, number>();
    const moved = new Map<string, number>();
    const watchers = [firstSeen(added.output_folder, appeared), firstSeen(added.originals_folder, moved)];
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
      for (const w of watchers) w.close();
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    const errors = pdfsIn(added.error_folder).length;
    const lastSigned = Math.max(...appeared.values());
    const batchMs = lastSigned - t0;
    const latencies = names.map((n) => appeared.get(n)! - arrived.get(n)!).sort((a, b) => a - b);
    const firstSigned = Math.min(...appeared.values()) - t0;
    const lastMoved = Math.max(...names.map((n) => moved.get(n) ?? NaN)) - t0;
    const pureMs = await pureSigning(dataDir, cert.id, pdfs);
    fs.rmSync(work, { recursive: true, force: true });

    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const p50 = percentile(latencies, 50);
    report.text(
      `Watcher: stable ${settings.stableMs} ms (size and time unchanged, and \`%%EOF\`), concurrency ${settings.concurrency}; ${N} PDFs of ~${Math.round(pdfs[0]!.length / 1024)} KB; files in \`errores/\`: ${errors}.`,
    );
    report.table(
      ['measure', 'value', 'goal'],
      [
        [`copy of the ${N} files (start → last copy complete)`, s(copyMs), ''],
        ['first signed copy (from start of copy)', s(firstSigned), ''],
        ['batch: start of copy → last signed copy', s(batchMs), `≤ ${s(2000 + pureMs)} (2 s + pure signing)`],
        ['per-file latency p50 (arrival → signed copy)', s(p50), '≤ 1.50 s'],
        ['per-file latency p99', s(percentile(latencies, 99)), ''],
        ['per-file latency max', s(latencies[latencies.length - 1]!), ''],
        ['last original moved to originales/ (from start of copy; not in the goal)', s(lastMoved), ''],
        [`pure signing of the ${N} (one loop, same key and stamp)`, `${s(pureMs)} (${(pureMs / N).toFixed(1)} ms each)`, ''],
      ],
    );
    report.goal(`the batch within 2 s plus its pure signing time (this run: ${s(batchMs)} against ${s(2000 + pureMs)})`, batchMs <= 2000 + pureMs && errors === 0);
    report.goal(`per-file p50 ≤ 1.5 s from arrival to signed copy (this run: ${s(p50)})`, p50 <= 1500);
  },
};

export default benchmark;
