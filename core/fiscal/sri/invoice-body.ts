/**
 * The body of `POST /api/v1/invoices` (CONTRACT §15): its shape, formats and lengths, checked
 * before anything is computed or numbered. What needs the catalogs, arithmetic or the clock (tax
 * and identification types, the customer's id, totals, the issue date) is `computeInvoice`'s job.
 *
 * - Amounts, quantities and rates are decimal strings with a dot ("112.50"), never JSON numbers:
 *   a float cannot hold 0.1, and the SRI compares totals to the cent. `quantity` and
 *   `unit_price` take up to 6 decimals (factura 2.1.0's cantidad and precioUnitario), money up
 *   to 2; integer parts up to 12 digits (the XSD's totalDigits 18 and 14).
 * - Texts are trimmed and bounded as factura_V2.1.0.xsd bounds the element they fill
 *   (razonSocialComprador, descripcion, direccionComprador, campoAdicional… 300 characters,
 *   codigoPrincipal 25, identificacionComprador 20, unidadTiempo 10), counted in characters;
 *   no line breaks or control characters (the XSD's `[^\n]*`, and XML 1.0's characters).
 * - `customer.email` and `customer.phone` have no element in the factura: the XML carries them
 *   as `campoAdicional` "Email" and "Teléfono", so with `additional_info` they share the XSD's
 *   15 campos (checked by `computeInvoice`). `email` may list several addresses, separated by
 *   "," or ";".
 * - `payments[].method` is the SRI's forma de pago in force (table of the ficha técnica: 01, 15–21;
 *   02–14 were withdrawn); `term` (plazo) is a number of `unit` (unidadTiempo, "dias", "meses"),
 *   given as a string or an integer.
 *
 * **ICE extension** (compatible, versioning rule 2). The spec says ICE is "computed before VAT,
 * with an ad-valorem rate and a specific rate", and the catalog names only the ICE product
 * codes: an ICE line tax carries its own rate(s),
 * `{type: "ec-ice-…", rate?: "75", specific_amount?: "1.20"}`:
 * - `rate`: the ad-valorem rate in percent (written as the impuesto's `tarifa`, at most 2 decimals
 *   and 4 digits as the XSD's tarifa), applied to the line's subtotal;
 * - `specific_amount`: the specific ICE of the whole line in dollars (the caller computes it: it
 *   depends on litres, alcohol grade or units that the invoice does not carry), added as is.
 * At least one of them is required; the ICE's `valor` is rate × subtotal (rounded half-up to the
 * cent) + specific_amount, and it joins the line's VAT base. VAT types take neither field: their
 * rate is the catalog's.
 */
import { z } from 'zod';

const MAX_LINES = 1000;
const MAX_PAYMENTS = 50;

/** Whether `text` holds a character that XML 1.0 or the XSD's `[^\n]*` refuses (controls, lone surrogates, U+FFFE/F). */
export function hasForbiddenCharacter(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xdfff) || c === 0xfffe || c === 0xffff) return true;
  }
  return false;
}

export function stringError(example?: string) {
  return (issue: { input?: unknown }) => {
    if (issue.input === undefined) return 'es obligatorio';
    if (typeof issue.input === 'number' && example) return `debe ser texto: escriba el número entre comillas, por ejemplo "${example}"`;
    return 'debe ser texto, entre comillas';
  };
}

/** A trimmed, non-empty text of at most `max` characters, on one line. */
export function text(max: number) {
  return z
    .string({ error: stringError() })
    .trim()
    .refine((s) => s.length > 0, { error: 'no puede estar vacío', abort: true })
    .refine((s) => [...s].length <= max, { error: `admite hasta ${max} caracteres`, abort: true })
    .refine((s) => !hasForbiddenCharacter(s), { error: 'no admite saltos de línea ni caracteres de control' });
}

/** A decimal string: up to 12 integer digits (no leading zeros), a dot and up to `decimals` decimals. */
export function decimal(decimals: number, example: string, what: string) {
  const pattern = new RegExp(`^(0|[1-9]\\d{0,11})(\\.\\d{1,${decimals}})?$`);
  return z
    .string({ error: stringError(example) })
    .trim()
    .refine((s) => pattern.test(s), {
      error: `debe ser ${what} escrito como texto, con punto decimal y hasta ${decimals} decimales, por ejemplo "${example}"`,
    });
}

const money = () => decimal(2, '112.50', 'un importe');

export const isoDate = z
  .string({ error: stringError('2026-03-31') })
  .trim()
  .refine((s) => {
    if (!/^20\d{2}-\d{2}-\d{2}$/.test(s)) return false;
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'debe ser una fecha válida AAAA-MM-DD del año 2000 en adelante, por ejemplo 2026-03-31');

/** Three digits, not "000" (estab and ptoEmi). */
export function seriesCode(what: string) {
  return z
    .string({ error: stringError('001') })
    .refine((s) => /^\d{3}$/.test(s) && s !== '000', `debe ser el código de tres dígitos del ${what}, por ejemplo "001"`);
}

export function object<T extends z.core.$ZodLooseShape>(shape: T, example: string) {
  return z.strictObject(shape, { error: (issue) => (issue.input === undefined ? 'es obligatorio' : `debe ser un objeto ${example}`) });
}

export function list<T extends z.ZodType>(item: T, what: string, max: number) {
  return z
    .array(item, { error: (issue) => (issue.input === undefined ? 'es obligatorio' : `debe ser una lista de ${what}`) })
    .max(max, `admite hasta ${max} elementos`);
}

const emailList = text(300).refine(
  (s) => s.split(/[,;]/).every((address) => /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/.test(address.trim())),
  'debe ser una dirección de correo, o varias separadas por "," o ";", por ejemplo "compras@cliente.ec"',
);

/** The ICE ad-valorem rate: percent, 2 decimals, at most 4 digits in all (the XSD's tarifa). */
const percent = decimal(2, '75', 'un porcentaje').refine((s) => {
  const [whole = '', fraction = ''] = s.split('.');
  return `${whole}${fraction.replace(/0+$/, '')}`.replace(/^0+/, '').length <= 4;
}, 'admite hasta 4 cifras en total (la tarifa del SRI), por ejemplo "75" o "12.5"');

/** A plazo: a string decimal with up to 2 decimals, or a non-negative integer. */
const term = z
  .union([z.string(), z.number()], { error: 'debe ser un número de días, meses… escrito como texto, por ejemplo "30"' })
  .transform((v) => (typeof v === 'number' ? (Number.isSafeInteger(v) && v >= 0 ? String(v) : '-') : v.trim()))
  .refine((s) => /^(0|[1-9]\d{0,11})(\.\d{1,2})?$/.test(s), 'debe ser un plazo, un número con hasta 2 decimales, por ejemplo "30"');

/** SRI forma de pago in force (ficha técnica, tabla de formas de pago). */
export const paymentMethods = ['01', '15', '16', '17', '18', '19', '20', '21'] as const;

const lineTax = object(
  {
    type: text(100),
    /** ICE only: ad-valorem rate in percent (module header). */
    rate: percent.optional(),
    /** ICE only: the line's specific ICE in dollars (module header). */
    specific_amount: money().optional(),
  },
  '{type}, por ejemplo {"type": "ec-iva-15"}',
);

const line = object(
  {
    code: text(25),
    description: text(300),
    quantity: decimal(6, '2', 'una cantidad').refine((s) => /[1-9]/.test(s), 'debe ser mayor que cero'),
    unit_price: decimal(6, '10.25', 'un precio unitario'),
    discount: money(),
    taxes: list(lineTax, 'impuestos {type}', 5).min(1, 'cada línea necesita al menos su IVA, por ejemplo [{"type": "ec-iva-15"}]'),
  },
  '{code, description, quantity, unit_price, discount, taxes}',
);

const payment = object(
  {
    method: z
      .string({ error: stringError('01') })
      .refine((s) => (paymentMethods as readonly string[]).includes(s), `debe ser una forma de pago del SRI: ${paymentMethods.join(', ')} (01 sin utilización del sistema financiero, 20 otros con utilización del sistema financiero…)`),
    amount: money(),
    term: term.optional(),
    unit: text(10).optional(),
  },
  '{method, amount, term?, unit?}',
);

export const idType = object(
  {
    type: text(100),
    code: text(10),
    /** Echoed from the catalog if the caller sends the whole IdType; not checked. */
    name: z.string({ error: 'debe ser texto' }).max(300, 'admite hasta 300 caracteres').optional(),
  },
  '{type, code}, por ejemplo {"type": "ec-cedula", "code": "05"}',
);

const customer = object(
  {
    name: text(300),
    tax_id: text(20),
    tax_id_type: idType,
    email: emailList.optional(),
    address: text(300).optional(),
    phone: text(300).optional(),
  },
  '{name, tax_id, tax_id_type, email?, address?, phone?}',
);

/**
 * The schema of `POST /api/v1/invoices`. Refusals name their field path
 * (`lines[0].unit_price`) through `issueMessages`.
 *
 * @example
 *   const parsed = invoiceBodySchema.safeParse(json);
 *   if (!parsed.success) throw new SelloError('validation_failed', { fields: issueMessages(parsed.error.issues) });
 */
export const invoiceBodySchema = object(
  {
    ...saleFields('la factura'),
    payments: list(payment, 'pagos {method, amount}', MAX_PAYMENTS).min(1, 'el SRI exige al menos una forma de pago, por ejemplo [{"method": "01", "amount": "112.50"}]'),
  },
  '{external_ref, issue_date, establishment, emission_point, currency, customer, lines, payments}',
);

/**
 * What an invoice and the notes that correct it have in common: the series, the customer, the
 * lines with their taxes, the campos adicionales and the stated total (CONTRACT §15).
 * `document` names the document in messages ("la factura", "la nota de crédito").
 */
export function saleFields(document: string) {
  return {
    external_ref: text(100),
    issue_date: isoDate,
    establishment: seriesCode('establecimiento'),
    emission_point: seriesCode('punto de emisión'),
    currency: z.literal('USD', { error: (issue) => (issue.input === undefined ? 'es obligatorio: "USD"' : 'debe ser "USD", la moneda de Ecuador') }),
    customer,
    lines: list(line, 'líneas {code, description, quantity, unit_price, discount, taxes}', MAX_LINES).min(1, `${document} necesita al menos una línea`),
    additional_info: list(object({ name: text(300), value: text(300) }, '{name, value}'), 'campos {name, value}', 15).optional(),
    grand_total: money().optional(),
  };
}

/** The number of an SRI comprobante, `001-001-000000123`. */
export const sriNumero = z
  .string({ error: stringError('001-001-000000123') })
  .trim()
  .refine((s) => /^\d{3}-\d{3}-\d{9}$/.test(s), 'debe ser el número del comprobante, establecimiento-punto-secuencial, por ejemplo "001-001-000000123"');

/**
 * `POST /api/v1/credit-notes` (notaCredito 1.1.0): the invoice's fields without payments, the
 * invoice it modifies — `invoice_id` (issued by Sello) or `modified: {numero, issue_date}` (one
 * issued elsewhere, or by Sello) — and the `reason` (motivo).
 */
export const creditNoteBodySchema = object(
  {
    ...saleFields('la nota de crédito'),
    invoice_id: text(100).optional(),
    modified: object({ numero: sriNumero, issue_date: isoDate }, '{numero, issue_date}, por ejemplo {"numero": "001-001-000000123", "issue_date": "2026-03-02"}').optional(),
    reason: text(300),
  },
  '{external_ref, issue_date, establishment, emission_point, currency, customer, lines, invoice_id o modified, reason}',
).superRefine((body, ctx) => {
  if ((body.invoice_id === undefined) === (body.modified === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['invoice_id'], message: 'indique la factura que modifica: invoice_id (su id en Sello) o modified {numero, issue_date}, uno de los dos' });
  }
});

const debitReason = object(
  {
    reason: text(300),
    amount: money().refine((s) => /[1-9]/.test(s), 'debe ser mayor que cero'),
    taxes: list(lineTax, 'impuestos {type}', 5).min(1, 'cada razón necesita al menos su IVA, por ejemplo [{"type": "ec-iva-15"}]'),
  },
  '{reason, amount, taxes}',
);

/**
 * `POST /api/v1/debit-notes` (notaDebito 1.0.0): the invoice's header fields, the invoice it
 * modifies (as a credit note names it), and instead of lines the `reasons` charged (interest,
 * collection costs…), each `{reason, amount, taxes}` (taxes as a line's: one IVA, even 0 %, at
 * most one ICE); `payments` are optional (the XSD's pagos).
 */
const { lines: _debitNoteHasNoLines, ...debitNoteHeader } = saleFields('la nota de débito');

export const debitNoteBodySchema = object(
  {
    ...debitNoteHeader,
    invoice_id: text(100).optional(),
    modified: object({ numero: sriNumero, issue_date: isoDate }, '{numero, issue_date}, por ejemplo {"numero": "001-001-000000123", "issue_date": "2026-03-02"}').optional(),
    reasons: list(debitReason, 'razones {reason, amount, taxes}', MAX_LINES).min(1, 'la nota de débito necesita al menos una razón, por ejemplo [{"reason": "Intereses por mora", "amount": "5.00", "taxes": [{"type": "ec-iva-0"}]}]'),
    payments: list(payment, 'pagos {method, amount}', MAX_PAYMENTS).optional(),
  },
  '{external_ref, issue_date, establishment, emission_point, currency, customer, reasons, invoice_id o modified}',
).superRefine((body, ctx) => {
  if ((body.invoice_id === undefined) === (body.modified === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['invoice_id'], message: 'indique la factura que modifica: invoice_id (su id en Sello) o modified {numero, issue_date}, uno de los dos' });
  }
});

export type InvoiceBody = z.infer<typeof invoiceBodySchema>;
export type DebitNoteBody = z.infer<typeof debitNoteBodySchema>;
export type CreditNoteBody = z.infer<typeof creditNoteBodySchema>;
/** The fields compute-invoice.ts reads: an invoice's or a note's, with or without payments. */
export type SaleBody = Omit<InvoiceBody, 'payments'> & { payments?: InvoiceBody['payments'] | undefined };
export type InvoiceLineBody = InvoiceBody['lines'][number];
export type InvoiceLineTaxBody = InvoiceLineBody['taxes'][number];
