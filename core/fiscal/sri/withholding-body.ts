/**
 * The bodies of the received-purchase routes (CONTRACT §15):
 * - `POST /api/v1/purchases`: `{access_key}` (Sello asks the SRI for the document) or `{xml}` (the
 *   document received by e-mail: the signed factura or its `autorizacion`), exactly one of them;
 * - `POST /api/v1/purchases/:id/withhold`: the comprobante de retención 2.0.0 of that purchase:
 *   `external_ref`, `issue_date`, the series (the issuer's first establishment and emission
 *   point when absent) and `lines: [{tax, code, base, rate}]`; optional `support_code`
 *   (codSustento, "01" by default), `related_party`, `payments` (the purchase's own by default)
 *   and `additional_info`. What decides whether a line can be withheld is in
 *   withholding-rules.ts; this schema only checks shapes.
 */
import { z } from 'zod';
import { decimal, isoDate, list, object, paymentMethods, seriesCode, stringError, text } from './invoice-body.js';

/** A received purchase's XML: at most what a factura of many lines weighs, as text. */
export const MAX_PURCHASE_XML_CHARS = 2 * 1024 * 1024;

export const purchaseBodySchema = z
  .strictObject(
    {
      access_key: z
        .string({ error: stringError('2511202601179214673900110010010000001231234567818') })
        .trim()
        .refine((s) => /^\d{49}$/.test(s), 'debe ser la clave de acceso del comprobante: 49 dígitos')
        .optional(),
      xml: z
        .string({ error: 'debe ser el XML del comprobante como texto (la factura firmada o su autorización)' })
        .max(MAX_PURCHASE_XML_CHARS, `admite hasta ${MAX_PURCHASE_XML_CHARS / 1024 / 1024} MB de texto`)
        .refine((s) => s.trim().length > 0, 'no puede estar vacío')
        .optional(),
    },
    { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto {access_key} o {xml}') },
  )
  .superRefine((body, ctx) => {
    if ((body.access_key === undefined) === (body.xml === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['access_key'], message: 'indique la clave de acceso (access_key) o el XML del comprobante (xml), uno de los dos' });
    }
  });

export type PurchaseBody = z.infer<typeof purchaseBodySchema>;

export const withheldTaxes = ['renta', 'iva', 'isd'] as const;

const withholdingLine = object(
  {
    tax: z.enum(withheldTaxes, { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser "renta", "iva" o "isd"') }),
    code: z
      .string({ error: stringError('312') })
      .trim()
      .refine((s) => /^[0-9A-Z]{1,5}$/.test(s), 'debe ser el código de retención del SRI como texto, por ejemplo "312" (renta) o "1" (IVA 30 %)'),
    base: decimal(2, '100.00', 'la base imponible'),
    rate: decimal(2, '1.75', 'un porcentaje'),
  },
  '{tax, code, base, rate}',
);

/** The SRI's codSustento: two digits ("01" crédito tributario para declaración de IVA…). */
const supportCode = z
  .string({ error: stringError('01') })
  .refine((s) => /^\d{2}$/.test(s), 'debe ser el código de sustento tributario del SRI, dos dígitos, por ejemplo "01"');

const payment = object(
  {
    method: z
      .string({ error: stringError('20') })
      .refine((s) => (paymentMethods as readonly string[]).includes(s), `debe ser una forma de pago del SRI: ${paymentMethods.join(', ')}`),
    amount: decimal(2, '112.50', 'un importe'),
  },
  '{method, amount}',
);

export const withholdingBodySchema = object(
  {
    external_ref: text(100),
    issue_date: isoDate,
    establishment: seriesCode('establecimiento').optional(),
    emission_point: seriesCode('punto de emisión').optional(),
    lines: list(withholdingLine, 'retenciones {tax, code, base, rate}', 20).min(1, 'indique al menos una retención, por ejemplo [{"tax": "renta", "code": "312", "base": "100.00", "rate": "1.75"}]'),
    support_code: supportCode.optional(),
    related_party: z.boolean({ error: 'debe ser true o false' }).optional(),
    payments: list(payment, 'pagos {method, amount}', 20).min(1, 'si indica pagos, al menos uno').optional(),
    additional_info: list(object({ name: text(300), value: text(300) }, '{name, value}'), 'campos {name, value}', 15).optional(),
  },
  '{external_ref, issue_date, lines: [{tax, code, base, rate}]}',
);

export type WithholdingBody = z.infer<typeof withholdingBodySchema>;
