import { execFile } from 'node:child_process';
import { createHash, verify, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p12KeySource, readP12 } from '../../../core/signing/key-sources/p12.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

const run = promisify(execFile);
const PASSWORD = 'Clave-Segura-ñ-2026';

let pki: TestPki;
let dir: string;

/** Makes a .p12 with openssl: the modern default (AES-256-CBC, PBKDF2, SHA-256 MAC) or -legacy (RC2/3DES, SHA-1). */
async function makeP12(name: string, extra: string[], opts: { withKey?: boolean; leaf?: TestPki['leaf'] } = {}): Promise<Buffer> {
  const leaf = opts.leaf ?? pki.leaf;
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const out = join(dir, `${name}.p12`);
  await writeFile(cert, leaf.certificatePem);
  await writeFile(key, leaf.privateKeyPem);
  const args = ['pkcs12', '-export', '-in', cert, '-certfile', pki.ca.certificatePath, '-out', out, '-passout', `pass:${PASSWORD}`, ...extra];
  if (opts.withKey === false) args.push('-nokeys');
  else args.push('-inkey', key);
  await run('openssl', args);
  return readFile(out);
}

beforeAll(async () => {
  pki = await createTestPki();
  dir = await mkdtemp(join(pki.dir, 'p12-'));
});
afterAll(() => pki.cleanup());

describe('readP12', () => {
  it.each([
    ['the OpenSSL 3 default (AES-256, PBKDF2)', [] as string[]],
    ['-legacy (RC2/3DES, SHA-1 MAC)', ['-legacy']],
  ])('reads key, certificate and chain from %s', async (_label, extra) => {
    const p12 = await makeP12(`ok${extra.length}`, extra);
    const { certificate, chain, key } = readP12(p12, PASSWORD);
    expect(certificate).toEqual(pki.leaf.certificate);
    expect(chain).toEqual([pki.ca.certificate]);
    expect(key.asymmetricKeyType).toBe('rsa');
  });

  it.each([[[] as string[]], [['-legacy']]])('answers p12_bad_password for a wrong password (%j)', async (extra) => {
    const p12 = await makeP12(`bad${extra.length}`, extra);
    expect(() => readP12(p12, 'otra-clave')).toThrow(expect.objectContaining({ code: 'p12_bad_password' }));
  });

  it('answers p12_invalid for something that is not a PKCS#12', () => {
    expect(() => readP12(Buffer.from('%PDF-1.7 no soy un p12'), PASSWORD)).toThrow(expect.objectContaining({ code: 'p12_invalid' }));
    expect(() => readP12(pki.leaf.certificate, PASSWORD)).toThrow(expect.objectContaining({ code: 'p12_invalid' }));
  });

  it('answers p12_invalid for a .p12 without a private key', async () => {
    const p12 = await makeP12('nokey', [], { withKey: false });
    expect(() => readP12(p12, PASSWORD)).toThrow(expect.objectContaining({ code: 'p12_invalid' }));
  });
});

describe('p12KeySource', () => {
  it('signs SHA-256 with node:crypto, verifiable with the certificate', async () => {
    const source = p12KeySource(await makeP12('sign', []), PASSWORD);
    expect(source.kind).toBe('p12');
    const data = Buffer.from('atributos firmados');
    const sig = await source.sign(data);
    expect(verify('sha256', data, new X509Certificate(source.certificate).publicKey, sig)).toBe(true);
    expect(createHash('sha256').update(source.certificate).digest()).toEqual(createHash('sha256').update(pki.leaf.certificate).digest());
  });

  it('refuses to sign with an expired certificate (certificate_expired)', async () => {
    const expired = pki.issue({
      subject: { commonName: 'CADUCADO' },
      notBefore: new Date(Date.now() - 3 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const source = p12KeySource(await makeP12('expired', [], { leaf: expired }), PASSWORD);
    await expect(source.sign(Buffer.from('x'))).rejects.toMatchObject({ code: 'certificate_expired' });
  });
});

describe('readP12 with a non-ASCII password', () => {
  // forge derives the PBES2 key from the password's UTF-16 units, OpenSSL from its UTF-8
  // bytes; the wrong key's garbage passes the padding check about once in 256 files and then
  // fails as unparseable DER. Each export has a new salt and IV: 200 of them met that case
  // in about half the runs before the fix.
  it('opens every one of 200 exports of the same key', async () => {
    const failures: string[] = [];
    const exports = await Promise.all(Array.from({ length: 200 }, (_, i) => makeP12(`many-${i}`, [])));
    for (const [i, p12] of exports.entries()) {
      try {
        readP12(p12, PASSWORD);
      } catch (err) {
        failures.push(`${i}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
