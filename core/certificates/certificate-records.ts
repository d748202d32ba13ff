/**
 * Certificate rows seen as the spec's Certificate objects, per environment (CONTRACT §3,
 * §10), and the checks signing makes before it uses one (CONTRACT §11).
 */
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';
import {
  certificateTypes,
  describeX509,
  validityBetween,
  type CertificateObject,
  type CertificateStatus,
  type CertificateType,
  type Organization,
  type Principal,
} from './certificate-object.js';
import type { CertificateRow } from './registry.js';

function isCertificateType(value: string | null): value is CertificateType {
  return value !== null && (certificateTypes as readonly string[]).includes(value);
}

/**
 * The spec's Certificate object (Family A JSON) from a stored row. Rows stored before
 * migration 0005 have no description columns: they are described from their X.509.
 */
export function toCertificateObject(row: CertificateRow): CertificateObject {
  const notBefore = new Date(row.not_before);
  const notAfter = new Date(row.not_after);
  const described = row.principal === null || !isCertificateType(row.type) ? describeX509(row.certificate) : undefined;
  const principal = described ? described.principal : (JSON.parse(row.principal!) as Principal);
  const organization = described ? described.organization : row.organization ? (JSON.parse(row.organization) as Organization) : undefined;
  const object: CertificateObject = {
    id: row.id,
    type: described ? described.type : (row.type as CertificateType),
    environment: row.environment,
    validity: row.validity ?? validityBetween(notBefore, notAfter),
    created: row.created_at,
    issued: row.issued_at ?? notBefore.toISOString(),
    expiry: notAfter.toISOString(),
    serial_number: row.serial_number,
    principal,
    status: row.status,
  };
  if (organization) object.organization = organization;
  return object;
}

export interface CertificateFilters {
  status?: CertificateStatus;
  type?: CertificateType;
}

/**
 * The certificates one environment sees (a test key never sees live ones, CONTRACT §3),
 * oldest first, optionally filtered by status and type.
 *
 * @example
 *   listCertificateObjects(store, 'test', { type: 'ec/instant' })
 *   // select * from certificates where environment = 'test' order by created_at, then filtered by type
 */
export function listCertificateObjects(store: Store, environment: 'test' | 'live', filters: CertificateFilters = {}): CertificateObject[] {
  let query = store.db.selectFrom('certificates').selectAll().where('environment', '=', environment);
  if (filters.status) query = query.where('status', '=', filters.status);
  // The type of a pre-0005 row is derived, not stored: filter after describing.
  const objects = store.all(query.orderBy('created_at').orderBy('id')).map(toCertificateObject);
  return filters.type ? objects.filter((c) => c.type === filters.type) : objects;
}

function notFound(id: string): SelloError {
  return new SelloError('certificate_not_found', {
    detail: `No existe el certificado ${id}.`,
    detailEn: `There is no certificate ${id}.`,
  });
}

/**
 * The row of certificate `id` if it is of `environment`; an other-environment
 * certificate is "not found", exactly as an unknown one (CONTRACT §3).
 *
 * @example
 *   const row = findCertificateForEnvironment(store, body.signing_certificate, caller.environment);
 *   assertUsableForSigning(row);
 */
export function findCertificateForEnvironment(store: Store, id: string, environment: 'test' | 'live'): CertificateRow {
  const row = store.first(store.db.selectFrom('certificates').selectAll().where('id', '=', id).where('environment', '=', environment));
  if (!row) throw notFound(id);
  return row;
}

/** Throws `certificate_not_issued` unless issued, `certificate_expired` outside its validity (CONTRACT §11). */
export function assertUsableForSigning(row: CertificateRow, now: Date = new Date()): void {
  if (row.status !== 'issued') {
    throw new SelloError('certificate_not_issued', {
      detail: `El certificado ${row.id} está en estado ${row.status}; solo se firma con certificados emitidos (issued).`,
      detailEn: `Certificate ${row.id} is ${row.status}; only issued certificates can sign.`,
    });
  }
  const notBefore = new Date(row.not_before);
  const notAfter = new Date(row.not_after);
  if (now < notBefore || now > notAfter) {
    throw new SelloError('certificate_expired', {
      detail:
        now > notAfter
          ? `El certificado ${row.id} caducó el ${notAfter.toISOString()}.`
          : `El certificado ${row.id} es válido desde el ${notBefore.toISOString()}.`,
      detailEn: now > notAfter ? `Certificate ${row.id} expired on ${notAfter.toISOString()}.` : `Certificate ${row.id} is valid from ${notBefore.toISOString()}.`,
    });
  }
}
