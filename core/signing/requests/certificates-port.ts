/**
 * The slice of core/certificates that signing requests use, in one small module: the
 * registry's `findCertificateForEnvironment`, `assertUsableForSigning` and
 * `toCertificateObject`, turned into what request validation and the response need.
 */
import { X509Certificate } from 'node:crypto';
import {
  assertUsableForSigning,
  findCertificateForEnvironment,
  findCertificateRow,
  toCertificateObject,
  type CertificateRow,
} from '../../certificates/index.js';
import type { Store } from '../../db/index.js';
import { isSelloError } from '../../errors/index.js';

export type CertificateCheck = { ok: true; row: CertificateRow } | { ok: false; message: string };

/**
 * A certificate the caller may sign with (CONTRACT §11 "certificate present, issued,
 * unexpired, of the key's environment"). Another environment's certificate reads as
 * unknown, so a key never learns what the other environment holds (CONTRACT §3).
 */
export function usableCertificate(store: Store, id: string, environment: 'test' | 'live', now: Date): CertificateCheck {
  try {
    const row = findCertificateForEnvironment(store, id, environment);
    assertUsableForSigning(row, now);
    return { ok: true, row };
  } catch (err) {
    if (isSelloError(err)) return { ok: false, message: err.message };
    throw err;
  }
}

/** Whether the agent holds any key itself (test certificates, `.p12`): only those are signed on the signing thread. */
export function holdsSoftwareKeys(store: Store): boolean {
  return store.first(store.db.selectFrom('certificates').select('id').where('source', '!=', 'token').limit(1)) !== undefined;
}

export function certificateRow(store: Store, id: string): CertificateRow | undefined {
  return findCertificateRow(store, id);
}

/** The spec's Certificate object inside a Signature, "when available, else its id". */
export function certificateObject(row: CertificateRow | undefined, id: string): unknown {
  if (!row) return id;
  try {
    return toCertificateObject(row);
  } catch {
    return id;
  }
}

/** Who signed, as the callback's `signers[]` describes a person (spec, Signing-result callback body). */
export interface SignerFacts {
  name: string;
  nationalId: string;
  email: string;
}

/** Reads name, national id (subject serialNumber, the cédula in Ecuadorian certificates) and e-mail. */
export function signerFacts(row: CertificateRow): SignerFacts {
  const subject = new X509Certificate(row.certificate).subject;
  const attr = (name: string) => new RegExp(`(?:^|\\n)${name}=([^\\n]+)`).exec(subject)?.[1] ?? '';
  const san = new X509Certificate(row.certificate).subjectAltName ?? '';
  const email = attr('emailAddress') || /email:([^,\s]+)/.exec(san)?.[1] || '';
  return { name: row.subject_name, nationalId: attr('serialNumber').replace(/^(?:IDC|PAS|CI)[A-Z]{0,2}-?/, ''), email };
}
