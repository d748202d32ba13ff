/**
 * A software signer for PDF tests: an RSA-2048 key and a self-signed certificate made with
 * `openssl req -x509` once per process (node:crypto cannot issue certificates). The subject CN
 * carries accents on purpose, to exercise UTF-8 names end to end.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign as cryptoSign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CmsSigner } from '../../core/pdf/index.js';

export interface TestPdfSigner extends CmsSigner {
  keyPem: string;
  certPem: string;
  commonName: string;
}

const cache = new Map<string, TestPdfSigner>();

/** A signer whose certificate subject is `CN=<commonName>`. */
export function testPdfSigner(commonName = 'María José Peña Núñez'): TestPdfSigner {
  const hit = cache.get(commonName);
  if (hit) return hit;
  const dir = mkdtempSync(path.join(tmpdir(), 'sello-pdf-signer-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '30', '-utf8', '-subj', `/CN=${commonName}/O=Sello Pruebas/C=EC`], { stdio: 'pipe' });
    const keyPem = readFileSync(key, 'utf8');
    const certPem = readFileSync(cert, 'utf8');
    const privateKey = createPrivateKey(keyPem);
    const signer: TestPdfSigner = {
      keyPem,
      certPem,
      commonName,
      certificate: Buffer.from(new X509Certificate(certPem).raw),
      sign: async (data: Buffer) => cryptoSign('sha256', data, privateKey),
    };
    cache.set(commonName, signer);
    return signer;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
