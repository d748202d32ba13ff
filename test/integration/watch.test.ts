/**
 * Watched folders end to end (CONTRACT §13): real folder watching on temp folders, real files,
 * real signatures checked with pdfsig and core/pdf.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdfSignatures } from '../../core/pdf/index.js';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { addCertificate } from '../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` distinct one-page PDFs (a different line of text each). */
export async function distinctPdfs(n: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([595, 842]).drawText(`Factura ${i}`, { x: 300, y: 400, size: 10, font });
    doc.setTitle(`Factura ${i}`);
    out.push(Buffer.from(await doc.save()));
  }
  return out;
}

const pdfsIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.pdf')) : []);

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timeout: ${what}`);
    await sleep(50);
  }
}

let pki: TestPki;
let agent: TestAgent;
let certId: string;
const admin = (p: string, init: RequestInit = {}) =>
  agent.fetch(p, { ...init, headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

async function addWatched(body: Record<string, unknown> = {}): Promise<{ dir: string; id: string }> {
  const dir = tempDir('sello-watch-');
  const res = await admin('/admin/api/folders', { method: 'POST', body: JSON.stringify({ folder: dir, certificate: certId, ...body }) });
  const json = (await res.json()) as { data: { id: string } };
  expect(res.status, JSON.stringify(json)).toBe(201);
  return { dir, id: json.data.id };
}

beforeAll(async () => {
  process.env.SELLO_WATCH_STABLE_MS = '300';
  process.env.SELLO_WATCH_RELOAD_MS = '200';
  pki = await createTestPki();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath});
  certId = addCertificate(agent, pki, { environment: 'test' }).id;
});

afterAll(async () => {
  await agent?.close();
  await pki?.cleanup();
});

describe('watched folders: profiles', () => {
  it('refuses a folder that does not exist, an unknown certificate and a bad page, storing nothing', async () => {
    const bad = [
      { folder: '/no/existe', certificate: certId },
      { folder: tempDir(), certificate: 'nope' },
      { folder: tempDir(), certificate: certId, page: 0 },
      { folder: tempDir(), certificate: certId, size: 'xl' },
    ];
    for (const body of bad) {
      const res = await admin('/admin/api/folders', { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBeTruthy();
    }
    const list = (await (await admin('/admin/api/folders')).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });
});

describe('watched folders: signing', () => {
  it('signs 300 PDFs copied at once, each once, and moves the originals', async () => {
    const { dir, id } = await addWatched();
    const pdfs = await distinctPdfs(300);
    await Promise.all(pdfs.map((pdf, i) => fs.promises.writeFile(path.join(dir, `factura-${i}.pdf`), pdf)));
    await waitFor(() => pdfsIn(path.join(dir, 'originales')).length === 300, 120_000, '300 originals moved');
    const signed = pdfsIn(path.join(dir, 'firmados'));
    expect(signed).toHaveLength(300);
    expect(pdfsIn(path.join(dir, 'errores'))).toEqual([]);
    expect(pdfsIn(dir)).toEqual([]);
    for (const name of signed) {
      const reports = verifyPdfSignatures(fs.readFileSync(path.join(dir, 'firmados', name)));
      expect(reports).toHaveLength(1);
      expect(reports[0]!.intact).toBe(true);
    }
    for (const name of signed.slice(0, 20)) {
      const out = await pdfsig(fs.readFileSync(path.join(dir, 'firmados', name)));
      expect(JSON.stringify(out)).toContain('Signature is Valid');
    }
    const ledger = agent.store.sqlite.prepare("select state, count(*) as n from watch_ledger where folder_id = ? group by state").all(id);
    expect(ledger).toEqual([{ state: 'done', n: 300 }]);
    const requests = agent.store.sqlite.prepare("select count(*) as n from signing_requests where subject like 'Carpeta vigilada:%' and status = 'signed'").get() as { n: number };
    expect(requests.n).toBeGreaterThanOrEqual(300);
    const list = (await (await admin('/admin/api/folders')).json()) as { data: Array<{ id: string; done: number }> };
    expect(list.data.find((f) => f.id === id)!.done).toBe(300);
  }, 180_000);

  it('sends a corrupted and an encrypted PDF to errores/ with an explanation; the others are signed', async () => {
    const { dir } = await addWatched();
    const [good1, good2, base] = await distinctPdfs(3);
    const plain = path.join(tempDir(), 'plain.pdf');
    fs.writeFileSync(plain, base!);
    const encrypted = path.join(path.dirname(plain), 'enc.pdf');
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', plain, encrypted]);
    const corrupted = Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog garbage'), Buffer.alloc(500, 0x41), Buffer.from('\nstartxref\n99999\n%%EOF\n')]);
    fs.writeFileSync(path.join(dir, 'bueno-1.pdf'), good1!);
    fs.writeFileSync(path.join(dir, 'danado.pdf'), corrupted);
    fs.copyFileSync(encrypted, path.join(dir, 'con-clave.pdf'));
    fs.writeFileSync(path.join(dir, 'bueno-2.pdf'), good2!);
    fs.writeFileSync(path.join(dir, 'notas.txt'), 'no es un pdf');
    fs.writeFileSync(path.join(dir, 'descarga.pdf.crdownload'), good1!);
    await waitFor(() => pdfsIn(path.join(dir, 'errores')).length === 2 && pdfsIn(path.join(dir, 'firmados')).length === 2, 30_000, 'two errors, two signed');
    const errores = path.join(dir, 'errores');
    expect(fs.readFileSync(path.join(errores, 'danado.pdf.error.txt'), 'utf8')).toMatch(/dañado/);
    expect(fs.readFileSync(path.join(errores, 'con-clave.pdf.error.txt'), 'utf8')).toMatch(/contraseña/);
    expect(pdfsIn(path.join(dir, 'firmados')).sort()).toEqual(['bueno-1.pdf', 'bueno-2.pdf']);
    await sleep(800);
    expect(fs.existsSync(path.join(dir, 'notas.txt'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'descarga.pdf.crdownload'))).toBe(true);
  }, 60_000);

  it('signs a PDF written slowly in chunks over 3 s once, after it is complete', async () => {
    const { dir } = await addWatched();
    const [pdf] = await distinctPdfs(1);
    const file = path.join(dir, 'lento.pdf');
    const chunks = 8;
    const step = Math.ceil(pdf!.length / chunks);
    const fd = fs.openSync(file, 'w');
    let lastWrite = 0;
    for (let i = 0; i < chunks; i++) {
      fs.writeSync(fd, pdf!.subarray(i * step, (i + 1) * step));
      lastWrite = Date.now();
      // Gaps longer than the stable window: only the missing %%EOF keeps it waiting.
      if (i < chunks - 1) await sleep(i % 2 === 0 ? 450 : 300);
    }
    fs.closeSync(fd);
    await waitFor(() => pdfsIn(path.join(dir, 'firmados')).length === 1, 20_000, 'signed copy');
    const signedFile = path.join(dir, 'firmados', 'lento.pdf');
    expect(fs.statSync(signedFile).mtimeMs).toBeGreaterThanOrEqual(lastWrite - 5);
    expect(verifyPdfSignatures(fs.readFileSync(signedFile))).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'originales', 'lento.pdf')).equals(pdf!)).toBe(true);
    expect(pdfsIn(path.join(dir, 'errores'))).toEqual([]);
  }, 30_000);

  it('keeps a second copy of the same content in originales/ with a note, unsigned', async () => {
    const { dir } = await addWatched();
    const [pdf] = await distinctPdfs(1);
    fs.writeFileSync(path.join(dir, 'a.pdf'), pdf!);
    await waitFor(() => pdfsIn(path.join(dir, 'firmados')).length === 1, 20_000, 'first signed');
    fs.writeFileSync(path.join(dir, 'copia.pdf'), pdf!);
    await waitFor(() => fs.existsSync(path.join(dir, 'originales', 'copia.pdf.nota.txt')), 20_000, 'duplicate note');
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['a.pdf']);
  }, 30_000);

  it('signs a file dropped while another program holds the store locked, once the lock is gone, without a restart', async () => {
    const { dir, id } = await addWatched();
    const [, , , pdf] = await distinctPdfs(4);
    await sleep(300); // the folder is being watched
    // Another program's write transaction, far longer than Sello's busy timeout (1 s): the
    // file settles meanwhile and its ledger write fails with storage_busy.
    const other = new Database(path.join(agent.dataDir, 'sello.db'));
    try {
      other.exec('BEGIN EXCLUSIVE');
      fs.writeFileSync(path.join(dir, 'bloqueo.pdf'), pdf!);
      await sleep(3_000);
      expect(pdfsIn(path.join(dir, 'firmados'))).toEqual([]);
      expect(pdfsIn(dir)).toEqual(['bloqueo.pdf']);
      other.exec('COMMIT');
    } finally {
      other.close();
    }
    const rowStates = () => agent.store.sqlite.prepare('select state from watch_ledger where folder_id = ?').all(id);
    // The end: the original moved, then its row marked done (a commit a moment after the move).
    await waitFor(() => pdfsIn(path.join(dir, 'originales')).length === 1 && JSON.stringify(rowStates()) === '[{"state":"done"}]', 15_000, 'signed after the lock, without a restart');
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['bloqueo.pdf']);
    expect(verifyPdfSignatures(fs.readFileSync(path.join(dir, 'firmados', 'bloqueo.pdf')))).toHaveLength(1);
    expect(pdfsIn(path.join(dir, 'errores'))).toEqual([]);
    expect(rowStates()).toEqual([{ state: 'done' }]);
  }, 30_000);
});
