import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostChecker } from '../../../core/http/middleware/host-check.js';
import { ensureGeneratedCertificate, RENEW_DAYS, SERVER_DAYS } from '../../../core/tls/certificate.js';
import { openServerTls } from '../../../core/tls/index.js';
import { canonicalIp, isLoopbackAddress, machineNames } from '../../../core/tls/names.js';

const DAY = 86_400_000;
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-tls-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const names = { dns: ['localhost', 'pc-contador', 'pc-contador.local'], ips: ['127.0.0.1', '192.168.1.20', '::1'] };

describe('the generated certificate', () => {
  it('is made once, signed by the local CA, for exactly the names asked, and kept while they hold', async () => {
    const dir = path.join(tempDir(), 'tls');
    const now = new Date('2026-03-01T12:00:00Z');
    const first = await ensureGeneratedCertificate(dir, names, now);
    expect(first.renewed).toBe('first');
    const cert = new X509Certificate(fs.readFileSync(first.certificate.certFile));
    const ca = new X509Certificate(fs.readFileSync(first.certificate.caFile!));
    expect(cert.checkIssued(ca) && cert.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.subjectAltName).toBe('DNS:localhost, DNS:pc-contador, DNS:pc-contador.local, IP Address:127.0.0.1, IP Address:192.168.1.20, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.checkIP('192.168.1.20')).toBe('192.168.1.20');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // serverAuth
    expect(new Date(cert.validTo).getTime() - now.getTime()).toBeLessThanOrEqual(SERVER_DAYS * DAY);
    expect(first.certificate.fingerprint).toBe(cert.fingerprint256);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, file)).mode & 0o777, file).toBe(0o600);

    const again = await ensureGeneratedCertificate(dir, { dns: [...names.dns], ips: [...names.ips] }, new Date(now.getTime() + 100 * DAY));
    expect(again.renewed).toBeUndefined();
    expect(again.certificate.fingerprint).toBe(first.certificate.fingerprint);
  });

  it('is made again under the same CA when a name or an address changes, or when it nears its end', async () => {
    const dir = path.join(tempDir(), 'tls');
    const now = new Date('2026-03-01T12:00:00Z');
    const first = await ensureGeneratedCertificate(dir, names, now);
    const moved = await ensureGeneratedCertificate(dir, { ...names, ips: ['127.0.0.1', '192.168.1.33', '::1'] }, now);
    expect(moved.renewed).toBe('names');
    expect(moved.certificate.names.ips).toContain('192.168.1.33');
    expect(moved.certificate.caFingerprint).toBe(first.certificate.caFingerprint);

    const late = new Date(now.getTime() + (SERVER_DAYS - RENEW_DAYS + 2) * DAY);
    const renewed = await ensureGeneratedCertificate(dir, moved.certificate.names, late);
    expect(renewed.renewed).toBe('expiry');
    expect(renewed.certificate.notAfter.getTime()).toBeGreaterThan(late.getTime() + (SERVER_DAYS - 2) * DAY);
    expect(renewed.certificate.caFingerprint).toBe(first.certificate.caFingerprint);
  });

  it('is made again when a file is damaged, and a new CA when the CA nears its end', async () => {
    const dir = path.join(tempDir(), 'tls');
    const now = new Date('2026-03-01T12:00:00Z');
    const first = await ensureGeneratedCertificate(dir, names, now);
    fs.writeFileSync(path.join(dir, 'server.key.pem'), 'dañado');
    expect((await ensureGeneratedCertificate(dir, names, now)).renewed).toBe('first');
    const tenYearsOn = new Date(now.getTime() + 3500 * DAY);
    const newCa = await ensureGeneratedCertificate(dir, names, tenYearsOn);
    expect(newCa.renewed).toBe('ca');
    expect(newCa.certificate.caFingerprint).not.toBe(first.certificate.caFingerprint);
  });

  it('refreshes through openServerTls, which the Host check follows', async () => {
    const dataDir = tempDir();
    const tls = await openServerTls({ dataDir, host: '0.0.0.0', extraHostNames: ['Sello.Oficina.EC'], tlsCertFile: undefined, tlsKeyFile: undefined }, undefined);
    expect(tls.opened).toBe('first');
    const check = hostChecker(tls.hostNames);
    expect(check('sello.oficina.ec', undefined)).toBeDefined();
    expect(check('[::1]:8437', 8437)).toBeDefined();
    expect(check('evil.example', undefined)).toBeUndefined();
    const before = tls.hostNames();
    expect(await tls.refresh()).toBeUndefined();
    expect(tls.hostNames()).toBe(before);
    expect(await tls.refresh(new Date(Date.now() + 380 * DAY))).toBe('expiry');
    expect(check('sello.oficina.ec', undefined)).toBeDefined();
  });
});

describe('names', () => {
  it('lists the host name, its .local form, every interface address and the configured names', () => {
    const got = machineNames(['erp.oficina.ec', '10.0.0.9', 'no válido'], '0.0.0.0');
    const hostname = os.hostname().toLowerCase();
    expect(got.dns).toEqual(expect.arrayContaining(['localhost', 'erp.oficina.ec', hostname]));
    expect(got.ips).toEqual(expect.arrayContaining(['127.0.0.1', '::1', '10.0.0.9']));
    for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) expect(got.ips).toContain(canonicalIp(a.address));
    expect(got.dns).not.toContain('no válido');
  });

  it('tells loopback peers from the rest', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '::', '0.0.0.0', undefined, '128.0.0.1']) expect(isLoopbackAddress(a), String(a)).toBe(false);
    expect(canonicalIp('FE80:0:0:0:0:0:A:B')).toBe('fe80::a:b');
    expect(canonicalIp('fe80::1%eth0')).toBe('fe80::1');
  });
});
