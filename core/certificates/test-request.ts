/**
 * A request for a test certificate (CONTRACT §10; spec, Certificate): the body of
 * `POST /admin/api/test-certificates` and of `sello certs issue-test`, checked in one
 * place so that both refuse the same things with the same field paths.
 */
import { z } from 'zod';
import { isCatalogIdType } from '../catalogs/index.js';
import { SelloError, fieldMessages, issueMessages } from '../errors/index.js';
import { certificateTypes, validityDays, type CertificateType, type Organization, type Principal } from './certificate-object.js';

function required(what = 'texto') {
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'es obligatorio' : `debe ser ${what}`) })
    .trim()
    .min(1, { error: 'no puede estar vacío' });
}

function optionalText() {
  return z.string({ error: 'debe ser texto' }).trim().optional();
}

/** Every IdType must be a (`type`, `code`) pair of the identification-type catalog (CONTRACT §8). */
const idTypeSchema = z
  .object(
    { type: required(), code: required(), name: required() },
    { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto {type, code, name}') },
  )
  .superRefine((v, ctx) => {
    if (!isCatalogIdType(v.type, v.code)) {
      ctx.addIssue({
        code: 'custom',
        message: `(${v.type}, ${v.code}) no es un par (type, code) del catálogo de tipos de identificación (GET /api/v1/identification-types), por ejemplo (ec-cedula, 05)`,
      });
    }
  });

const addressSchema = z.object(
  {
    line_1: required(),
    locality: required(),
    administrative_district_level_1: required(),
    administrative_district_level_2: required(),
    city: optionalText(),
    province: optionalText(),
    ubigeo: optionalText(),
    tax_code: optionalText(),
    country: z.object(
      {
        code: required().regex(/^[A-Z]{2}$/, { error: 'debe ser un código ISO 3166 de dos letras mayúsculas, como EC o PE' }),
        name: required(),
      },
      { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto {code, name}') },
    ),
  },
  { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto') },
);

const principalSchema = z.object(
  {
    first_name: required(),
    middle_name: optionalText(),
    last_name: required(),
    second_last_name: optionalText(),
    email: required().pipe(z.email({ error: 'no es una dirección de correo válida' })),
    mobile_phone: required(),
    legal_id: required(),
    legal_id_type: idTypeSchema,
    position: optionalText(),
    tax_id: optionalText(),
    tax_id_type: idTypeSchema.optional(),
    address: addressSchema,
    ip_address: optionalText(),
    user_agent: optionalText(),
    proof_of_id: optionalText(),
  },
  { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto') },
);

const organizationSchema = z.object(
  {
    legal_name: required(),
    tax_id_type: idTypeSchema,
    tax_id: required(),
    address: addressSchema,
    position: optionalText(),
  },
  { error: 'debe ser un objeto' },
);

const requestSchema = z.object(
  {
    type: z.enum(certificateTypes, { error: `debe ser uno de ${certificateTypes.join(', ')}` }),
    validity: z
      .number({ error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un número de días') })
      .refine((v) => (validityDays as readonly number[]).includes(v), { error: `debe ser uno de ${validityDays.join(', ')} (días)` }),
    principal: principalSchema,
    organization: organizationSchema.optional(),
  },
  { error: 'el cuerpo debe ser un objeto JSON' },
);

export interface TestCertificateRequest {
  type: CertificateType;
  validity: number;
  principal: Principal;
  organization?: Organization;
}

const needsOrganization = new Set<CertificateType>(['ec/business-director', 'ec/business-employee', 'ec/organization']);

/**
 * The spec's rules between fields (spec, Certificate: type and validity): the `…/instant` types
 * only for 1 day; `ec/instant` natural persons only; `ec/individual` identity card only,
 * no tax id; `ec/sole-proprietorship` a natural person with tax id; `ec/business-*` and
 * `ec/organization` need an organization. Returns messages by field path.
 */
export function testCertificateRuleViolations(r: TestCertificateRequest): Record<string, string[]> {
  const out = fieldMessages();
  const add = (path: string, message: string) => (out[path] ??= []).push(message);
  if (r.type.endsWith('/instant') && r.validity !== 1) add('validity', `los certificados ${r.type} solo admiten validez de 1 día`);
  if ((r.principal.tax_id === undefined) !== (r.principal.tax_id_type === undefined)) {
    add(r.principal.tax_id === undefined ? 'principal.tax_id' : 'principal.tax_id_type', 'tax_id y tax_id_type van juntos');
  }
  if (r.type === 'ec/individual') {
    if (r.principal.tax_id !== undefined) add('principal.tax_id', 'un certificado ec/individual lleva solo la cédula: no admite tax_id');
    if (r.organization) add('organization', 'un certificado ec/individual no admite organization');
  }
  if (r.type === 'ec/instant' && r.organization) add('organization', 'los certificados ec/instant son solo para personas naturales: no admiten organization');
  if (r.type === 'ec/sole-proprietorship') {
    if (r.principal.tax_id === undefined && !out['principal.tax_id_type']) add('principal.tax_id', 'un certificado ec/sole-proprietorship necesita el RUC del titular (tax_id y tax_id_type)');
    if (r.organization) add('organization', 'un certificado ec/sole-proprietorship es de persona natural: no admite organization');
  }
  if (needsOrganization.has(r.type) && !r.organization) add('organization', `un certificado ${r.type} necesita organization (legal_name, tax_id_type, tax_id, address)`);
  return out;
}

/**
 * Parses an untrusted test-certificate request, or throws `validation_failed` with
 * Spanish messages by field path (`principal.legal_id_type`), the same in the admin API,
 * Family A and the CLI. Nothing is written before this passes.
 *
 * @example
 *   parseTestCertificateRequest({ type: 'ec/instant', validity: 365, principal })
 *   // throws SelloError validation_failed, fields { validity: ['los certificados ec/instant solo admiten validez de 1 día'] }
 */
export function parseTestCertificateRequest(raw: unknown): TestCertificateRequest {
  const parsed = requestSchema.safeParse(raw);
  const fields = parsed.success ? testCertificateRuleViolations(parsed.data as TestCertificateRequest) : issueMessages(parsed.error.issues);
  const names = Object.keys(fields);
  if (names.length > 0 || !parsed.success) {
    const summary = names.map((n) => `${n}: ${fields[n]!.join('; ')}`).join(' · ');
    throw new SelloError('validation_failed', {
      fields,
      detail: `La solicitud de certificado de prueba no es válida. ${summary}`,
      detailEn: `The test certificate request is not valid. ${summary}`,
    });
  }
  return parsed.data as TestCertificateRequest;
}
