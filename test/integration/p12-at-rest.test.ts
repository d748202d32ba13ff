/**
 * The `.p12` sealed at rest (issue 15, "What to build" 8): after an import, the store's files
 * hold neither the `.p12` nor anything that opens without `secret.key`; signing with it still
 * works; a store written by an earlier version (the `.p12` in clear) is sealed when Sello
 * starts, and still signs. Real `sello` commands, real SQLite files, the raw bytes searched.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../core/db/migrations/index.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import { tempDir } from '../helpers/agent.js';
import { sello, selloJson, startServe } from '../helpers/cli.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';
import { distinctPdfs } from '../helpers/watch-files.js';

const PASSWORD = 'clave-del-p12';
let pki: TestPki;
let work: string;
let p12File: string;
let p12: Buffer;

beforeAll(async () => {
  pki = await createTestPki();
  work = tempDir('sello-p12-rest-');
  const key = path.join(work, 'k.pem');
  const cert = path.join(work, 'c.pem');
  p12File = path.join(work, 'firma.p12');
  fs.writeFileSync(key, pki.leaf.privateKeyPem);
  fs.writeFileSync(cert, pki.leaf.certificatePem);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-out', p12File, '-passout', `pass:${PASSWORD}`]);
  p12 = fs.readFileSync(p12File);
});

afterAll(async () => {
  fs.rmSync(work, { recursive: true, force: true });
  await pki.cleanup();
});

/** Slices of the `.p12` spread over the whole file (its encrypted key and certificates, its MAC): none may be in the store. */
function p12Slices(): Buffer[] {
  const slices: Buffer[] = [];
  for (let at = 0; at + 32 <= p12.length; at += 61) slices.push(p12.subarray(at, at + 32));
  slices.push(p12.subarray(p12.length - 32));
  return slices;
}

/** The raw bytes of the store and its write-ahead log, as a backup would copy them. */
function storeBytes(dataDir: string): Buffer {
  const files = ['sello.db', 'sello.db-wal'].map((f) => path.join(dataDir, f)).filter((f) => fs.existsSync(f));
  return Buffer.concat(files.map((f) => fs.readFileSync(f)));
}

const foundSlices = (dataDir: string): number => {
  const raw = storeBytes(dataDir);
  return p12Slices().filter((s) => raw.includes(s)).length;
};

function p12Columns(dataDir: string): { p12: Buffer | null; p12_sealed: string | null } {
  const db = new BetterSqlite3(path.join(dataDir, 'sello.db'), { readonly: true });
  try {
    return db.prepare("select p12, p12_sealed from certificates where source = 'p12'").get() as { p12: Buffer | null; p12_sealed: string | null };
  } finally {
    db.close();
  }
}

async function signsWith(dataDir: string, certId: string): Promise<void> {
  const [pdf] = await distinctPdfs(1, 'P12');
  const input = path.join(work, `entrada-${crypto.randomUUID()}.pdf`);
  const out = `${input}.firmado.pdf`;
  fs.writeFileSync(input, pdf!);
  const res = sello(['sign', input, '--cert', certId, '--page', '1', '--x', '50', '--y', '50', '--out', out, '--data-dir', dataDir]);
  expect(res.status, res.stderr).toBe(0);
  expect((await pdfsig(fs.readFileSync(out))).validity).toEqual(['Signature is Valid.']);
}

describe('an imported .p12 at rest', () => {
  it('is sealed: the store holds neither the file nor anything that opens without secret.key, and it signs', async () => {
    const dataDir = path.join(work, 'nuevo');
    const imported = sello(['certs', 'import-p12', p12File, '--password-stdin', '--json', '--data-dir', dataDir], { input: `${PASSWORD}\n` });
    expect(imported.status, imported.stderr).toBe(0);
    const { id } = JSON.parse(imported.stdout) as { id: string };

    expect(p12Slices().length).toBeGreaterThan(20);
    expect(foundSlices(dataDir)).toBe(0);
    expect(storeBytes(dataDir).includes(Buffer.from(PASSWORD))).toBe(false);
    const columns = p12Columns(dataDir);
    expect(columns.p12).toBeNull();
    expect(columns.p12_sealed).toMatch(/^v1\./);
    // Only the data folder's key opens it: another key (another data folder) fails.
    expect(loadSecretBox(dataDir).openBytes(columns.p12_sealed!).equals(p12)).toBe(true);
    expect(() => loadSecretBox(tempDir()).openBytes(columns.p12_sealed!)).toThrow();

    await signsWith(dataDir, id);
  });

  it('kept in clear by an earlier version is sealed when Sello starts, nothing of it left in the file, and still signs', async () => {
    const dataDir = path.join(work, 'antiguo');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const id = await writeOldStore(dataDir);
    expect(foundSlices(dataDir)).toBeGreaterThan(20); // the search sees a .p12 in clear

    const serve = await startServe(dataDir);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);

    expect(foundSlices(dataDir)).toBe(0);
    const columns = p12Columns(dataDir);
    expect(columns.p12).toBeNull();
    expect(loadSecretBox(dataDir).openBytes(columns.p12_sealed!).equals(p12)).toBe(true);
    const listed = selloJson<{ id: string }>(['certs', 'list', '--data-dir', dataDir]);
    expect(listed.id).toBe(id);
    await signsWith(dataDir, id);
  });
});

/**
 * A store as the version before migration 0008 left it: migrated up to 0007, and a `.p12`
 * imported as that version did (the file in clear, its password sealed). Returns its id.
 */
async function writeOldStore(dataDir: string): Promise<string> {
  const sqlite = new BetterSqlite3(path.join(dataDir, 'sello.db'));
  sqlite.pragma('journal_mode = WAL');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    const all = await migrationProvider.getMigrations();
    const upTo0007 = { getMigrations: async (): Promise<Record<string, Migration>> => Object.fromEntries(Object.entries(all).filter(([name]) => name < '0008')) };
    const { error } = await new Migrator({ db, provider: upTo0007 }).migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    const id = crypto.randomUUID();
    const cert = new crypto.X509Certificate(pki.leaf.certificate);
    sqlite
      .prepare(
        `insert into certificates (id, environment, source, fingerprint, certificate, chain, subject_name, serial_number,
           not_before, not_after, p12, p12_password_sealed, created_at)
         values (?, 'live', 'p12', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        crypto.createHash('sha256').update(pki.leaf.certificate).digest('hex'),
        pki.leaf.certificate,
        JSON.stringify(pki.leaf.chain.map((c) => c.toString('base64'))),
        'ANA MARÍA PÉREZ LÓPEZ',
        cert.serialNumber.toUpperCase(),
        new Date(cert.validFrom).toISOString(),
        new Date(cert.validTo).toISOString(),
        p12,
        loadSecretBox(dataDir).seal(PASSWORD),
        new Date().toISOString(),
      );
    return id;
  } finally {
    await db.destroy();
  }
}
