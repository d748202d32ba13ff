/**
 * Test certificates (CONTRACT §10): issued at no cost by the test CA in the data folder,
 * with the spec's types and validity values, keys in software (PKCS#8 sealed with the
 * data folder's SecretBox). The holder's data goes into the X.509 subject, so that a
 * signature made with it shows the right name.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { Store } from '../db/index.js';
import type { SecretBox } from '../secrets/index.js';
import type { CertificateObject, Principal } from './certificate-object.js';
import { toCertificateObject } from './certificate-records.js';
import { findCertificateRow } from './registry.js';
import type { CertificateSubject, TestCa } from './test-ca.js';
import type { TestCertificateRequest } from './test-request.js';
import { summarizeCertificate } from './x509.js';

/** The test CA of a data folder: `<data>/test-ca/` (CONTRACT §10). */
export async function openDataTestCa(dataDir: string): Promise<TestCa> {
  // The CA lays certificates out with node-forge, loaded at the first test certificate, not at every start.
  const { openTestCa } = await import('./test-ca.js');
  return openTestCa(path.join(dataDir, 'test-ca'), { commonName: 'Sello Test CA' });
}

function joinNames(...parts: Array<string | undefined>): string {
  return parts.filter((p): p is string => !!p).join(' ');
}

/** X.520 subject of a test certificate: CN full name, givenName, surname, serialNumber = legal id, O, title, C, L, email. */
export function subjectFor(request: TestCertificateRequest): CertificateSubject {
  const p: Principal = request.principal;
  const givenName = joinNames(p.first_name, p.middle_name);
  const surname = joinNames(p.last_name, p.second_last_name);
  const subject: CertificateSubject = {
    commonName: joinNames(givenName, surname),
    givenName,
    surname,
    serialNumber: p.legal_id,
    country: p.address.country.code,
    locality: p.address.administrative_district_level_2,
    emailAddress: p.email,
  };
  const title = p.position ?? request.organization?.position;
  if (title) subject.title = title;
  if (request.organization) subject.organization = request.organization.legal_name;
  return subject;
}

/**
 * Issues a test certificate for a request already checked by
 * `parseTestCertificateRequest`, stores it (environment `test`, source `test`) and
 * returns its Certificate object.
 *
 * @example
 *   const ca = await openDataTestCa(dataDir);
 *   const cert = issueTestCertificate(store, secrets, ca, parseTestCertificateRequest(body));
 *   // cert.environment === 'test', cert.status === 'issued'
 */
export function issueTestCertificate(store: Store, secrets: SecretBox, ca: TestCa, request: TestCertificateRequest, now: Date = new Date()): CertificateObject {
  const notBefore = new Date(now.getTime() - 60_000); // clock skew, as the test CA does
  const notAfter = new Date(notBefore.getTime() + request.validity * 86_400_000);
  const issued = ca.issue({ subject: subjectFor(request), notBefore, notAfter });
  const summary = summarizeCertificate(issued.certificate);
  const id = crypto.randomUUID();
  store.run(
    store.db.insertInto('certificates').values({
      id,
      environment: 'test',
      source: 'test',
      fingerprint: summary.fingerprint,
      certificate: issued.certificate,
      chain: JSON.stringify(issued.chain.map((c) => c.toString('base64'))),
      subject_name: summary.subjectName,
      serial_number: summary.serialNumber,
      not_before: summary.notBefore.toISOString(),
      not_after: summary.notAfter.toISOString(),
      private_key_sealed: secrets.seal(issued.privateKeyPem),
      created_at: now.toISOString(),
      type: request.type,
      validity: request.validity,
      principal: JSON.stringify(request.principal),
      organization: request.organization ? JSON.stringify(request.organization) : null,
      status: 'issued',
      issued_at: now.toISOString(),
    }),
  );
  return toCertificateObject(findCertificateRow(store, id)!);
}
