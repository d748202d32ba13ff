/**
 * CONTRACT §2: beyond loopback, Sello speaks HTTPS only. The other computer of the office is a
 * real one as far as the network goes: a network namespace joined by a veth pair
 * (test/helpers/netns.ts), so its requests come from a non-loopback address, and curl and
 * openssl there check the certificate the way an ERP's HTTP client would.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, withDataStore, type Agent, type StartOptions } from '../../core/app.js';
import { createBook, createKey } from '../../core/auth/index.js';
import { openTestCa, type TestCa } from '../../core/certificates/test-ca.js';
import { ConfigError, loadConfig, type ConfigOverrides } from '../../core/config.js';
import { tempDir, startTestAgent, type TestAgent } from '../helpers/agent.js';
import { sello, startServe, type ServeProcess } from '../helpers/cli.js';
import { createLan, run, type Lan } from '../helpers/netns.js';

let lan: Lan;
beforeAll(() => {
  lan = createLan();
});
afterAll(() => lan?.close());

/** curl on the other computer: `{status, body}` of one request (`-w` appends the status). */
async function curl(args: string[]): Promise<{ code: number | null; status: number; body: string; stderr: string }> {
  const res = await lan.run('curl', ['-sS', '-m', '10', '-w', '\n%{http_code}', ...args]);
  const at = res.stdout.lastIndexOf('\n');
  return { code: res.status, status: Number(res.stdout.slice(at + 1)), body: res.stdout.slice(0, at), stderr: res.stderr };
}

/** GET over HTTPS from this process, trusting only `ca`; resolves with the status and the server's certificate. */
function httpsGet(url: string, options: https.RequestOptions): Promise<{ status: number; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, options, (res) => {
      res.resume();
      const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
      res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint }));
    });
    req.on('error', reject);
  });
}

const pemOf = (text: string): string => /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0] ?? '';

describe('an agent on one LAN address, with the certificate it generates', () => {
  let agent: TestAgent;
  let dataDir: string;
  let port: number;
  let caFile: string;

  beforeAll(async () => {
    dataDir = tempDir();
    agent = await startTestAgent({ host: lan.hostIp, dataDir, extraHostNames: ['sello.oficina.test'] });
    port = Number(new URL(agent.baseUrl).port);
    caFile = agent.tls()!.caFile!;
  });
  afterAll(async () => {
    await agent?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves HTTPS that the other computer verifies against the local CA, its address and the printed fingerprint', async () => {
    expect(agent.baseUrl).toBe(`https://${lan.hostIp}:${port}`);
    const tls = agent.tls()!;
    expect(tls.source).toBe('generated');
    expect(tls.names).toEqual(expect.arrayContaining(['localhost', '127.0.0.1', '[::1]', lan.hostIp, 'sello.oficina.test']));
    // The keys stay with their owner.
    for (const file of ['ca.key.pem', 'server.key.pem']) expect(fs.statSync(path.join(dataDir, 'tls', file)).mode & 0o777).toBe(0o600);

    const ok = await curl(['--cacert', caFile, '-H', `Authorization: Bearer ${agent.liveKey}`, `${agent.baseUrl}/api/v1/tax-types`]);
    expect(ok.status, ok.stderr).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ jsonapi: { version: '1.1' } });

    // openssl checks the chain and that the certificate names the address; the certificate it got is the one printed.
    const s = await lan.run('openssl', ['s_client', '-connect', `${lan.hostIp}:${port}`, '-CAfile', caFile, '-verify_ip', lan.hostIp, '-verify_return_error'], { input: '' });
    expect(s.stdout).toContain('Verify return code: 0 (ok)');
    expect(new X509Certificate(pemOf(s.stdout)).fingerprint256).toBe(tls.fingerprint);
    const printed = await run('openssl', ['x509', '-in', tls.certFile, '-noout', '-fingerprint', '-sha256']);
    expect(printed.stdout.trim()).toBe(`sha256 Fingerprint=${tls.fingerprint}`);

    // Node's own client: trusts the CA, checks the address, sees the same certificate; without the CA it refuses.
    const ca = fs.readFileSync(caFile);
    const got = await httpsGet(`${agent.baseUrl}/api/v1/tax-types`, { ca, headers: { Authorization: `Bearer ${agent.liveKey}` } });
    expect(got).toEqual({ status: 200, fingerprint: tls.fingerprint });
    await expect(httpsGet(`${agent.baseUrl}/`, {})).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    await expect(httpsGet(`${agent.baseUrl}/`, { ca, servername: 'otro.example' })).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('refuses plain HTTP from the other computer with one clear answer, and closes a stream that is neither', async () => {
    const started = Date.now();
    const plain = await curl([`http://${lan.hostIp}:${port}/api/v1/tax-types`]);
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.body)).toMatchObject({ errors: [{ status: '400', code: 'https_required' }] });
    const familyA = await curl([`http://${lan.hostIp}:${port}/certificates`]);
    expect(familyA.status).toBe(400);
    expect(JSON.parse(familyA.body)).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/solo acepta HTTPS/) });
    // Bytes that are neither TLS nor HTTP: the connection is closed, nothing hangs.
    const garbage = await lan.run(process.execPath, [
      '-e',
      `const s = require('node:net').connect(${port}, '${lan.hostIp}', () => s.write(Buffer.from([0, 1, 2, 3, 10, 10])));
       s.on('data', (d) => process.stdout.write('data:' + d.length));
       s.on('close', () => process.stdout.write('closed'));
       s.on('error', () => {});`,
    ]);
    expect(garbage.stdout).toBe('closed');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('accepts the certificate names and the configured ones in Host, and refuses any other with 421', async () => {
    const byName = await curl([
      '--cacert',
      caFile,
      '--resolve',
      `sello.oficina.test:${port}:${lan.hostIp}`,
      '-H',
      `Authorization: Bearer ${agent.liveKey}`,
      `https://sello.oficina.test:${port}/api/v1/tax-types`,
    ]);
    expect(byName.status, byName.stderr).toBe(200);
    const foreign = await curl(['--cacert', caFile, '-H', 'Host: evil.example', '-H', `Authorization: Bearer ${agent.liveKey}`, `${agent.baseUrl}/api/v1/tax-types`]);
    expect(foreign.status).toBe(421);
    expect(JSON.parse(foreign.body)).toMatchObject({ errors: [{ code: 'misdirected_request' }] });
    // A name the certificate does not carry does not even get past TLS (curl's exit 60: peer certificate).
    const unnamed = await curl(['--cacert', caFile, '--resolve', `evil.example:${port}:${lan.hostIp}`, `https://evil.example:${port}/api/v1/tax-types`]);
    expect(unnamed.code).toBe(60);
  });

  it('keeps plain HTTP on 127.0.0.1 for the tray and a local ERP, and shows the fingerprint in the Estado route', async () => {
    expect(agent.localUrl).toBe(`http://127.0.0.1:${port}`);
    expect(agent.adminUrl.startsWith(`${agent.localUrl}/ui/?token=`)).toBe(true);
    const local = await fetch(`${agent.localUrl}/api/v1/tax-types`, { headers: { Authorization: `Bearer ${agent.liveKey}` } });
    expect(local.status).toBe(200);
    const status = (await (await fetch(`${agent.localUrl}/admin/api/status`, { headers: { Authorization: `Bearer ${agent.adminToken}` } })).json()) as {
      data: { base_url: string; local_url: string; tls: { fingerprint: string; ca_file: string; names: string[] } };
    };
    expect(status.data).toMatchObject({ base_url: agent.baseUrl, local_url: agent.localUrl, tls: { fingerprint: agent.tls()!.fingerprint, ca_file: caFile } });
  });

  it('keeps its certificate across restarts, and makes a new one under the same CA when an address is added', async () => {
    const first = agent.tls()!;
    const key = agent.liveKey;
    await agent.close();
    const restart = (options: StartOptions = {}) =>
      startAgent(loadConfig({ host: lan.hostIp, dataDir, port: 0, logLevel: 'silent', extraHostNames: ['sello.oficina.test'] }, {}), options);
    let again: Agent = await restart();
    expect(again.tls()!.fingerprint).toBe(first.fingerprint);
    await again.stop();

    const added = `${lan.prefix}.7`;
    await run('ip', ['addr', 'add', `${added}/24`, 'dev', lan.hostInterface]);
    try {
      again = await restart();
      const renewed = again.tls()!;
      expect(renewed.fingerprint).not.toBe(first.fingerprint);
      expect(renewed.names).toContain(added);
      expect(renewed.caFingerprint).toBe(first.caFingerprint);
      // The other computer needs nothing new: the CA it already trusts verifies the new certificate.
      const port = new URL(again.baseUrl).port;
      const s = await lan.run('openssl', ['s_client', '-connect', `${lan.hostIp}:${port}`, '-CAfile', caFile, '-verify_ip', added, '-verify_return_error'], { input: '' });
      expect(s.stdout).toContain('Verify return code: 0 (ok)');
      expect(new X509Certificate(pemOf(s.stdout)).fingerprint256).toBe(renewed.fingerprint);
      const named = await curl(['--cacert', caFile, '-H', `Authorization: Bearer ${key}`, `${again.baseUrl}/api/v1/tax-types`]);
      expect(named.status, named.stderr).toBe(200);
    } finally {
      await again.stop();
      await run('ip', ['addr', 'del', `${added}/24`, 'dev', lan.hostInterface]);
    }
  });

  it('makes a new certificate while running when an address is added, serves it at once and follows it in the Host check', async () => {
    const running = await startAgent(loadConfig({ host: lan.hostIp, dataDir, port: 0, logLevel: 'silent' }, {}), { tlsRefreshMs: 100 });
    const extra = `${lan.prefix}.8`;
    try {
      const before = running.tls()!;
      const port = new URL(running.baseUrl).port;
      await run('ip', ['addr', 'add', `${extra}/24`, 'dev', lan.hostInterface]);
      await expect.poll(() => running.tls()!.names, { timeout: 5_000 }).toContain(extra);
      const after = running.tls()!;
      expect(after.fingerprint).not.toBe(before.fingerprint);
      // The listener serves the new certificate without a restart…
      const s = await lan.run('openssl', ['s_client', '-connect', `${lan.hostIp}:${port}`, '-CAfile', caFile, '-verify_ip', extra, '-verify_return_error'], { input: '' });
      expect(s.stdout).toContain('Verify return code: 0 (ok)');
      expect(new X509Certificate(pemOf(s.stdout)).fingerprint256).toBe(after.fingerprint);
      // …and the Host check accepts the new address.
      const res = await curl(['--cacert', caFile, '-H', `Host: ${extra}:${port}`, `${running.baseUrl}/api/v1/tax-types`]);
      expect(res.status, res.stderr).toBe(401);
    } finally {
      await running.stop();
      await run('ip', ['addr', 'del', `${extra}/24`, 'dev', lan.hostInterface]);
    }
  });
});

describe('sello serve --host 0.0.0.0', () => {
  let serve: ServeProcess;
  let dataDir: string;
  let key: string;

  beforeAll(async () => {
    dataDir = tempDir();
    key = await withDataStore(dataDir, (store) => {
      const book = createBook(store, { slug: 'acme', tenantSlug: 'oficina' });
      return createKey(store, { family: 'b', environment: 'live', bookId: book.id, name: 'erp' }).key;
    });
    serve = await startServe(dataDir, {}, ['--host', '0.0.0.0']);
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the fingerprint beside the existing fields, serves HTTPS to the LAN and plain HTTP only to loopback', async () => {
    const json = serve.json as { base_url: string; admin_url: string; local_url: string; tls_fingerprint: string; tls_cert_file: string; tls_ca_file: string };
    expect(json.base_url).toMatch(/^https:\/\//);
    const port = Number(new URL(json.base_url).port);
    expect(json.local_url).toBe(`http://127.0.0.1:${port}`);
    expect(json.admin_url.startsWith(`${json.local_url}/ui/?token=`)).toBe(true);
    expect(json.tls_ca_file).toBe(path.join(dataDir, 'tls', 'ca.cert.pem'));
    const printed = await run('openssl', ['x509', '-in', json.tls_cert_file, '-noout', '-fingerprint', '-sha256']);
    expect(printed.stdout.trim()).toBe(`sha256 Fingerprint=${json.tls_fingerprint}`);

    const lanUrl = `https://${lan.hostIp}:${port}`;
    const ok = await curl(['--cacert', json.tls_ca_file, '-H', `Authorization: Bearer ${key}`, `${lanUrl}/api/v1/tax-types`]);
    expect(ok.status, ok.stderr).toBe(200);
    const plain = await curl([`http://${lan.hostIp}:${port}/api/v1/tax-types`]);
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.body)).toMatchObject({ errors: [{ code: 'https_required' }] });

    // Loopback, same port, plain HTTP: requests with bodies go through whole.
    const local = await fetch(`${json.local_url}/api/v1/tax-types`, { headers: { Authorization: `Bearer ${key}` } });
    expect(local.status).toBe(200);
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' };
    const endpoint = { data: { type: 'webhook_endpoint', attributes: { url: 'https://erp.example/hooks', secret: 'un-secreto-largo' } } };
    const created = await fetch(`${json.local_url}/api/v1/webhook-endpoints`, { method: 'POST', headers, body: JSON.stringify(endpoint) });
    expect(created.status, await created.clone().text()).toBe(201);
    const big = await fetch(`${json.local_url}/api/v1/webhook-endpoints`, { method: 'POST', headers, body: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
  });
});

describe('bad LAN settings: one clear line, nothing written', () => {
  let ca: TestCa;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('sello-lan-certs-');
    ca = await openTestCa(path.join(dir, 'ca'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const issue = (name: string, days: { from: number; to: number }) => {
    const day = 86_400_000;
    const leaf = ca.issue({
      subject: { commonName: 'erp-sello.oficina.test' },
      purpose: 'tls-server',
      altNames: ['erp-sello.oficina.test', lan.hostIp],
      notBefore: new Date(Date.now() + days.from * day),
      notAfter: new Date(Date.now() + days.to * day),
    });
    return { cert: write(`${name}.cert.pem`, leaf.certificatePem), key: write(`${name}.key.pem`, leaf.privateKeyPem), der: leaf.certificate };
  };

  /** `sello serve` on a data folder that does not exist yet: one line, exit 1, and the folder still does not exist. */
  function refusedByCli(args: string[], env: NodeJS.ProcessEnv = {}): string {
    const parent = tempDir();
    const dataDir = path.join(parent, 'nuevo');
    const res = sello(['serve', '--port', '0', '--data-dir', dataDir, ...args], { env });
    expect(res.status, res.stdout).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(dataDir)).toBe(false);
    fs.rmSync(parent, { recursive: true, force: true });
    return res.stderr.trim();
  }

  /** The same refusal from startAgent (what `sello serve` prints after `sello: `), without a process per case. */
  async function refused(overrides: ConfigOverrides): Promise<string> {
    const parent = tempDir();
    const dataDir = path.join(parent, 'nuevo');
    const err: unknown = await startAgent(loadConfig({ dataDir, port: 0, logLevel: 'silent', host: lan.hostIp, ...overrides }, {})).then(
      async (agent) => {
        await agent.stop();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(fs.existsSync(dataDir)).toBe(false);
    fs.rmSync(parent, { recursive: true, force: true });
    return (err as ConfigError).message;
  }

  it('refuses an address this machine does not have, and a certificate that is not its key’s, in one line of the CLI', () => {
    expect(refusedByCli(['--host', '203.0.113.7'])).toMatch(/^sello: La dirección 203\.0\.113\.7 no es de este equipo; sus direcciones son .*127\.0\.0\.1/);
    const a = issue('a', { from: -1, to: 30 });
    const b = issue('b', { from: -1, to: 30 });
    expect(refusedByCli(['--host', lan.hostIp], { SELLO_TLS_CERT_FILE: a.cert, SELLO_TLS_KEY_FILE: b.key })).toMatch(
      /^sello: El certificado .*a\.cert\.pem \(SELLO_TLS_CERT_FILE\) no corresponde a la clave .*b\.key\.pem \(SELLO_TLS_KEY_FILE\)\.$/,
    );
  });

  it('refuses an expired certificate, a missing or unreadable file, a file that is no certificate, and one setting without the other', async () => {
    const a = issue('a2', { from: -1, to: 30 });
    const expired = issue('expired', { from: -60, to: -1 });
    const notYet = issue('not-yet', { from: 2, to: 60 });
    expect(await refused({ tlsCertFile: expired.cert, tlsKeyFile: expired.key })).toMatch(/^El certificado .*expired\.cert\.pem \(SELLO_TLS_CERT_FILE\) venció el \d{4}-\d\d-\d\d\./);
    expect(await refused({ tlsCertFile: notYet.cert, tlsKeyFile: notYet.key })).toMatch(/aún no es válido: lo es desde el \d{4}-\d\d-\d\d/);
    expect(await refused({ tlsCertFile: path.join(dir, 'no-esta.pem'), tlsKeyFile: a.key })).toMatch(/^SELLO_TLS_CERT_FILE: el archivo .*no-esta\.pem no existe\.$/);
    expect(await refused({ tlsCertFile: a.cert, tlsKeyFile: dir })).toMatch(/^SELLO_TLS_KEY_FILE: el archivo .* es una carpeta\.$/);
    expect(await refused({ tlsCertFile: write('no-pem.txt', 'hola'), tlsKeyFile: a.key })).toMatch(/^SELLO_TLS_CERT_FILE: .*no-pem\.txt no contiene un certificado PEM/);
    expect(await refused({ tlsCertFile: a.cert, tlsKeyFile: a.cert })).toMatch(/^SELLO_TLS_KEY_FILE: .*a2\.cert\.pem no contiene una clave privada PEM\.$/);
    expect(await refused({ tlsCertFile: a.cert })).toMatch(/^SELLO_TLS_CERT_FILE y SELLO_TLS_KEY_FILE van juntos/);
    expect(await refused({ host: '203.0.113.7' })).toMatch(/^La dirección 203\.0\.113\.7 no es de este equipo/);
    expect(await refused({ host: 'no-existe.invalid' })).toMatch(/^No se encuentra el nombre no-existe\.invalid \(--host\)/);
  });

  it('serves a configured certificate, prints its fingerprint and accepts its names in Host', async () => {
    const good = issue('good', { from: -1, to: 90 });
    const dataDir = tempDir();
    const serve = await startServe(dataDir, { SELLO_TLS_CERT_FILE: good.cert, SELLO_TLS_KEY_FILE: good.key }, ['--host', lan.hostIp]);
    try {
      const json = serve.json as { base_url: string; tls_fingerprint: string; tls_ca_file: string | null };
      expect(json.tls_fingerprint).toBe(new X509Certificate(good.der).fingerprint256);
      expect(json.tls_ca_file).toBeNull();
      expect(fs.existsSync(path.join(dataDir, 'tls'))).toBe(false);
      const port = new URL(json.base_url).port;
      const res = await curl(['--cacert', ca.certificatePath, '--resolve', `erp-sello.oficina.test:${port}:${lan.hostIp}`, `https://erp-sello.oficina.test:${port}/api/v1/tax-types`]);
      // Past TLS and the Host check: the API asks for a key.
      expect(res.status, res.stderr).toBe(401);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
