import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockDataDir } from '../../core/data-dir.js';
import { jsonApiHeaders, tempDir } from '../helpers/agent.js';
import { testPrincipal } from '../helpers/certificates.js';
import { sello, selloJson, startServe } from '../helpers/cli.js';

describe('sello serve', () => {
  it('prints base and admin URLs as JSON, serves, and exits 0 on SIGTERM', async () => {
    const dir = tempDir();
    const serve = await startServe(dir);
    expect(serve.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serve.adminUrl.startsWith(`${serve.baseUrl}/ui/?token=`)).toBe(true);
    const res = await fetch(`${serve.baseUrl}/api/v1/openapi`);
    expect(res.status).toBe(200);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    // The lock went with the process (the file `sello.lock` stays, meaning nothing): the folder can be locked again.
    expect(() => lockDataDir(dir)()).not.toThrow();
  });

  it('keeps what was written across a restart, even after kill -9', async () => {
    const dir = tempDir();
    selloJson(['books', 'create', 'acme', '--tenant', 'oficina', '--data-dir', dir]);
    const { key } = selloJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'acme', '--data-dir', dir]);

    const first = await startServe(dir);
    const created = await fetch(`${first.baseUrl}/api/v1/webhook-endpoints`, {
      method: 'POST',
      headers: jsonApiHeaders(key),
      body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://erp.example/h', secret: 'un-secreto-largo' } } }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    first.child.kill('SIGKILL');
    await first.exited;

    // The lock left by the killed process must not stop the next start.
    const second = await startServe(dir);
    const got = await fetch(`${second.baseUrl}/api/v1/webhook-endpoints/${id}`, { headers: jsonApiHeaders(key) });
    expect(got.status).toBe(200);
    expect(((await got.json()) as { data: { attributes: { url: string } } }).data.attributes.url).toBe('https://erp.example/h');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('refuses a second agent on the same data folder with one clear line', async () => {
    const dir = tempDir();
    const first = await startServe(dir);
    const res = sello(['serve', '--port', '0', '--data-dir', dir]);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toMatch(/^sello: Otro proceso de Sello \(pid \d+\) ya usa la carpeta de datos/);
    first.child.kill('SIGTERM');
    await first.exited;
  });

  it('refuses a host that is not an address of this machine in one line (LAN with TLS: lan-tls.test.ts)', () => {
    const res = sello(['serve', '--host', '203.0.113.7', '--port', '0', '--data-dir', tempDir()]);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toMatch(/^sello: La dirección 203\.0\.113\.7 no es de este equipo/);
  });

  it('restricts the data folder and its files', async () => {
    const dir = path.join(tempDir(), 'nuevo');
    selloJson(['books', 'create', 'acme', '--tenant', 'oficina', '--data-dir', dir]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'sello.db')).mode & 0o777).toBe(0o600);
  });

  it('tightens a data folder found looser, and what Sello keeps in it, leaving the rest alone', () => {
    const dir = tempDir();
    const mode = (...parts: string[]) => fs.statSync(path.join(dir, ...parts)).mode & 0o777;
    // As an earlier version, or a person, left it: everything readable by others.
    fs.chmodSync(dir, 0o755);
    selloJson(['books', 'create', 'acme', '--tenant', 'oficina', '--data-dir', dir]);
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(path.join(dir, 'sello.db'), 0o644);
    fs.writeFileSync(path.join(dir, 'secret.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`);
    fs.chmodSync(path.join(dir, 'secret.key'), 0o644);
    fs.mkdirSync(path.join(dir, 'test-ca'));
    fs.chmodSync(path.join(dir, 'test-ca'), 0o755);
    for (const f of ['test-ca.key.pem', 'test-ca.cert.pem']) {
      fs.writeFileSync(path.join(dir, 'test-ca', f), 'x');
      fs.chmodSync(path.join(dir, 'test-ca', f), 0o644);
    }
    fs.writeFileSync(path.join(dir, 'notas-de-la-oficina.txt'), 'no es de Sello');
    fs.chmodSync(path.join(dir, 'notas-de-la-oficina.txt'), 0o644);

    selloJson(['books', 'create', 'otro', '--tenant', 'oficina', '--data-dir', dir]);
    expect(mode()).toBe(0o700);
    expect([mode('sello.db'), mode('secret.key')]).toEqual([0o600, 0o600]);
    expect([mode('test-ca'), mode('test-ca', 'test-ca.key.pem'), mode('test-ca', 'test-ca.cert.pem')]).toEqual([0o700, 0o600, 0o600]);
    expect(mode('notas-de-la-oficina.txt')).toBe(0o644);
  });

  it('makes the test CA folder 0700 and its files 0600', () => {
    const dir = tempDir();
    const principal = path.join(dir, '..', `${path.basename(dir)}-titular.json`);
    fs.writeFileSync(principal, JSON.stringify(testPrincipal));
    selloJson(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', principal, '--data-dir', dir]);
    fs.rmSync(principal);
    const ca = path.join(dir, 'test-ca');
    expect(fs.statSync(ca).mode & 0o777).toBe(0o700);
    for (const f of fs.readdirSync(ca)) expect(fs.statSync(path.join(ca, f)).mode & 0o777, f).toBe(0o600);
    expect(fs.readdirSync(ca).sort()).toEqual(['test-ca.cert.pem', 'test-ca.key.pem']);
  });
});

describe('sello books and keys', () => {
  it('creates and lists books and keys, and revokes a key', () => {
    const dir = tempDir();
    const book = selloJson<{ id: string; slug: string }>(['books', 'create', 'acme', '--tenant', 'oficina', '--name', 'ACME S.A.', '--data-dir', dir]);
    expect(book.slug).toBe('acme');
    const listed = sello(['books', 'list', '--json', '--data-dir', dir]).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed).toEqual([expect.objectContaining({ id: book.id, slug: 'acme', tenant_slug: 'oficina', name: 'ACME S.A.', accounting_api: true })]);

    const a = selloJson<{ id: string; key: string }>(['keys', 'create', '--family', 'a', '--env', 'test', '--data-dir', dir]);
    expect(a.key).toMatch(/^sk_test_[0-9A-Za-z]{43}$/);
    const b = selloJson<{ id: string; key: string }>(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'acme', '--name', 'erp', '--scope', 'signing', '--data-dir', dir]);
    expect(b.key).toMatch(/^sello_live_[0-9A-Za-z]{43}$/);
    const keys = sello(['keys', 'list', '--json', '--data-dir', dir]).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(keys).toHaveLength(2);
    expect(keys.find((k) => k.id === b.id)).toMatchObject({ family: 'b', environment: 'live', name: 'erp', scopes: ['signing'], book_id: book.id, revoked_at: null });
    expect(JSON.stringify(keys)).not.toContain(b.key);
    const db = fs.readFileSync(path.join(dir, 'sello.db'));
    expect(db.includes(Buffer.from(b.key))).toBe(false);

    const revoked = selloJson<{ id: string; revoked_at: string }>(['keys', 'revoke', b.id, '--data-dir', dir]);
    expect(revoked.revoked_at).toMatch(/^\d{4}-/);
  });

  it('exits non-zero with one clear line on bad input, changing nothing', () => {
    const dir = tempDir();
    selloJson(['books', 'create', 'acme', '--tenant', 'oficina', '--data-dir', dir]);
    const dbBefore = () => sello(['keys', 'list', '--json', '--data-dir', dir]).stdout + sello(['books', 'list', '--json', '--data-dir', dir]).stdout;
    const before = dbBefore();
    const cases: Array<[string[], RegExp]> = [
      [['keys', 'create', '--family', 'x', '--env', 'test'], /--family debe ser a o b/],
      [['keys', 'create', '--family', 'a'], /Falta --env/],
      [['keys', 'create', '--family', 'b', '--env', 'live'], /pertenecen a un libro/],
      [['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'nope'], /No existe el libro "nope"/],
      [['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'acme', '--scope', 'admin'], /--scope debe ser accounting o signing/],
      [['keys', 'create', '--family', 'a', '--env', 'live', '--book', 'acme'], /no de un libro/],
      [['keys', 'revoke', 'no-such-id'], /No existe una clave con id no-such-id/],
      [['books', 'create', 'acme', '--tenant', 'otra'], /Ya existe un libro/],
      [['books', 'create', 'Mal Nombre', '--tenant', 'x'], /no es un identificador válido/],
      [['books', 'create', 'nuevo'], /Falta --tenant/],
      [['books', 'frobnicate'], /Use: sello books/],
      [['frobnicate'], /Comando desconocido: frobnicate/],
      [['serve', '--port', 'abc'], /--port debe ser un número/],
      [['keys', 'list', '--bogus'], /Opción desconocida: --bogus/],
    ];
    for (const [args, message] of cases) {
      const res = sello([...args, '--data-dir', dir]);
      expect(res.status, args.join(' ')).not.toBe(0);
      expect(res.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(res.stderr, args.join(' ')).toMatch(message);
    }
    expect(dbBefore()).toBe(before);
  });
});
