/**
 * A ready test CA and a signer certificate in a temp folder, for tests that need real X.509.
 *
 * @example
 *   const pki = await createTestPki();
 *   const signer = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain });
 *   // openssl … -CAfile pki.ca.certificatePath
 *   afterAll(() => pki.cleanup());
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestCa, type IssuedCertificate, type IssueOptions, type TestCa } from '../../core/certificates/test-ca.js';

export interface TestPki {
  dir: string;
  ca: TestCa;
  /** RSA-2048 signer, valid for a year: "ANA MARÍA PÉREZ" of an Ecuadorian office. */
  leaf: IssuedCertificate;
  issue(opts: IssueOptions): IssuedCertificate;
  cleanup(): Promise<void>;
}

export const TEST_SUBJECT = {
  commonName: 'ANA MARÍA PÉREZ LÓPEZ',
  givenName: 'ANA MARÍA',
  surname: 'PÉREZ LÓPEZ',
  serialNumber: '0912345678',
  organization: 'Contadores Asociados',
  country: 'EC',
  emailAddress: 'ana.perez@example.ec',
} as const;

export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'sello-pki-'));
  const ca = await openTestCa(join(dir, 'ca'));
  const leaf = ca.issue({ subject: { ...TEST_SUBJECT }, validityDays: 365 });
  return {
    dir,
    ca,
    leaf,
    issue: (opts) => ca.issue(opts),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
