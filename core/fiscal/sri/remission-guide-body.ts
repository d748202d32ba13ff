/**
 * The body of `POST /api/v1/remission-guides` (CONTRACT §15, guiaRemision 1.1.0): the goods one
 * carrier moves in one vehicle, from one departure address, between two dates, to one or more
 * recipients, each with the goods it receives. Shape, formats and lengths only, in the manner of
 * invoice-body.ts; the catalogs, the ids and the dates are `computeRemissionGuide`'s job.
 *
 * What the XSD makes different from the factura:
 * - A guide has no amounts: goods carry a `quantity` (cantidad, 6 decimals) and no price or tax.
 * - `infoGuiaRemision` has no fechaEmision: `issue_date` dates the guide in its access key (and so
 *   for the SRI's 72-hour rule), and the RIDE; the XML carries the transport dates.
 * - A recipient's id type has no element (only identificacionDestinatario, 1–20 characters);
 *   `tax_id_type` is still required, to check the id as a customer's is checked.
 * - The document that supports a recipient's goods (usually the invoice of the sale) is named by
 *   `invoice_id` (an invoice Sello issued; resolved by the caller of `computeRemissionGuide`) or
 *   by `support_document` (codDocSustento, numDocSustento, fechaEmisionDocSustento,
 *   numAutDocSustento); at most one of the two, and neither when goods move without a sale
 *   (a transfer between establishments, a consignment…).
 * - Lengths as GuiaRemision_V1.1.0.xsd bounds the element they fill: placa 20, rucTransportista
 *   and identificacionDestinatario 20, docAduaneroUnico 20, codigoInterno and codigoAdicional 25,
 *   the names, addresses, reasons, routes and descriptions 300; codEstabDestino three digits.
 * - The XSD does not bound recipients or goods: at most `MAX_RECIPIENTS` (100) recipients and,
 *   like the invoice's lines, at most `MAX_GOODS` (1000) goods in all (the total is checked by
 *   `computeRemissionGuide`) keep the document under the SRI's size limit.
 */
import { z } from 'zod';
import { decimal, idType, isoDate, list, object, saleFields, seriesCode, sriNumero, stringError, text } from './invoice-body.js';

export const MAX_RECIPIENTS = 100;
export const MAX_GOODS = 1000;

const { external_ref, issue_date, establishment, emission_point, additional_info } = saleFields('la guía de remisión');

const party = {
  name: text(300),
  tax_id: text(20),
  tax_id_type: idType,
};

const good = object(
  {
    code: text(25),
    additional_code: text(25).optional(),
    description: text(300),
    quantity: decimal(6, '2', 'una cantidad').refine((s) => /[1-9]/.test(s), 'debe ser mayor que cero'),
  },
  '{code, description, quantity, additional_code?}',
);

const supportDocument = object(
  {
    type: z
      .string({ error: stringError('01') })
      .refine((s) => /^\d{2}$/.test(s) && s !== '00', 'debe ser el código de dos dígitos del tipo de comprobante del SRI, por ejemplo "01" (factura) o "03" (liquidación de compra)'),
    numero: sriNumero,
    issue_date: isoDate,
    /** The XSD's numAutDocSustento: 10 digits (a printed document's), 37 or 49 (an electronic one's). */
    authorization_number: z
      .string({ error: stringError('1003202601179001167400120010010000001231234567815') })
      .trim()
      .refine((s) => /^\d{10,49}$/.test(s), 'debe ser el número de autorización del comprobante, de 10 a 49 dígitos (la clave de acceso, si es electrónico)')
      .optional(),
  },
  '{type, numero, issue_date, authorization_number?}, por ejemplo {"type": "01", "numero": "001-001-000000123", "issue_date": "2026-03-10"}',
);

const recipient = object(
  {
    ...party,
    address: text(300),
    reason: text(300),
    route: text(300).optional(),
    customs_document: text(20).optional(),
    destination_establishment: seriesCode('establecimiento de destino').optional(),
    invoice_id: text(100).optional(),
    support_document: supportDocument.optional(),
    goods: list(good, 'bienes {code, description, quantity}', MAX_GOODS).min(1, 'cada destinatario necesita al menos un bien, por ejemplo [{"code": "P-1", "description": "Cajas de papel", "quantity": "10"}]'),
  },
  '{name, tax_id, tax_id_type, address, reason, goods, route?, customs_document?, destination_establishment?, invoice_id o support_document?}',
).superRefine((r, ctx) => {
  if (r.invoice_id !== undefined && r.support_document !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['invoice_id'], message: 'indique el comprobante de sustento una sola vez: invoice_id (su id en Sello) o support_document, no los dos' });
  }
});

/**
 * The schema of `POST /api/v1/remission-guides`. Refusals name their field path
 * (`recipients[0].goods[1].quantity`) through `issueMessages`.
 *
 * @example
 *   const parsed = remissionGuideBodySchema.safeParse(json);
 *   if (!parsed.success) throw new SelloError('validation_failed', { fields: issueMessages(parsed.error.issues) });
 */
export const remissionGuideBodySchema = object(
  {
    external_ref,
    issue_date,
    establishment,
    emission_point,
    departure_address: text(300),
    carrier: object(party, '{name, tax_id, tax_id_type}, por ejemplo {"name": "Transportes del Sur", "tax_id": "1790011674001", "tax_id_type": {"type": "ec-ruc", "code": "06"}}'),
    plate: text(20),
    transport_start: isoDate,
    transport_end: isoDate,
    recipients: list(recipient, 'destinatarios {name, tax_id, tax_id_type, address, reason, goods}', MAX_RECIPIENTS).min(1, 'la guía de remisión necesita al menos un destinatario'),
    additional_info,
  },
  '{external_ref, issue_date, establishment, emission_point, departure_address, carrier, plate, transport_start, transport_end, recipients, additional_info?}',
);

export type RemissionGuideBody = z.infer<typeof remissionGuideBodySchema>;
export type RemissionGuideRecipientBody = RemissionGuideBody['recipients'][number];
