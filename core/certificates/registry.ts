import crypto from 'node:crypto';
import type { CertificatesTable, Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';
import type { SecretBox } from '../secrets/index.js';
import type { Selectable } from 'kysely';
import { describeX509, validityBetween } from './certificate-object.js';
import { summarizeCertificate } from './x509.js';

/** A certificate Sello can sign with, as lists and the CLI show it. */
export interface CertificateRecord {
  id: string;
  environment: 'test' | 'live';
  source: 'p12' | 'token' | 'test';
  subjectName: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  fingerprint: string;
  tokenLabel: string | null;
  createdAt: string;
}

export type CertificateRow = Selectable<CertificatesTable>;

export function toCertificateRecord(row: CertificateRow): CertificateRecord {
  return {
    id: row.id,
    environment: row.environment,
    source: row.source,
    subjectName: row.subject_name,
    serialNumber: row.serial_number,
    notBefore: row.not_before,
    notAfter: row.not_after,
    fingerprint: row.fingerprint,
    tokenLabel: row.token_label,
    createdAt: row.created_at,
  };
}

function baseRow(certificate: Buffer, chain: Buffer[], source: CertificateRow['source'], environment: CertificateRow['environment']) {
  const summary = summarizeCertificate(certificate);
  // The Certificate object's fields as the X.509 gives them (CONTRACT §10).
  const described = describeX509(certificate);
  return {
    type: described.type,
    validity: validityBetween(summary.notBefore, summary.notAfter),
    principal: JSON.stringify(described.principal),
    organization: described.organization ? JSON.stringify(described.organization) : null,
    status: 'issued' as const,
    issued_at: summary.notBefore.toISOString(),
    environment,
    source,
    fingerprint: summary.fingerprint,
    certificate,
    chain: JSON.stringify(chain.map((c) => c.toString('base64'))),
    subject_name: summary.subjectName,
    serial_number: summary.serialNumber,
    not_before: summary.notBefore.toISOString(),
    not_after: summary.notAfter.toISOString(),
  };
}

/**
 * Imports a `.p12`: checks the password by opening it, then keeps the file and the
 * password, both sealed with the data folder's key, so later signatures need no prompt
 * (CONTRACT §1) and a copy of the store alone gives nothing to attack the password with.
 * Importing the same certificate again updates the stored file. The `.p12` reader (node-forge)
 * is loaded at the first import, not at every start.
 */
export async function importP12(store: Store, secrets: SecretBox, p12: Buffer, password: string): Promise<CertificateRecord> {
  const { readP12 } = await import('../signing/key-sources/p12.js');
  const contents = readP12(p12, password);
  const row = baseRow(contents.certificate, contents.chain, 'p12', 'live');
  const sealed = { p12: null, p12_sealed: secrets.sealBytes(p12), p12_password_sealed: secrets.seal(password) };
  return store.transaction(() => {
    const existing = store.first(store.db.selectFrom('certificates').select('id').where('fingerprint', '=', row.fingerprint).where('source', '=', 'p12'));
    if (existing) {
      store.run(store.db.updateTable('certificates').set({ ...describedColumns(row), ...sealed }).where('id', '=', existing.id));
      return getCertificate(store, existing.id);
    }
    const id = crypto.randomUUID();
    store.run(store.db.insertInto('certificates').values({ id, ...row, ...sealed, created_at: new Date().toISOString() }));
    return getCertificate(store, id);
  });
}

/** A re-import refreshes the description too (rows from before migration 0005 get theirs). */
function describedColumns(row: ReturnType<typeof baseRow>) {
  return { type: row.type, validity: row.validity, principal: row.principal, organization: row.organization, issued_at: row.issued_at };
}

export interface TokenCertificateInput {
  modulePath: string;
  tokenSerial: string;
  tokenLabel: string;
  keyId: Buffer;
  certificate: Buffer;
  chain: Buffer[];
}

/** Records (or refreshes) a certificate found on a token; returns its record. */
export function registerTokenCertificate(store: Store, input: TokenCertificateInput): CertificateRecord {
  const row = baseRow(input.certificate, input.chain, 'token', 'live');
  const token = {
    token_module: input.modulePath,
    token_serial: input.tokenSerial,
    token_label: input.tokenLabel,
    token_key_id: input.keyId.toString('hex'),
  };
  return store.transaction(() => {
    const existing = store.first(store.db.selectFrom('certificates').select('id').where('fingerprint', '=', row.fingerprint).where('source', '=', 'token'));
    if (existing) {
      store.run(store.db.updateTable('certificates').set({ ...describedColumns(row), ...token }).where('id', '=', existing.id));
      return getCertificate(store, existing.id);
    }
    const id = crypto.randomUUID();
    store.run(store.db.insertInto('certificates').values({ id, ...row, ...token, created_at: new Date().toISOString() }));
    return getCertificate(store, id);
  });
}

export function findCertificateRow(store: Store, id: string): CertificateRow | undefined {
  return store.first(store.db.selectFrom('certificates').selectAll().where('id', '=', id));
}

export function getCertificate(store: Store, id: string): CertificateRecord {
  const row = findCertificateRow(store, id);
  if (!row) throw new SelloError('certificate_not_found', { detail: `No existe el certificado ${id}. Véalos con: sello certs list`, detailEn: `There is no certificate ${id}.` });
  return toCertificateRecord(row);
}

export function listCertificates(store: Store): CertificateRecord[] {
  return store.all(store.db.selectFrom('certificates').selectAll().orderBy('created_at')).map(toCertificateRecord);
}
