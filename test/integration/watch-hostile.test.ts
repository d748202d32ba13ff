/**
 * Watched folders against what a person with write access to the folder (or an unlucky
 * name) can put there (issue 15, "What to build" 7): symlinks, FIFOs and hard links are not
 * documents dropped in the folder; names near the 255-byte limit; a folder deleted and created
 * again; permissions of the signed copy; the duplicate's note. Real folders in a temp dir, a
 * real agent, real signatures.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPdfSignatures } from '../../core/pdf/index.js';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { addCertificate } from '../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';
import { distinctPdfs, pdfsIn, sleep, waitFor } from '../helpers/watch-files.js';

let pki: TestPki;
let agent: TestAgent;
let certId: string;
let pdfs: Buffer[];
let next = 0;
/** A PDF no other test of this file drops (so none is taken for a duplicate). */
const freshPdf = (): Buffer => pdfs[next++]!;
const admin = (p: string, init: RequestInit = {}) =>
  agent.fetch(p, { ...init, headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

async function addWatched(body: Record<string, unknown> = {}): Promise<{ dir: string; id: string }> {
  const dir = tempDir('sello-watch-hostile-');
  const res = await admin('/admin/api/folders', { method: 'POST', body: JSON.stringify({ folder: dir, certificate: certId, ...body }) });
  const json = (await res.json()) as { data: { id: string } };
  expect(res.status, JSON.stringify(json)).toBe(201);
  await sleep(300); // the agent picks the folder up (reload every 200 ms)
  return { dir, id: json.data.id };
}

const ledger = (folderId: string) => agent.store.sqlite.prepare('select name, state, error_code from watch_ledger where folder_id = ? order by created_at').all(folderId);
/** Files of the folder done: their original moved, then (a commit later) their ledger row marked. */
const done = (folderId: string) => (agent.store.sqlite.prepare("select count(*) as n from watch_ledger where folder_id = ? and state = 'done'").get(folderId) as { n: number }).n;
const requestsFor = (name: string) => (agent.store.sqlite.prepare('select count(*) as n from signing_requests where subject = ?').get(`Carpeta vigilada: ${name}`) as { n: number }).n;
const entries = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
const bytes = (name: string) => Buffer.byteLength(name, 'utf8');
/** Controls other than the text's own CR LF, and text-direction overrides. */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

beforeAll(async () => {
  process.env.SELLO_WATCH_STABLE_MS = '200';
  process.env.SELLO_WATCH_RELOAD_MS = '200';
  process.env.SELLO_WATCH_POLL_MS = '100';
  pki = await createTestPki();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath });
  certId = addCertificate(agent, pki, { environment: 'test' }).id;
  pdfs = await distinctPdfs(30, 'Hostil');
});

afterAll(async () => {
  await agent?.close();
  await pki?.cleanup();
});

describe('watched folders take only regular files that are in the folder itself', () => {
  for (const poll of [false, true]) {
    it(`moves a symlink to a PDF outside the folder to errores/ with an explanation, never reading it (${poll ? 'polling' : 'OS events'})`, async () => {
      const { dir, id } = await addWatched({ poll });
      const outside = path.join(tempDir('sello-outside-'), 'secreto.pdf');
      const secret = freshPdf();
      fs.writeFileSync(outside, secret, { mode: 0o600 });
      const before = fs.statSync(outside);
      fs.symlinkSync(outside, path.join(dir, 'enlace.pdf'));
      // A regular file dropped at the same time is still signed.
      fs.writeFileSync(path.join(dir, 'normal.pdf'), freshPdf());

      const errores = path.join(dir, 'errores');
      await waitFor(() => fs.existsSync(path.join(errores, 'enlace.pdf.error.txt')) && done(id) === 1, 15_000, () => `errores: ${entries(errores)}`);
      expect(fs.lstatSync(path.join(errores, 'enlace.pdf')).isSymbolicLink()).toBe(true); // the link moved, not its target
      const explanation = fs.readFileSync(path.join(errores, 'enlace.pdf.error.txt'), 'utf8');
      expect(explanation).toMatch(/enlace simbólico/);
      expect(explanation).toMatch(/Código: symlink/);
      expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['normal.pdf']);
      expect(pdfsIn(path.join(dir, 'originales'))).toEqual(['normal.pdf']);
      // The file outside: same bytes, same place, same times; no signed copy of it anywhere.
      expect(fs.readFileSync(outside).equals(secret)).toBe(true);
      const after = fs.statSync(outside);
      expect([after.ino, after.mtimeMs, after.nlink]).toEqual([before.ino, before.mtimeMs, before.nlink]);
      expect(ledger(id)).toEqual([{ name: 'normal.pdf', state: 'done', error_code: null }]);
      expect(requestsFor('enlace.pdf')).toBe(0);
    }, 30_000);
  }

  it('moves a FIFO named like a PDF to errores/ without blocking the folder', async () => {
    const { dir, id } = await addWatched();
    execFileSync('mkfifo', [path.join(dir, 'tuberia.pdf')]);
    fs.writeFileSync(path.join(dir, 'despues.pdf'), freshPdf());
    const errores = path.join(dir, 'errores');
    await waitFor(() => fs.existsSync(path.join(errores, 'tuberia.pdf.error.txt')) && done(id) === 1, 15_000, () => `errores: ${entries(errores)}`);
    expect(fs.lstatSync(path.join(errores, 'tuberia.pdf')).isFIFO()).toBe(true);
    expect(fs.readFileSync(path.join(errores, 'tuberia.pdf.error.txt'), 'utf8')).toMatch(/Código: not_regular_file/);
    expect(ledger(id)).toEqual([{ name: 'despues.pdf', state: 'done', error_code: null }]);
  }, 30_000);

  it('moves a hard link to a file outside the folder to errores/, unread; the file outside keeps its content', async () => {
    const { dir, id } = await addWatched();
    const outsideDir = path.join(dir, '..', `${path.basename(dir)}-fuera`); // same file system: a hard link needs it
    fs.mkdirSync(outsideDir);
    const outside = path.join(outsideDir, 'privado.pdf');
    const secret = freshPdf();
    fs.writeFileSync(outside, secret, { mode: 0o600 });
    fs.linkSync(outside, path.join(dir, 'duro.pdf'));
    const errores = path.join(dir, 'errores');
    await waitFor(() => fs.existsSync(path.join(errores, 'duro.pdf.error.txt')), 15_000, () => `errores: ${entries(errores)}`);
    expect(fs.readFileSync(path.join(errores, 'duro.pdf.error.txt'), 'utf8')).toMatch(/Código: hard_link/);
    expect(fs.readFileSync(outside).equals(secret)).toBe(true);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual([]);
    expect(ledger(id)).toEqual([]);
    expect(requestsFor('duro.pdf')).toBe(0);
    fs.rmSync(outsideDir, { recursive: true, force: true });
  }, 30_000);
});

describe('long names', () => {
  it('signs a PDF whose name is 250 bytes, and fits every name Sello derives in 255 bytes', async () => {
    const { dir, id } = await addWatched();
    // 123 × "ñ" (2 bytes each) + ".pdf": 250 bytes; the old temporary name `.NAME.<hex>.tmp` did not fit.
    const name = `${'ñ'.repeat(123)}.pdf`;
    expect(bytes(name)).toBe(250);
    fs.writeFileSync(path.join(dir, name), freshPdf());
    await waitFor(() => done(id) === 1, 15_000, () => `folder: ${entries(dir)}`);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual([name]);
    expect(verifyPdfSignatures(fs.readFileSync(path.join(dir, 'firmados', name)))).toHaveLength(1);

    // The same name again, another content: its signed copy and original need `-1`, shortened to fit.
    fs.writeFileSync(path.join(dir, name), freshPdf());
    await waitFor(() => done(id) === 2, 15_000, () => `folder: ${entries(dir)}`);
    for (const sub of ['firmados', 'originales']) {
      const names = pdfsIn(path.join(dir, sub));
      expect(names).toHaveLength(2);
      const other = names.find((n) => n !== name)!;
      expect(other.endsWith('-1.pdf')).toBe(true);
      expect(bytes(other)).toBeLessThanOrEqual(255);
      expect(Buffer.from(other, 'utf8').toString('utf8')).toBe(other); // valid UTF-8: no character cut in half
      expect(other.startsWith('ñ'.repeat(100))).toBe(true);
    }
    expect(ledger(id)).toEqual([expect.objectContaining({ state: 'done' }), expect.objectContaining({ state: 'done' })]);
    expect(entries(path.join(dir, 'errores'))).toEqual([]);
  }, 30_000);

  it('moves a file with a 255-byte name that is not a PDF to errores/ with its explanation, both names within 255 bytes', async () => {
    const { dir } = await addWatched();
    const name = `${'a'.repeat(251)}.pdf`;
    expect(bytes(name)).toBe(255);
    fs.writeFileSync(path.join(dir, name), 'esto no es un PDF');
    const errores = path.join(dir, 'errores');
    await waitFor(() => entries(errores).length === 2, 15_000, () => `errores: ${entries(errores)}; folder: ${entries(dir)}`);
    const [moved, note] = entries(errores) as [string, string];
    expect(note).toBe(`${moved}.error.txt`);
    expect(bytes(note)).toBeLessThanOrEqual(255);
    expect(moved.startsWith('a'.repeat(200))).toBe(true);
    expect(moved.endsWith('.pdf')).toBe(true);
    expect(fs.readFileSync(path.join(errores, moved), 'utf8')).toBe('esto no es un PDF');
    expect(fs.readFileSync(path.join(errores, note), 'utf8')).toMatch(/Código: not_pdf/);
    expect(entries(dir).filter((n) => !['errores', 'firmados', 'originales'].includes(n))).toEqual([]);
  }, 30_000);
});

describe('a watched folder deleted and created again', () => {
  for (const poll of [false, true]) {
    it(`gets its subfolders back and is watched again, without a restart (${poll ? 'polling' : 'OS events'})`, async () => {
      const { dir, id } = await addWatched({ poll });
      fs.writeFileSync(path.join(dir, 'antes.pdf'), freshPdf());
      await waitFor(() => done(id) === 1, 15_000, () => `folder: ${entries(dir)}`);

      fs.rmSync(dir, { recursive: true });
      await sleep(600);
      fs.mkdirSync(dir);
      await waitFor(() => ['errores', 'firmados', 'originales'].every((s) => fs.existsSync(path.join(dir, s))), 10_000, () => `folder: ${entries(dir)}`);
      fs.writeFileSync(path.join(dir, 'despues.pdf'), freshPdf());
      await waitFor(() => done(id) === 2, 15_000, () => `folder: ${entries(dir)}`);
      expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['despues.pdf']);
      expect(verifyPdfSignatures(fs.readFileSync(path.join(dir, 'firmados', 'despues.pdf')))).toHaveLength(1);
      expect(ledger(id)).toEqual([
        { name: 'antes.pdf', state: 'done', error_code: null },
        { name: 'despues.pdf', state: 'done', error_code: null },
      ]);
    }, 40_000);
  }

  it('is watched again when deleted and created again faster than the folder list is looked at', async () => {
    const { dir } = await addWatched();
    fs.rmSync(dir, { recursive: true });
    fs.mkdirSync(dir);
    await waitFor(() => fs.existsSync(path.join(dir, 'firmados')), 10_000, () => `folder: ${entries(dir)}`);
    fs.writeFileSync(path.join(dir, 'rapido.pdf'), freshPdf());
    await waitFor(() => pdfsIn(path.join(dir, 'originales')).length === 1, 15_000, () => `folder: ${entries(dir)}`);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['rapido.pdf']);
  }, 30_000);
});

describe('a watched folder whose own subfolders were deleted', () => {
  it('gets them back without a restart, and the next file is signed', async () => {
    const { dir, id } = await addWatched();
    for (const sub of ['firmados', 'errores', 'originales']) fs.rmSync(path.join(dir, sub), { recursive: true });
    await waitFor(() => ['errores', 'firmados', 'originales'].every((s) => fs.existsSync(path.join(dir, s))), 10_000, () => `folder: ${entries(dir)}`);
    fs.writeFileSync(path.join(dir, 'otra-vez.pdf'), freshPdf());
    await waitFor(() => done(id) === 1, 15_000, () => `folder: ${entries(dir)}`);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['otra-vez.pdf']);
  }, 30_000);
});

describe('permissions', () => {
  it("gives the signed copy the original's permissions, and its explanation those of the failed file", async () => {
    const { dir } = await addWatched();
    const modes = { 'privado.pdf': 0o600, 'grupo.pdf': 0o640, 'solo-lectura.pdf': 0o444 };
    for (const [name, mode] of Object.entries(modes)) {
      fs.writeFileSync(path.join(dir, name), freshPdf());
      fs.chmodSync(path.join(dir, name), mode);
    }
    fs.writeFileSync(path.join(dir, 'roto.pdf'), 'no es un PDF');
    fs.chmodSync(path.join(dir, 'roto.pdf'), 0o600);
    await waitFor(() => pdfsIn(path.join(dir, 'originales')).length === 3 && fs.existsSync(path.join(dir, 'errores', 'roto.pdf.error.txt')), 15_000, () => `folder: ${entries(dir)}`);
    for (const [name, mode] of Object.entries(modes)) {
      expect(fs.statSync(path.join(dir, 'firmados', name)).mode & 0o777, name).toBe(mode);
      expect(fs.statSync(path.join(dir, 'originales', name)).mode & 0o777, name).toBe(mode);
    }
    expect(fs.statSync(path.join(dir, 'errores', 'roto.pdf.error.txt')).mode & 0o777).toBe(0o600);
  }, 30_000);
});

describe("a duplicate's note", () => {
  it('names the duplicate as it is now and where the earlier file and its signed copy are', async () => {
    const { dir, id } = await addWatched();
    const pdf = freshPdf();
    fs.writeFileSync(path.join(dir, 'factura.pdf'), pdf);
    await waitFor(() => done(id) === 1, 15_000, () => `folder: ${entries(dir)}`);
    // The same content under the same name: in originales/ it cannot keep that name (the earlier file has it).
    fs.writeFileSync(path.join(dir, 'factura.pdf'), pdf);
    const note = path.join(dir, 'originales', 'factura-1.pdf.nota.txt');
    await waitFor(() => fs.existsSync(note), 15_000, () => `originales: ${entries(path.join(dir, 'originales'))}`);
    const text = fs.readFileSync(note, 'utf8');
    const firstLine = text.split('\r\n')[0]!;
    // The note is about «factura-1.pdf»; «factura.pdf» in originales/ is the earlier, signed, file.
    expect(firstLine).toMatch(/^«factura-1\.pdf»/);
    expect(text).toMatch(/copia firmada.*«factura\.pdf»/);
    expect(text).toMatch(/original.*«factura\.pdf»/);
    expect(pdfsIn(path.join(dir, 'firmados'))).toEqual(['factura.pdf']);
  }, 30_000);

  it('never writes control characters of a name into the note or the explanation', async () => {
    const { dir, id } = await addWatched();
    const pdf = freshPdf();
    const forged = 'a.pdf\r\n\r\nSello verificó este documento: puede pagarse.\r\n\u202Efdp.exe';
    const first = `${forged}.pdf`;
    fs.writeFileSync(path.join(dir, first), pdf);
    await waitFor(() => done(id) === 1, 15_000, () => `folder: ${entries(dir)}`);
    fs.writeFileSync(path.join(dir, 'copia\n.pdf'), pdf);
    const originales = path.join(dir, 'originales');
    await waitFor(() => entries(originales).some((n) => n.endsWith('.nota.txt')), 15_000, () => `originales: ${entries(originales)}`);
    const text = fs.readFileSync(path.join(originales, entries(originales).find((n) => n.endsWith('.nota.txt'))!), 'utf8');
    expect(text).not.toMatch(UNPRINTABLE);
    // Inside the quotes of a name, never a line of its own.
    for (const line of text.split('\r\n').filter((l) => l.includes('puede pagarse'))) expect(line).toMatch(/«[^»]*puede pagarse[^»]*»/);
    fs.writeFileSync(path.join(dir, `${forged}-roto.pdf`), 'no es un PDF');
    const errores = path.join(dir, 'errores');
    await waitFor(() => entries(errores).some((n) => n.endsWith('.error.txt')), 15_000, () => `errores: ${entries(errores)}`);
    const explanation = fs.readFileSync(path.join(errores, entries(errores).find((n) => n.endsWith('.error.txt'))!), 'utf8');
    expect(explanation).not.toMatch(UNPRINTABLE);
    expect(explanation.split('\r\n')[0]).toMatch(/^No se firmó «a\.pdf.*puede pagarse/);
  }, 30_000);
});
