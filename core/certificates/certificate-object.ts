/**
 * The spec's Certificate object and its parts (spec, Resources: Certificate, Principal,
 * Organization, IdType, Address), and how a live certificate's X.509 fills them
 * (CONTRACT §10). What a certificate does not carry stays an empty string: nothing is
 * invented (docs/certificates.md lists what is left empty).
 */
import { X509Certificate } from 'node:crypto';
import { identificationTypes } from '../catalogs/index.js';
import { readX509Fields, type X509Fields } from './x509-fields.js';

export const certificateTypes = [
  'ec/instant',
  'ec/individual',
  'ec/sole-proprietorship',
  'ec/business-director',
  'ec/business-employee',
  'ec/organization',
  'jm/instant',
  'pa/instant',
  'pe/instant',
  'br/instant',
  'bo/instant',
  'sv/instant',
  'gt/instant',
  'hn/instant',
  'ni/instant',
] as const;
export type CertificateType = (typeof certificateTypes)[number];

export const certificateStatuses = ['issued', 'draft', 'processing'] as const;
export type CertificateStatus = (typeof certificateStatuses)[number];

/** Spec, Limits: the only validity values, in days. */
export const validityDays = [1, 365, 732, 1095, 1825] as const;

export interface IdType {
  /** API code of the catalog (`ec-cedula`). */
  type: string;
  /** Tax-authority code (`05`). */
  code: string;
  name: string;
}

export interface Address {
  line_1: string;
  locality: string;
  administrative_district_level_1: string;
  administrative_district_level_2: string;
  city?: string;
  province?: string;
  ubigeo?: string;
  tax_code?: string;
  country: { code: string; name: string };
}

export interface Principal {
  first_name: string;
  middle_name?: string;
  last_name: string;
  second_last_name?: string;
  email: string;
  mobile_phone: string;
  legal_id: string;
  legal_id_type: IdType;
  position?: string;
  tax_id?: string;
  tax_id_type?: IdType;
  address: Address;
}

export interface Organization {
  legal_name: string;
  tax_id_type: IdType;
  tax_id: string;
  address: Address;
  position?: string;
}

/** The spec's Certificate (Family A JSON). */
export interface CertificateObject {
  id: string;
  type: CertificateType;
  environment: 'test' | 'live';
  validity: number;
  created: string;
  issued: string;
  expiry: string;
  serial_number: string;
  principal: Principal;
  status: CertificateStatus;
  organization?: Organization;
}

/** What the X.509 says about its holder: the parts of the Certificate object it fills. */
export interface X509Description {
  type: CertificateType;
  principal: Principal;
  organization?: Organization;
}

/** The catalog entry `apiCode` as an IdType; an all-empty IdType when the catalog lacks it. */
export function catalogIdType(apiCode: string): IdType {
  const t = identificationTypes.find((i) => i.code === apiCode);
  return t ? { type: t.code, code: t.authority_code, name: t.name } : emptyIdType();
}

function emptyIdType(): IdType {
  return { type: '', code: '', name: '' };
}

// X.520 / PKCS#9 attribute types (RFC 4519, RFC 2985).
const OID = {
  commonName: '2.5.4.3',
  surname: '2.5.4.4',
  serialNumber: '2.5.4.5',
  country: '2.5.4.6',
  locality: '2.5.4.7',
  state: '2.5.4.8',
  street: '2.5.4.9',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  title: '2.5.4.12',
  givenName: '2.5.4.42',
  organizationIdentifier: '2.5.4.97',
  emailAddress: '1.2.840.113549.1.9.1',
} as const;

/**
 * Arcs of Ecuador's accredited CAs whose `.3.N` children name the holder's data. The
 * numbering is the one FirmaEC (the government's signing tool, library
 * `ec.gob.firmadigital.libreria.certificate`, classes `CertificadoOids`, `CertificadoAnfAc`,
 * `CertificadoBancoCentral`, `CertificadoSecurityData`) reads, the same for all of them:
 * 1 cédula/pasaporte, 2 nombres, 3 primer apellido, 4 segundo apellido, 5 cargo,
 * 6 institución, 7 dirección, 8 teléfono, 9 ciudad, 10 razón social, 11 RUC, 12 país.
 */
export const ecuadorianArcs = {
  securityData: '1.3.6.1.4.1.37746.3',
  bancoCentral: '1.3.6.1.4.1.37947.3',
  anfAc: '1.3.6.1.4.1.18332.3',
  anfAcEcuador: '1.3.6.1.4.1.37442.3',
} as const;

export const ecuadorianField = {
  cedula: 1,
  nombres: 2,
  primerApellido: 3,
  segundoApellido: 4,
  cargo: 5,
  institucion: 6,
  direccion: 7,
  telefono: 8,
  ciudad: 9,
  razonSocial: 10,
  ruc: 11,
  pais: 12,
} as const;

type EcuadorianField = keyof typeof ecuadorianField;

function ecuadorianValue(custom: Map<string, string>, field: EcuadorianField): string {
  for (const arc of Object.values(ecuadorianArcs)) {
    const value = custom.get(`${arc}.${ecuadorianField[field]}`);
    if (value) return value;
  }
  return '';
}

/**
 * ETSI EN 319 412-1 §5.1.3 semantics identifiers in serialNumber/organizationIdentifier:
 * `IDCEC-0912345678` (identity card), `PASEC-…` (passport), `TINEC-…`/`VATEC-…` (tax id).
 */
function splitSemantics(value: string): { kind?: string; country?: string; id: string } {
  const m = /^([A-Z]{3})([A-Z]{2})-(.+)$/.exec(value);
  return m ? { kind: m[1]!, country: m[2]!, id: m[3]! } : { id: value };
}

function legalIdTypeOf(id: string, country: string, kind?: string): IdType {
  if (!id) return emptyIdType();
  if (kind === 'PAS') return catalogIdType(country === 'PE' ? 'pe-pasaporte' : 'ec-pasaporte');
  if (country === 'PE' && /^\d{8}$/.test(id)) return catalogIdType('pe-dni');
  if (country !== 'PE' && /^\d{10}$/.test(id)) return catalogIdType('ec-cedula');
  return emptyIdType();
}

function taxIdTypeOf(id: string, country: string): IdType {
  if (/^\d{13}$/.test(id) && country !== 'PE') return catalogIdType('ec-ruc');
  if (/^\d{11}$/.test(id) && country === 'PE') return catalogIdType('pe-ruc');
  return emptyIdType();
}

const regionNames = new Intl.DisplayNames(['es'], { type: 'region' });

function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return '';
  try {
    return regionNames.of(code) ?? '';
  } catch {
    return '';
  }
}

/** Words that name a company's legal representative in the `cargo`/title (rule of docs/certificates.md). */
const DIRECTOR_POSITION = /represent|gerente|director|president|apoderad/i;

/**
 * Describes a live certificate's holder from its X.509 (CONTRACT §10). Ecuadorian CA
 * fields win over the generic subject attributes, which win over nothing (empty string).
 *
 * Type rule: an organization name (extension razón social or subject O) together with a
 * RUC makes it `ec/business-director` when the position names a legal representative,
 * else `ec/business-employee`; without an organization, a RUC makes it
 * `ec/sole-proprietorship`; otherwise `ec/individual`.
 *
 * @example
 *   describeX509(der).principal.legal_id // '0912345678'
 */
export function describeX509(der: Buffer): X509Description {
  let fields: X509Fields;
  try {
    fields = readX509Fields(der);
  } catch {
    // A layout forge's reader refuses must not block an import: keep at least the CN, as Node reads it.
    const cn = /(?:^|\n)CN=([^\n]+)/.exec(new X509Certificate(der).subject)?.[1] ?? '';
    fields = { subject: new Map(cn ? [[OID.commonName, cn]] : []), altEmails: [], custom: new Map() };
  }
  return describeFields(fields);
}

export function describeFields(f: X509Fields): X509Description {
  const subj = (oid: string) => f.subject.get(oid) ?? '';
  const ec = (field: EcuadorianField) => ecuadorianValue(f.custom, field);

  const country = (subj(OID.country) || '').toUpperCase();
  const serial = splitSemantics(subj(OID.serialNumber));
  const orgIdentifier = splitSemantics(subj(OID.organizationIdentifier));
  const countryCode = country || serial.country || orgIdentifier.country || '';

  const legalId = ec('cedula') || (serial.kind === 'TIN' || serial.kind === 'VAT' ? '' : serial.id);
  // A 13-digit serialNumber is a RUC (some CAs put it there instead of the cédula).
  const serialIsRuc = serial.kind === 'TIN' || serial.kind === 'VAT' || (/^\d{13}$/.test(serial.id) && !ec('cedula'));
  const ruc = ec('ruc') || (orgIdentifier.id ? orgIdentifier.id : '') || (serialIsRuc ? serial.id : '');
  const legalIdFinal = serialIsRuc && legalId === serial.id ? '' : legalId;

  const cn = subj(OID.commonName);
  const given = ec('nombres') || subj(OID.givenName);
  const surname1 = ec('primerApellido') || subj(OID.surname);
  const surname2 = ec('segundoApellido');
  const position = ec('cargo') || subj(OID.title);
  const email = subj(OID.emailAddress) || f.altEmails[0] || '';
  const city = ec('ciudad') || subj(OID.locality);
  const address: Address = {
    line_1: ec('direccion') || subj(OID.street),
    locality: subj(OID.locality),
    administrative_district_level_1: subj(OID.state),
    administrative_district_level_2: city,
    country: { code: countryCode, name: countryName(countryCode) || ec('pais') },
  };

  const orgName = ec('razonSocial') || subj(OID.organization);
  const isBusiness = orgName !== '' && ruc !== '';

  const principal: Principal = {
    // Without given name and surname, the whole CN goes in first_name: it is not split by guesswork.
    first_name: given || (surname1 ? '' : cn),
    last_name: surname1,
    email,
    mobile_phone: ec('telefono'),
    legal_id: legalIdFinal,
    legal_id_type: legalIdTypeOf(legalIdFinal, countryCode, serial.kind),
    address,
  };
  if (surname2) principal.second_last_name = surname2;
  if (position) principal.position = position;
  if (ruc && !isBusiness) {
    principal.tax_id = ruc;
    principal.tax_id_type = taxIdTypeOf(ruc, countryCode);
  }

  if (!isBusiness) return { type: ruc ? 'ec/sole-proprietorship' : 'ec/individual', principal };
  const organization: Organization = {
    legal_name: orgName,
    tax_id_type: taxIdTypeOf(ruc, countryCode),
    tax_id: ruc,
    // The certificate carries one address; it is the organization's as much as the holder's.
    address: { ...address, country: { ...address.country } },
  };
  if (position) organization.position = position;
  return { type: DIRECTOR_POSITION.test(position) ? 'ec/business-director' : 'ec/business-employee', principal, organization };
}

/** Whole days between two instants, as the spec's `validity` counts them. */
export function validityBetween(notBefore: Date, notAfter: Date): number {
  return Math.round((notAfter.getTime() - notBefore.getTime()) / 86_400_000);
}
