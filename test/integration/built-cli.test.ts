/**
 * `npm run build` (scripts/build.mjs, issue 17 point 3): the bundles run with plain `node`, no
 * TypeScript compiler. The build goes into a temporary folder inside the project (the bundles
 * find better-sqlite3 and pkcs11js in its node_modules), and every command runs under
 * test/helpers/no-typescript.mjs, which fails on tsx or a .ts file and logs every module each
 * thread resolved: the worker threads must start from their own bundles.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent.js';
import { testPrincipal } from '../helpers/certificates.js';
import { repoRoot } from '../helpers/cli.js';
import { fiscalHeaders } from '../helpers/documents.js';
import { startFakeSri, type FakeSri } from '../helpers/fake-sri/index.js';
import { issuerBody, validInvoiceBody } from '../helpers/invoices.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { pdfsig } from '../helpers/pdf-tools.js';

const guard = path.join(repoRoot, 'test/helpers/no-typescript.mjs');
const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

let out: string;
let work: string;
let guardLog: string;

/** The environment of every built command: no loader inherited, the guard's log. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, NODE_OPTIONS: '', SELLO_LOG_LEVEL: 'warn', SELLO_GUARD_LOG: guardLog, ...extra };
}

function built(args: string[], extra: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, ['--import', guard, path.join(out, 'cli.mjs'), ...args], { encoding: 'utf8', env: env(extra), input: '', timeout: 60_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

function builtJson<T>(args: string[]): T {
  const res = built([...args, '--json']);
  if (res.status !== 0) throw new Error(`sello ${args.join(' ')} → ${res.status}: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split('\n')[0]!) as T;
}

interface Serving {
  child: ChildProcess;
  baseUrl: string;
  adminUrl: string;
  exited: Promise<number | null>;
}

async function serveBuilt(dataDir: string, extra: NodeJS.ProcessEnv = {}): Promise<Serving> {
  const child = spawn(process.execPath, ['--import', guard, path.join(out, 'cli.mjs'), 'serve', '--port', '0', '--json', '--data-dir', dataDir], {
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const first = await Promise.race([
    new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
    exited.then((code) => {
      throw new Error(`sello serve exited ${code}: ${stderr}`);
    }),
  ]);
  const { base_url, admin_url } = JSON.parse(first) as { base_url: string; admin_url: string };
  return { child, baseUrl: base_url, adminUrl: admin_url, exited };
}

/** The modules resolved so far, by every process and thread run under the guard. */
const resolved = (): string[] => (fs.existsSync(guardLog) ? fs.readFileSync(guardLog, 'utf8').trim().split('\n') : []);
// Real paths: Node resolves modules through symbolic links (a node_modules that is one, say).
const builtFile = (name: string) => pathToFileURL(fs.realpathSync(path.join(out, name))).href;

beforeAll(() => {
  fs.mkdirSync(path.join(repoRoot, 'node_modules/.cache'), { recursive: true });
  out = fs.mkdtempSync(path.join(repoRoot, 'node_modules/.cache/sello-built-cli-'));
  work = tempDir('sello-built-cli-');
  guardLog = path.join(work, 'resolved.txt');
  const res = spawnSync('npm', ['run', 'build', '--', '--outdir', out], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });
  if (res.status !== 0) throw new Error(`npm run build → ${res.status}: ${res.stdout}\n${res.stderr}`);
}, 200_000);

afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('npm run build', () => {
  it('writes the entry points, the thread bundles and the stamp, and no TypeScript', () => {
    const files = fs.readdirSync(out);
    for (const f of ['cli.mjs', 'main.mjs', 'pdf-thread.mjs', 'ride-thread.mjs', 'sri-answer-thread.mjs', 'build-stamp.json']) expect(files).toContain(f);
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    const stamp = JSON.parse(fs.readFileSync(path.join(out, 'build-stamp.json'), 'utf8')) as { entries: string[]; files: string[] };
    expect(stamp.entries).toEqual(expect.arrayContaining(['cli', 'main', 'pdf-thread', 'ride-thread', 'sri-answer-thread']));
    for (const entry of stamp.entries) expect(files).toContain(`${entry}.mjs`);
    expect(stamp.files.every((f) => files.includes(f))).toBe(true);
    // The native modules and electron stay in node_modules.
    const code = files.filter((f) => f.endsWith('.mjs')).map((f) => fs.readFileSync(path.join(out, f), 'utf8')).join('\n');
    expect(code).toMatch(/from ?"better-sqlite3"/); // the bundles are whitespace-minified
    expect(code).not.toContain('class Database {'); // better-sqlite3's own code
  });

  it('refuses an output folder outside the project, whose bundles could not find node_modules', () => {
    const res = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs'), '--outdir', path.join(work, 'fuera')], { encoding: 'utf8' });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/dentro de/);
  });
});

describe('the built CLI under plain node', () => {
  it('the guard itself fails on the sources, which need tsx', () => {
    const res = spawnSync(process.execPath, ['--import', guard, path.join(repoRoot, 'bin/sello.mjs'), '--version'], { encoding: 'utf8', env: env({ SELLO_FROM_SOURCE: '1' }) });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('no-typescript: tsx');
  });

  it('prints the version of package.json, read from the project', () => {
    const res = built(['--version']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(version);
    expect(resolved()).toContain(builtFile('cli.mjs'));
  });

  it('serves the API with a key made by `keys create`, and the /ui page, from the project’s renderer/', async () => {
    const dir = path.join(work, 'serve');
    const before = resolved().length;
    builtJson(['books', 'create', 'acme', '--tenant', 'oficina', '--data-dir', dir]);
    const { key } = builtJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'acme', '--data-dir', dir]);
    const serve = await serveBuilt(dir);
    try {
      const list = await fetch(`${serve.baseUrl}/api/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/vnd.api+json' } });
      expect(list.status, await list.clone().text()).toBe(200);
      expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);

      const openapi = (await (await fetch(`${serve.baseUrl}/api/v1/openapi`)).json()) as { info: { version: string } };
      expect(openapi.info.version).toBe(version);

      const login = await fetch(serve.adminUrl, { redirect: 'manual' });
      expect(login.status).toBe(303);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(`${serve.baseUrl}/ui/`, { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(fs.readFileSync(path.join(repoRoot, 'renderer/index.html'), 'utf8'));
      const css = await fetch(`${serve.baseUrl}/ui/app.css`);
      expect(css.status).toBe(200);
      expect(css.headers.get('content-type')).toMatch(/text\/css/);
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect(await serve.exited).toBe(0);
    // Nothing of the sources: only the bundles and node_modules.
    const outside = resolved()
      .slice(before)
      .filter((u) => u.startsWith('file:') && !u.startsWith(pathToFileURL(out).href) && !u.includes('/node_modules/'));
    expect(outside).toEqual([]);
  });

  it('signs a PDF on the PDF thread, started from its own bundle', async () => {
    const dir = path.join(work, 'sign');
    const principal = path.join(work, 'titular.json');
    fs.writeFileSync(principal, JSON.stringify(testPrincipal));
    const cert = builtJson<{ id: string }>(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', principal, '--data-dir', dir]);
    const input = path.join(work, 'factura.pdf');
    const output = path.join(work, 'factura-firmada.pdf');
    fs.writeFileSync(input, await makePdf());
    const before = resolved().length;
    const res = built(['sign', input, '--cert', cert.id, '--page', '1', '--x', '40', '--y', '40', '--out', output, '--data-dir', dir]);
    expect(res.status, res.stderr).toBe(0);
    expect((await pdfsig(fs.readFileSync(output))).validity).toEqual(['Signature is Valid.']);
    expect(resolved().slice(before)).toContain(builtFile('pdf-thread.mjs'));
  });

  describe('the RIDE thread', () => {
    let sri: FakeSri;
    beforeAll(async () => {
      sri = await startFakeSri();
    });
    afterAll(async () => {
      await sri?.close();
    });

    it('renders an issued invoice’s RIDE from its own bundle', async () => {
      const dir = path.join(work, 'ride');
      const principal = path.join(work, 'titular-ride.json');
      fs.writeFileSync(principal, JSON.stringify(testPrincipal));
      builtJson(['books', 'create', 'acme', '--tenant', 'oficina', '--data-dir', dir]);
      const { key } = builtJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'test', '--book', 'acme', '--data-dir', dir]);
      const { key: apiKey } = builtJson<{ key: string }>(['keys', 'create', '--family', 'a', '--env', 'test', '--data-dir', dir]);
      const cert = builtJson<{ id: string }>(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', principal, '--data-dir', dir]);
      const before = resolved().length;
      const serve = await serveBuilt(dir, { SELLO_SRI_TEST_URL: sri.baseUrl, SELLO_DELIVERY_TIME_SCALE: '0.001' });
      try {
        const issuer = await fetch(`${serve.baseUrl}/api/v1/issuer`, { method: 'PUT', headers: fiscalHeaders(key), body: JSON.stringify(issuerBody(cert.id)) });
        expect(issuer.status, await issuer.clone().text()).toBe(200);
        const posted = await fetch(`${serve.baseUrl}/api/v1/invoices`, { method: 'POST', headers: fiscalHeaders(key), body: JSON.stringify(validInvoiceBody('ERP-1')) });
        const doc = ((await posted.json()) as { data: { id: string; access_key: string } }).data;
        expect(posted.status).toBe(201);
        // Signed (xml-crypto, bundled) and authorized by the fake SRI, which checks the XSD and the XAdES signature.
        let status = '';
        for (let i = 0; i < 200 && status !== 'authorized'; i++) {
          const got = await fetch(`${serve.baseUrl}/api/v1/invoices/${doc.id}`, { headers: fiscalHeaders(key) });
          status = ((await got.json()) as { data: { status: string } }).data.status;
          if (status === 'rejected' || status === 'failed') break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(status).toBe('authorized');
        const ride = await fetch(`${serve.baseUrl}/d/${doc.id}`, { headers: { 'X-Api-Key': apiKey } });
        expect(ride.status).toBe(200);
        const pdf = path.join(work, 'ride.pdf');
        fs.writeFileSync(pdf, Buffer.from(await ride.arrayBuffer()));
        const text = spawnSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).stdout;
        expect(text.replace(/\s+/g, '')).toContain(doc.access_key);
        expect(text).toMatch(/AUTORIZ/);
      } finally {
        serve.child.kill('SIGTERM');
      }
      expect(await serve.exited).toBe(0);
      expect(resolved().slice(before)).toContain(builtFile('ride-thread.mjs'));
      // The SRI's answers were read on their own thread's bundle.
      expect(resolved().slice(before)).toContain(builtFile('sri-answer-thread.mjs'));
    });
  });
});
