/**
 * The issuer of a book in one environment (CONTRACT §15): what `PUT /api/v1/issuer` and the
 * admin UI's "Emisor" screen accept, checked all the way before anything is stored.
 *
 * The body (Ecuador, the only country for now):
 * `{country: "EC", ruc, razon_social, nombre_comercial?, dir_matriz, establishments: [{code,
 * address, emission_points: [code…]}], obligado_contabilidad, contribuyente_especial?,
 * agente_retencion?, regimen?, certificate_id}`.
 *
 * - Texts are trimmed and bounded as the SRI's XSDs bound the element they fill (factura 2.1.0:
 *   razonSocial, nombreComercial, dirMatriz, dirEstablecimiento 1–300 characters on one line;
 *   contribuyenteEspecial 3–13 letters or digits; agenteRetencion 1–8 digits); no line breaks
 *   nor control characters (the XSD's `[^\n]*`, and XML 1.0's characters). An optional field
 *   may be left out or sent as `null`.
 * - Establishments and emission points: three digits, not "000" (the SRI numbers them from
 *   001), unique, at least one of each.
 * - The RUC: `checkIssuerRuc` (./sri/identification.ts): a refusal names the rule that failed;
 *   a company or public-body RUC that passes no check digit is accepted with a note, as the SRI
 *   issues such RUCs.
 * - The certificate: one of the office's certificates (core/certificates), issued and within
 *   its validity, an RSA key with the digitalSignature usage (core/xml, the SRI's own checks),
 *   and of the right environment: a live issuer's is a live certificate (token or .p12); a test
 *   issuer's is a test certificate or one of the office's live ones — the SRI's test
 *   environment checks real signatures, so this is the one place a test key may name a live
 *   certificate.
 *
 * Every refusal is one 422 `validation_failed` with Spanish messages by field path
 * (`establishments[0].emission_points[1]`), and changes nothing.
 *
 * @example
 *   const { view } = putIssuer(store, caller, body); // 422 validation_failed, or the stored issuer
 *   getIssuer(store, caller); // 404 not_found when none was configured
 */
import { z } from 'zod';
import { assertUsableForSigning, findCertificateRow, type CertificateRow } from '../certificates/index.js';
import type { Store } from '../db/index.js';
import { SelloError, fieldMessages, isSelloError, issueMessages } from '../errors/index.js';
import { assertXmlSigningCertificate, certificateFacts } from '../xml/light.js';
import { readIssuer } from './issuer-store.js';
import { checkIssuerRuc, type Issuer } from './sri/index.js';

export type IssuerEnvironment = 'test' | 'live';

/** Whose issuer: a Family B caller (its book and environment), or the admin UI's choice. */
export interface IssuerOwner {
  book: { id: string };
  environment: IssuerEnvironment;
}

/** `{data: issuer}` of `GET`/`PUT /api/v1/issuer`: the stored body and where it belongs. */
export type IssuerView = Issuer & { book_id: string; environment: IssuerEnvironment; updated_at: string };

/** What a write answers: the view, and notes on what was accepted without being verified. */
export interface IssuerWrite {
  view: IssuerView;
  /** Messages by field path (the RUC's check digit not verified, a certificate about to expire). */
  notes: Record<string, string>;
}

/** How many days before its expiry a certificate earns a note. */
const EXPIRY_NOTE_DAYS = 30;

/** Whether `text` holds a character that XML 1.0 or the XSD's `[^\n]*` refuses (controls, lone surrogates, U+FFFE/F). */
function hasForbiddenCharacter(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xdfff) || c === 0xfffe || c === 0xffff) return true;
  }
  return false;
}

const stringError = (example: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'es obligatorio' : `debe ser texto entre comillas, por ejemplo "${example}"`;

/** A trimmed, non-empty text of at most `max` characters, on one line (XSD razonSocial, dirMatriz…: 1–300, `[^\n]*`). */
function text(max: number, example: string) {
  return z
    .string({ error: stringError(example) })
    .trim()
    .refine((s) => s.length > 0, { error: 'no puede estar vacío', abort: true })
    .refine((s) => [...s].length <= max, { error: `admite hasta ${max} caracteres (el límite del SRI)`, abort: true })
    .refine((s) => !hasForbiddenCharacter(s), { error: 'no admite saltos de línea ni caracteres de control' });
}

/** Three digits, not "000": an establishment or an emission point (XSD estab, ptoEmi `[0-9]{3}`). */
function seriesCode(what: string) {
  return z
    .string({ error: stringError('001') })
    .refine((s) => /^\d{3}$/.test(s), { error: `debe ser el código de tres dígitos del ${what}, por ejemplo "001"`, abort: true })
    .refine((s) => s !== '000', `el SRI numera los ${what === 'establecimiento' ? 'establecimientos' : 'puntos de emisión'} desde 001; 000 no es un código válido`);
}

/**
 * Reports codes listed twice, at their later occurrences. It runs even when other fields of
 * the same object failed (`when`), so one answer names every problem: `value` is then only
 * partly parsed, and anything that is not a code is passed over.
 */
function noDuplicates(list: (value: unknown) => unknown[], path: (i: number) => PropertyKey[], what: string) {
  return [
    (value: unknown, ctx: z.core.$RefinementCtx) => {
      const seen = new Set<string>();
      list(value).forEach((code, i) => {
        if (typeof code !== 'string' || !/^\d{3}$/.test(code)) return;
        if (seen.has(code)) ctx.addIssue({ code: 'custom', input: code, path: path(i), message: `el ${what} ${code} está repetido; cada código aparece una sola vez` });
        seen.add(code);
      });
    },
    { when: () => true },
  ] as const;
}

const arrayAt = (value: unknown, key: string): unknown[] => {
  const found = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return Array.isArray(found) ? found : [];
};

const establishment = z
  .strictObject(
    {
      code: seriesCode('establecimiento'),
      address: text(300, 'Av. 9 de Octubre 1215, Guayaquil'),
      emission_points: z
        .array(seriesCode('punto de emisión'), { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser una lista de códigos, por ejemplo ["001", "002"]') })
        .min(1, 'cada establecimiento necesita al menos un punto de emisión, por ejemplo ["001"]')
        .max(999, 'admite hasta 999 puntos de emisión'),
    },
    { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto {code, address, emission_points}') },
  )
  .superRefine(...noDuplicates((v) => arrayAt(v, 'emission_points'), (i) => ['emission_points', i], 'punto de emisión'));

/** An optional field: absent or `null` mean the same. */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

export const regimes = ['general', 'rimpe_emprendedor', 'rimpe_negocio_popular'] as const;

/**
 * The schema of `PUT /api/v1/issuer` for Ecuador (CONTRACT §15), bounded by factura_V2.1.0.xsd.
 * The RUC's check digits and the certificate need more than the body: `putIssuer` checks them.
 */
export const issuerBodySchema = z
  .strictObject(
    {
      country: z.literal('EC', { error: (issue) => (issue.input === undefined ? 'es obligatorio: "EC"' : 'debe ser "EC" (Ecuador)') }),
      ruc: z
        .string({ error: stringError('1790012344001') })
        .trim()
        .refine((s) => /^\d{10}001$/.test(s), 'debe ser el RUC del emisor: 13 dígitos que terminan en 001, sin guiones ni espacios'),
      razon_social: text(300, 'Comercializadora Andina S.A.'),
      nombre_comercial: optional(text(300, 'Café Ñusta')),
      dir_matriz: text(300, 'Av. Amazonas N34-451 y Atahualpa, Quito'),
      establishments: z
        .array(establishment, { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser una lista de establecimientos {code, address, emission_points}') })
        .min(1, 'el emisor necesita al menos un establecimiento, por ejemplo [{"code": "001", "address": "…", "emission_points": ["001"]}]')
        .max(999, 'admite hasta 999 establecimientos'),
      obligado_contabilidad: z.boolean({ error: (issue) => (issue.input === undefined ? 'es obligatorio: true o false' : 'debe ser true o false, sin comillas') }),
      contribuyente_especial: optional(
        z
          .string({ error: stringError('5368') })
          .trim()
          .refine((s) => /^[A-Za-z0-9]{3,13}$/.test(s), 'debe ser el número de resolución de contribuyente especial: de 3 a 13 letras o dígitos, sin espacios ni guiones'),
      ),
      agente_retencion: optional(
        z
          .string({ error: stringError('1') })
          .trim()
          .refine((s) => /^\d{1,8}$/.test(s), 'debe ser el número de la resolución de agente de retención: de 1 a 8 dígitos, por ejemplo "1"'),
      ),
      regimen: optional(z.enum(regimes, { error: `debe ser uno de: ${regimes.join(', ')}` })),
      certificate_id: z
        .string({ error: stringError('el id de un certificado') })
        .trim()
        .refine((s) => s.length > 0, 'es obligatorio: el id del certificado con el que se firman los comprobantes')
        .refine((s) => s.length <= 100, 'admite hasta 100 caracteres'),
    },
    { error: 'el cuerpo debe ser un objeto JSON con los datos del emisor' },
  )
  .superRefine(
    ...noDuplicates(
      (v) => arrayAt(v, 'establishments').map((e) => (e !== null && typeof e === 'object' ? (e as Record<string, unknown>).code : undefined)),
      (i) => ['establishments', i, 'code'],
      'establecimiento',
    ),
  );

export type IssuerBody = z.infer<typeof issuerBodySchema>;

/** Peru's issuer (CONTRACT §16) is not built yet: one clear refusal instead of a list of unknown fields. */
function refusePeru(raw: unknown): void {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && (raw as Record<string, unknown>).country === 'PE') {
    const message = 'Sello todavía no emite comprobantes para Perú (SUNAT); por ahora solo admite emisores de Ecuador ("EC")';
    throw new SelloError('validation_failed', {
      detail: summary({ country: [message] }),
      detailEn: 'Sello does not issue documents for Peru (SUNAT) yet; for now it only accepts issuers from Ecuador ("EC").',
      fields: { country: [message] },
      meta: { rules: { country: 'pais_no_disponible' } },
    });
  }
}

const day = (iso: string) => iso.slice(0, 10);

/**
 * Why `row` cannot sign `environment`'s XML, as one Spanish sentence and a stable rule name;
 * undefined when it can. Unknown ids and other-environment certificates are told apart: the
 * office sees all its certificates in the admin UI anyway.
 */
function certificateProblem(
  row: CertificateRow | undefined,
  id: string,
  environment: IssuerEnvironment,
  now: Date,
): { rule: string; message: string } | undefined {
  if (!row) {
    return {
      rule: 'certificate_not_found',
      message: `no existe el certificado ${id} entre los certificados de esta oficina; véalos en la pantalla Certificados o con «sello certs list»`,
    };
  }
  if (environment === 'live' && row.environment !== 'live') {
    return {
      rule: 'certificate_environment',
      message:
        'es un certificado de prueba (de la CA de pruebas de Sello): el SRI de producción no lo acepta. Un emisor de producción firma con un certificado real, de un token o de un archivo .p12',
    };
  }
  try {
    assertUsableForSigning(row, now);
    assertXmlSigningCertificate(certificateFacts(row.certificate));
  } catch (err) {
    if (isSelloError(err)) return { rule: err.code, message: err.message };
    return { rule: 'certificate_unreadable', message: 'el certificado guardado no se puede leer como X.509; vuelva a importarlo' };
  }
  return undefined;
}

/** The Issuer as stored, in the contract's order: optional fields left out when absent, never `null`. */
function toIssuer(body: IssuerBody): Issuer {
  return {
    country: 'EC',
    ruc: body.ruc,
    razon_social: body.razon_social,
    ...(body.nombre_comercial !== undefined ? { nombre_comercial: body.nombre_comercial } : {}),
    dir_matriz: body.dir_matriz,
    establishments: body.establishments.map((e) => ({ code: e.code, address: e.address, emission_points: [...e.emission_points] })),
    obligado_contabilidad: body.obligado_contabilidad,
    ...(body.contribuyente_especial !== undefined ? { contribuyente_especial: body.contribuyente_especial } : {}),
    ...(body.agente_retencion !== undefined ? { agente_retencion: body.agente_retencion } : {}),
    ...(body.regimen !== undefined ? { regimen: body.regimen } : {}),
    certificate_id: body.certificate_id,
  };
}

/** Every message of a refusal in one line, for the envelope's `message` (curl users read that first). */
function summary(fields: Record<string, string[]>): string {
  const parts = Object.entries(fields).flatMap(([path, messages]) => messages.map((m) => `${path}: ${m}`));
  const shown = parts.slice(0, 5).join('; ');
  return `Los datos del emisor no son válidos. ${shown}${parts.length > 5 ? `; y ${parts.length - 5} más` : ''}.`;
}

/**
 * Checks a body for `owner`'s environment against the store's certificates: the schema, the
 * RUC and the certificate, every problem at once. Throws 422 `validation_failed`.
 */
export function checkIssuerBody(store: Store, environment: IssuerEnvironment, raw: unknown, now: Date = new Date()): { issuer: Issuer; notes: Record<string, string> } {
  refusePeru(raw);
  const parsed = issuerBodySchema.safeParse(raw);
  const fields = parsed.success ? fieldMessages() : issueMessages(parsed.error.issues);
  const rules: Record<string, string> = {};
  const notes: Record<string, string> = {};

  // The RUC and the certificate are judged whenever they themselves are well-formed, so that
  // one answer names every problem of the body.
  const input = (raw ?? {}) as Record<string, unknown>;
  const ruc = typeof input.ruc === 'string' ? input.ruc.trim() : undefined;
  if (ruc !== undefined && /^\d{10}001$/.test(ruc)) {
    const check = checkIssuerRuc(ruc);
    if (!check.ok) {
      (fields.ruc ??= []).push(check.message);
      rules.ruc = check.rule;
    } else if (check.note) {
      notes.ruc = check.note;
    }
  }
  const certificateId = typeof input.certificate_id === 'string' ? input.certificate_id.trim() : undefined;
  if (certificateId && certificateId.length <= 100) {
    const row = findCertificateRow(store, certificateId);
    const problem = certificateProblem(row, certificateId, environment, now);
    if (problem) {
      (fields.certificate_id ??= []).push(problem.message);
      rules.certificate_id = problem.rule;
    } else if (row) {
      const days = Math.floor((Date.parse(row.not_after) - now.getTime()) / 86_400_000);
      if (days < EXPIRY_NOTE_DAYS) notes.certificate_id = `el certificado vence el ${day(row.not_after)} (en ${days} días): renuévelo a tiempo, el SRI no acepta firmas con certificados caducados`;
    }
  }

  if (!parsed.success || Object.keys(fields).length > 0) {
    throw new SelloError('validation_failed', {
      detail: summary(fields),
      detailEn: 'The issuer data is not valid; see `errors` for each field (in Spanish).',
      fields,
      ...(Object.keys(rules).length > 0 ? { meta: { rules } } : {}),
    });
  }
  return { issuer: toIssuer(parsed.data), notes };
}

function view(owner: IssuerOwner, issuer: Issuer, updatedAt: string): IssuerView {
  return { ...issuer, book_id: owner.book.id, environment: owner.environment, updated_at: updatedAt };
}

/**
 * Checks `body` and stores it as `owner`'s issuer (insert or replace), in one transaction: the
 * certificate it names cannot change between the check and the write. A refusal stores nothing.
 */
export function putIssuer(store: Store, owner: IssuerOwner, body: unknown, now: () => Date = () => new Date()): IssuerWrite {
  return store.transaction(() => {
    const at = now();
    const { issuer, notes } = checkIssuerBody(store, owner.environment, body, at);
    const updatedAt = at.toISOString();
    const json = JSON.stringify(issuer);
    store.run(
      store.db
        .insertInto('issuers')
        .values({
          book_id: owner.book.id,
          environment: owner.environment,
          country: issuer.country,
          body: json,
          certificate_id: issuer.certificate_id,
          created_at: updatedAt,
          updated_at: updatedAt,
        })
        .onConflict((oc) => oc.columns(['book_id', 'environment']).doUpdateSet({ country: issuer.country, body: json, certificate_id: issuer.certificate_id, updated_at: updatedAt })),
    );
    return { view: view(owner, issuer, updatedAt), notes };
  });
}

/** The answer to a write: `{data: issuer}`, plus `meta.notes` by field when something was accepted without being verified. */
export function issuerWriteBody(written: IssuerWrite): { data: IssuerView; meta?: { notes: Record<string, string> } } {
  return Object.keys(written.notes).length > 0 ? { data: written.view, meta: { notes: written.notes } } : { data: written.view };
}

/** `owner`'s issuer; 404 `not_found`, saying how to configure it, when there is none. */
export function getIssuer(store: Store, owner: IssuerOwner): IssuerView {
  const found = readIssuer(store, owner.book.id, owner.environment);
  if (!found) {
    const where = owner.environment === 'live' ? 'producción (live)' : 'pruebas (test)';
    throw new SelloError('not_found', {
      detail: `Este libro no tiene emisor configurado en el ambiente de ${where}. Configúrelo con PUT /api/v1/issuer o en la pantalla Emisor de la administración.`,
      detailEn: `This book has no issuer configured in its ${owner.environment} environment. Configure it with PUT /api/v1/issuer or on the admin UI's Emisor screen.`,
    });
  }
  return view(owner, found.issuer, found.updatedAt);
}
