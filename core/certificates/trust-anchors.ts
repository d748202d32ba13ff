/**
 * The certificates a PDF signer's chain may end at for Sello to call the signer "de confianza"
 * (core/pdf/verify/trust.ts): the data folder's test CA, when it exists (signatures made with
 * Sello's test certificates), and the roots an office configures as a PEM bundle
 * (`SELLO_TRUST_ROOTS`, or `sello verify --trust ROOTS.pem`), such as its country's accredited
 * certification authorities.
 *
 * @example
 *   const anchors = await listTrustAnchors({ dataDir, rootsFiles: [config.trustRoots] });
 *   verifyPdfSignatures(pdf, { trustAnchors: anchors });
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config.js';
import type { TrustAnchor } from '../pdf/index.js';

/** Where openDataTestCa keeps the test CA's certificate (test-issuance.ts → test-ca.ts). */
function testCaCertificateFile(dataDir: string): string {
  return path.join(dataDir, 'test-ca', 'test-ca.cert.pem');
}

/**
 * The data folder's test CA as an anchor, or none when it was never created (it is not created
 * here: verifying a PDF must not write to the data folder).
 */
export async function testCaAnchors(dataDir: string): Promise<TrustAnchor[]> {
  let pem: string;
  try {
    pem = await readFile(testCaCertificateFile(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return certificatesIn(pem).map((certificate) => ({ source: 'test_ca', certificate }));
}

/** Every certificate of a PEM bundle, as configured anchors. Throws ConfigError for a file that is missing or holds none. */
export async function readTrustRoots(file: string): Promise<TrustAnchor[]> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch {
    throw new ConfigError(`No se puede leer el archivo de raíces de confianza ${file} (SELLO_TRUST_ROOTS o --trust).`);
  }
  const certs = certificatesIn(pem);
  if (certs.length === 0) throw new ConfigError(`El archivo de raíces de confianza ${file} no contiene certificados PEM («-----BEGIN CERTIFICATE-----»).`);
  return certs.map((certificate) => ({ source: 'configured', certificate }));
}

/** The test CA and the roots of each file given (undefined entries skipped). */
export async function listTrustAnchors(opts: { dataDir: string; rootsFiles?: ReadonlyArray<string | undefined> }): Promise<TrustAnchor[]> {
  const files = (opts.rootsFiles ?? []).filter((f): f is string => Boolean(f));
  const lists = await Promise.all([testCaAnchors(opts.dataDir), ...files.map(readTrustRoots)]);
  return lists.flat();
}

/** DER of each `CERTIFICATE` block that parses (RFC 7468 §5); text around the blocks is ignored. */
function certificatesIn(pem: string): Buffer[] {
  const out: Buffer[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)) {
    try {
      out.push(Buffer.from(new X509Certificate(m[0]).raw));
    } catch {
      // a damaged block is not an anchor; the others still are
    }
  }
  return out;
}
