/**
 * `kill -9` of `sello serve` while a watched folder is signing 300 PDFs (issue 6), then a
 * restart on the same data folder: the same end state as without the kill. 300 signed copies
 * (one intact signature each, named as their originals, so none written twice), 300 originals,
 * nothing in `errores/`, no temporary file left in `firmados/`, one signing request per file.
 * Setup through the CLI only (`certs issue-test`, `folders add`), as a person would.
 */
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdfSignatures } from '../../core/pdf/index.js';
import { tempDir } from '../helpers/agent.js';
import { selloJson, startServe, type ServeProcess } from '../helpers/cli.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { testPrincipal } from '../helpers/certificates.js';
import { distinctPdfs, pdfsIn, sleep } from '../helpers/watch-files.js';

const N = 300;

let dataDir: string;
let folder: string;
let work: string;
const serves: ServeProcess[] = [];
const env = { SELLO_WATCH_STABLE_MS: '300', SELLO_WATCH_RELOAD_MS: '200' };

beforeAll(() => {
  work = tempDir('sello-watch-crash-');
  dataDir = path.join(work, 'data');
  folder = path.join(work, 'facturas');
  fs.mkdirSync(folder);
});

afterAll(() => {
  for (const s of serves) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
});

describe('kill -9 of sello serve while a watched folder signs 300 PDFs', () => {
  it('ends, after a restart, as if it had never been killed', async () => {
    const principalFile = path.join(work, 'titular.json');
    fs.writeFileSync(principalFile, JSON.stringify(testPrincipal));
    const cert = selloJson<{ id: string }>(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', principalFile, '--data-dir', dataDir]);
    const added = selloJson<{ id: string; output_folder: string; originals_folder: string; error_folder: string }>(['folders', 'add', folder, '--cert', cert.id, '--data-dir', dataDir]);
    expect(added.output_folder).toBe(path.join(folder, 'firmados'));
    const firmados = added.output_folder;
    const originales = added.originals_folder;
    const errores = added.error_folder;

    let serve = await startServe(dataDir, env);
    serves.push(serve);
    const pdfs = await distinctPdfs(N);
    await Promise.all(pdfs.map((pdf, i) => fs.promises.writeFile(path.join(folder, `factura-${i}.pdf`), pdf)));

    // Kill while the batch is well under way: some files finished, most not.
    const until = Date.now() + 60_000;
    while (pdfsIn(originales).length < 40) {
      if (Date.now() > until) throw new Error(`no progress before the kill: ${serve.stderr()}`);
      await sleep(5);
    }
    serve.child.kill('SIGKILL');
    await serve.exited;
    const doneAtKill = pdfsIn(originales).length;
    expect(doneAtKill).toBeLessThan(N);
    const atKill = new BetterSqlite3(path.join(dataDir, 'sello.db'), { readonly: true });
    const ledgerAtKill = atKill.prepare("select count(*) as n from watch_ledger where state <> 'done'").get() as { n: number };
    atKill.close();
    expect(ledgerAtKill.n + pdfsIn(folder).length).toBeGreaterThan(0); // files left mid-way or not started

    // What a kill in the middle of an atomic write leaves behind (its window is too short to hit on purpose).
    fs.writeFileSync(path.join(firmados, '.factura-0.pdf.0123456789ab.tmp'), pdfs[0]!.subarray(0, 100));

    serve = await startServe(dataDir, env);
    serves.push(serve);
    const deadline = Date.now() + 90_000;
    while (pdfsIn(originales).length < N || pdfsIn(firmados).length < N) {
      if (Date.now() > deadline) throw new Error(`not finished: ${pdfsIn(originales).length} originals, ${pdfsIn(firmados).length} signed; ${serve.stderr()}`);
      await sleep(50);
    }
    await sleep(500); // anything still running would show now
    serve.child.kill('SIGTERM');
    await serve.exited;

    const names = Array.from({ length: N }, (_, i) => `factura-${i}.pdf`).sort();
    expect(fs.readdirSync(firmados).sort()).toEqual(names); // no temporaries, no NAME-1.pdf written twice
    expect(fs.readdirSync(originales).sort()).toEqual(names); // no .nota.txt: nothing taken for a duplicate
    expect(fs.readdirSync(errores)).toEqual([]);
    expect(pdfsIn(folder)).toEqual([]);
    for (const [i, pdf] of pdfs.entries()) {
      const name = `factura-${i}.pdf`;
      expect(fs.readFileSync(path.join(originales, name)).equals(pdf), name).toBe(true);
      const signed = fs.readFileSync(path.join(firmados, name));
      // An incremental update of its own original, with exactly one intact signature.
      expect(signed.subarray(0, pdf.length).equals(pdf), name).toBe(true);
      const reports = verifyPdfSignatures(signed);
      expect(reports, name).toHaveLength(1);
      expect(reports[0]!.intact, name).toBe(true);
    }
    for (const name of names.slice(0, 5)) expect((await pdfsig(fs.readFileSync(path.join(firmados, name)))).validity).toEqual(['Signature is Valid.']);

    const db = new BetterSqlite3(path.join(dataDir, 'sello.db'), { readonly: true });
    try {
      expect(db.prepare('select state, count(*) as n from watch_ledger group by state').all()).toEqual([{ state: 'done', n: N }]);
      const requests = db.prepare("select status, count(*) as n from signing_requests where subject like 'Carpeta vigilada:%' group by status").all();
      expect(requests).toEqual([{ status: 'signed', n: N }]);
      const signatures = db.prepare("select s.state, count(*) as n from signing_signatures s join signing_requests r on r.id = s.request_id where r.subject like 'Carpeta vigilada:%' group by s.state").all();
      expect(signatures).toEqual([{ state: 'signed', n: N }]);
    } finally {
      db.close();
    }
  }, 150_000);
});
