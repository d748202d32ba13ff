/**
 * From a valid `POST /api/v1/remission-guides` body to the guía de remisión Sello issues
 * (CONTRACT §15): what needs the catalogs or the clock, in the manner of `computeInvoice`.
 *
 * - The issue date: the invoice's rule (not after today in Ecuador, at most `MAX_ISSUE_AGE_DAYS`
 *   before it), with the invoice's messages: it is the date of the guide's access key, which the
 *   SRI's 72-hour rule reads.
 * - The transport: `transport_end` not before `transport_start`. Neither is tied to the issue
 *   date: the XSD says nothing of it, no SRI rule we found does, and a guide may well be issued
 *   for a transport that starts days later (or be reissued for one already under way).
 * - The carrier and each recipient: a (type, code) pair of the catalog, of Ecuador, and an id
 *   that fits the type, as the invoice's customer. The carrier is identified, never the final
 *   consumer (the XSD's tipoIdentificacionTransportista would admit 07, but a final consumer is
 *   nobody). A recipient may be the final consumer: the XSD writes no type for it, only the id.
 * - A `support_document` cannot be dated after today; when its authorization number is a 49-digit
 *   access key, the key's check digit, date, type and number must be the document's own (a key
 *   copied from another document would send the SRI a guide that points nowhere).
 * - At most `MAX_GOODS` goods in all recipients.
 */
import { accessKeyCheckDigit } from '../../documents/index.js';
import { ecuadorDate, issueDateError, type FieldError, type InvoiceCatalogs } from './compute-invoice.js';
import { checkCustomerId, sriBuyerIdCode } from './identification.js';
import type { ComputedRemissionGuide, GuideParty, GuideRecipient, SupportDocument } from './remission-guide-model.js';
import { MAX_GOODS, type RemissionGuideBody } from './remission-guide-body.js';

export type RemissionGuideResult = { ok: ComputedRemissionGuide; warnings: FieldError[] } | { errors: FieldError[] };

/** YYYY-MM-DD as dd/mm/aaaa, for messages and the access key's date. */
const ddmmaaaa = (isoDate: string) => isoDate.split('-').reverse().join('/');

type PartyBody = RemissionGuideBody['carrier'];

interface Collector {
  fail(path: string, message: string): void;
  warn(path: string, message: string): void;
}

/**
 * The SRI code of a party's catalog id type after checking its id, or undefined (with the
 * refusal recorded). `what` names the party in messages ("transportista", "destinatario").
 */
function identify(party: PartyBody, at: string, what: 'transportista' | 'destinatario', catalogs: InvoiceCatalogs, out: Collector): string | undefined {
  const { tax_id_type: idType } = party;
  const catalogId = catalogs.identificationTypes.find((t) => t.code === idType.type);
  if (!catalogId) {
    out.fail(`${at}.tax_id_type.type`, `${idType.type} no es un tipo de identificación del catálogo (GET /api/v1/identification-types)`);
    return undefined;
  }
  const code = catalogId.country === 'EC' ? sriBuyerIdCode(catalogId.code) : undefined;
  if (!code) {
    out.fail(`${at}.tax_id_type.type`, `${idType.type} no es un tipo de identificación de ${what} de Ecuador`);
    return undefined;
  }
  if (what === 'transportista' && catalogId.code === 'ec-consumidor-final') {
    out.fail(`${at}.tax_id_type.type`, 'el transportista debe identificarse: use su RUC, cédula, pasaporte o identificación del exterior, no la del consumidor final');
    return undefined;
  }
  if (catalogId.authority_code !== idType.code) {
    out.fail(`${at}.tax_id_type.code`, `el código de ${catalogId.code} en el catálogo es ${catalogId.authority_code}, no ${idType.code}`);
    return undefined;
  }
  const check = checkCustomerId(catalogId.code, party.tax_id);
  if (!check.ok) {
    out.fail(`${at}.tax_id`, check.message);
    return undefined;
  }
  if (check.note) out.warn(`${at}.tax_id`, check.note);
  return code;
}

/**
 * Why a 49-digit authorization number is not the access key of `doc`, or undefined. Shorter
 * numbers (a printed document's 10 digits, the old online scheme's 37) carry nothing to compare.
 */
function accessKeyMismatch(doc: NonNullable<RemissionGuideBody['recipients'][number]['support_document']>): string | undefined {
  const key = doc.authorization_number;
  if (key === undefined || key.length !== 49) return undefined;
  if (accessKeyCheckDigit(key.slice(0, 48)) !== Number(key[48])) {
    return 'no es una clave de acceso válida: su dígito verificador (el 49.º) no corresponde a los 48 anteriores (módulo 11)';
  }
  const keyDate = `${key.slice(0, 2)}/${key.slice(2, 4)}/${key.slice(4, 8)}`;
  if (keyDate !== ddmmaaaa(doc.issue_date)) return `la clave de acceso es de un comprobante del ${keyDate}, no del ${ddmmaaaa(doc.issue_date)} (issue_date)`;
  if (key.slice(8, 10) !== doc.type) return `la clave de acceso es de un comprobante de tipo ${key.slice(8, 10)}, no ${doc.type} (type)`;
  const keyNumero = `${key.slice(24, 27)}-${key.slice(27, 30)}-${key.slice(30, 39)}`;
  if (keyNumero !== doc.numero) return `la clave de acceso es del comprobante ${keyNumero}, no del ${doc.numero} (numero)`;
  return undefined;
}

/**
 * Computes the guide of `body` (already valid against `remissionGuideBodySchema`), or every
 * refusal by field path. `warnings` name what was accepted leniently (identification.ts).
 * An `invoice_id` is kept as the recipient's `invoiceId`, for the caller to resolve into its
 * `supportDocument`.
 *
 * @example
 *   const result = computeRemissionGuide(body, { identificationTypes, taxTypes }, new Date());
 *   if ('errors' in result) throw new SelloError('validation_failed', { fields: errorFields(result.errors) });
 *   result.ok.recipients[0].goods // [{ code: 'P-1', description: 'Cajas de papel', quantity: '10' }]
 */
export function computeRemissionGuide(body: RemissionGuideBody, catalogs: InvoiceCatalogs, now: Date): RemissionGuideResult {
  const errors: FieldError[] = [];
  const warnings: FieldError[] = [];
  const out: Collector = {
    fail: (path, message) => errors.push({ path, message }),
    warn: (path, message) => warnings.push({ path, message }),
  };

  // The issue date, in Ecuador's calendar: the invoice's rule and words.
  const late = issueDateError(body.issue_date, now);
  if (late) out.fail('issue_date', late);
  const today = ecuadorDate(now);

  if (body.transport_end < body.transport_start) {
    out.fail('transport_end', `es anterior al inicio del transporte (transport_start, ${body.transport_start}): el transporte termina el mismo día o después`);
  }

  const carrierCode = identify(body.carrier, 'carrier', 'transportista', catalogs, out);

  const goodsCount = body.recipients.reduce((sum, r) => sum + r.goods.length, 0);
  if (goodsCount > MAX_GOODS) {
    out.fail('recipients', `suman ${goodsCount} bienes entre todos los destinatarios; una guía de remisión admite hasta ${MAX_GOODS}`);
  }

  const recipients: GuideRecipient[] = [];
  body.recipients.forEach((r, i) => {
    const at = `recipients[${i}]`;
    const idTypeCode = identify(r, at, 'destinatario', catalogs, out);

    let supportDocument: SupportDocument | undefined;
    const doc = r.support_document;
    if (doc) {
      if (doc.issue_date > today) {
        out.fail(`${at}.support_document.issue_date`, `es posterior a hoy en Ecuador (${today}): el comprobante de sustento debe estar ya emitido`);
      }
      const mismatch = accessKeyMismatch(doc);
      if (mismatch) out.fail(`${at}.support_document.authorization_number`, mismatch);
      supportDocument = { codDoc: doc.type, numero: doc.numero, issueDate: doc.issue_date, authorizationNumber: doc.authorization_number, documentId: null };
    }

    if (idTypeCode === undefined) return;
    recipients.push({
      name: r.name,
      taxId: r.tax_id,
      idType: r.tax_id_type.type,
      idTypeCode,
      address: r.address,
      reason: r.reason,
      route: r.route,
      customsDocument: r.customs_document,
      destinationEstablishment: r.destination_establishment,
      invoiceId: r.invoice_id,
      supportDocument,
      goods: r.goods.map((g) => ({ code: g.code, additionalCode: g.additional_code, description: g.description, quantity: g.quantity })),
    });
  });

  if (errors.length > 0 || carrierCode === undefined) return { errors };

  const carrier: GuideParty = { name: body.carrier.name, taxId: body.carrier.tax_id, idType: body.carrier.tax_id_type.type, idTypeCode: carrierCode };
  return {
    ok: {
      issueDate: body.issue_date,
      establishment: body.establishment,
      emissionPoint: body.emission_point,
      departureAddress: body.departure_address,
      carrier,
      plate: body.plate,
      transportStart: body.transport_start,
      transportEnd: body.transport_end,
      recipients,
      additionalInfo: (body.additional_info ?? []).map((f) => ({ name: f.name, value: f.value })),
    },
    warnings,
  };
}
