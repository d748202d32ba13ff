/**
 * Building the 49-digit access key (clave de acceso) of a document Sello issues (CONTRACT §15;
 * fiscal README): issue date ddmmaaaa (8) · codDoc (2) · RUC (13) · ambiente (1) · estab + ptoEmi
 * (6) · secuencial (9) · numeric code (8, the issuer's choice) · tipoEmision (1, always "1",
 * normal: the offline scheme has no other) · modulo-11 check digit (core/documents).
 */
import crypto from 'node:crypto';
import { withCheckDigit } from '../../documents/index.js';
import type { Ambiente } from './invoice-model.js';

/** SRI document type codes (codDoc). */
export const COD_DOC = {
  factura: '01',
  liquidacionCompra: '03',
  notaCredito: '04',
  notaDebito: '05',
  guiaRemision: '06',
  comprobanteRetencion: '07',
} as const;

export interface AccessKeyParts {
  /** YYYY-MM-DD. */
  issueDate: string;
  /** Two digits ("01" factura). */
  codDoc: string;
  /** Thirteen digits. */
  ruc: string;
  ambiente: Ambiente;
  /** Three digits. */
  establishment: string;
  /** Three digits. */
  emissionPoint: string;
  /** Nine digits ("000000123"). */
  secuencial: string;
  /** Eight digits, chosen by the caller (`randomNumericCode()`). */
  numericCode: string;
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`accessKeyFor: ${what}`);
}

/**
 * The access key of a document. Throws on a malformed part: the parts come from a computed
 * invoice, the issuer and the numbering, all checked before.
 *
 * @example
 *   accessKeyFor({ issueDate: '2011-10-21', codDoc: '01', ruc: '1792146739001', ambiente: 1,
 *     establishment: '002', emissionPoint: '001', secuencial: '000000001', numericCode: '12345678' })
 *   // '2110201101179214673900110020010000000011234567813'
 */
export function accessKeyFor(parts: AccessKeyParts): string {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(parts.issueDate);
  expect(date !== null, `issueDate "${parts.issueDate}" is not YYYY-MM-DD`);
  expect(/^\d{2}$/.test(parts.codDoc), `codDoc "${parts.codDoc}" is not two digits`);
  expect(/^\d{13}$/.test(parts.ruc), `ruc "${parts.ruc}" is not thirteen digits`);
  expect(parts.ambiente === 1 || parts.ambiente === 2, `ambiente ${String(parts.ambiente)} is neither 1 nor 2`);
  expect(/^\d{3}$/.test(parts.establishment), `establishment "${parts.establishment}" is not three digits`);
  expect(/^\d{3}$/.test(parts.emissionPoint), `emissionPoint "${parts.emissionPoint}" is not three digits`);
  expect(/^\d{9}$/.test(parts.secuencial), `secuencial "${parts.secuencial}" is not nine digits`);
  expect(/^\d{8}$/.test(parts.numericCode), `numericCode "${parts.numericCode}" is not eight digits`);
  const [, year, month, day] = date!;
  const first48 = `${day}${month}${year}${parts.codDoc}${parts.ruc}${parts.ambiente}${parts.establishment}${parts.emissionPoint}${parts.secuencial}${parts.numericCode}1`;
  return withCheckDigit(first48);
}

/**
 * An 8-digit numeric code for an access key, from the system's CSPRNG: it makes keys of the same
 * series and number hard to guess (anybody may ask the SRI for a document by its key).
 *
 * @example randomNumericCode() // '04718263'
 */
export function randomNumericCode(): string {
  return String(crypto.randomInt(0, 100_000_000)).padStart(8, '0');
}

/** `001-001-000000123`: the printed number of a document. @example numeroOf('001', '001', '000000123') */
export function numeroOf(establishment: string, emissionPoint: string, secuencial: string): string {
  return `${establishment}-${emissionPoint}-${secuencial}`;
}
