import { z } from 'zod';

/** Document types Sello holds (CONTRACT §6). */
export const docTypes = [
  'invoice',
  'boleta',
  'credit_note',
  'debit_note',
  'perception',
  'remission_guide',
  'purchase_invoice',
  'withholding',
] as const;

export const documentStatuses = ['authorized', 'rejected', 'failed'] as const;

const isoDate = z.string().refine((s) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}, 'debe ser una fecha válida AAAA-MM-DD, por ejemplo 2026-03-31');

const dateTime = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), 'debe ser una fecha y hora ISO 8601, por ejemplo 2026-03-31T10:15:00-05:00');

/** `POST /api/v1/documents` */
export const createDocumentSchema = z.strictObject({
  external_ref: z.string().min(1, 'es obligatorio').max(100, 'admite hasta 100 caracteres'),
  country: z.enum(['EC', 'PE'], 'debe ser EC o PE'),
  doc_type: z.enum(docTypes, `debe ser uno de: ${docTypes.join(', ')}`),
  numero: z.string().min(1, 'es obligatorio').max(50, 'admite hasta 50 caracteres'),
  access_key: z.string().max(64, 'admite hasta 64 caracteres').optional(),
  issue_date: isoDate,
  currency: z.string().regex(/^[A-Z]{3}$/, 'debe ser un código ISO 4217 de tres letras mayúsculas, por ejemplo USD o PEN'),
  grand_total: z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, 'debe ser un importe decimal escrito como texto, por ejemplo "112.50"'),
  pdf_base64: z.string().optional(),
  xml: z.string().max(512 * 1024, 'admite hasta 512 KiB').optional(),
});
export type CreateDocumentInput = z.infer<typeof createDocumentSchema>;

/** `POST /api/v1/documents/:id/status` */
export const changeStatusSchema = z.strictObject({
  status: z.enum(documentStatuses, `debe ser uno de: ${documentStatuses.join(', ')}`),
  authorization: z
    .strictObject({
      status: z.string().min(1, 'es obligatorio').max(50),
      number: z.string().min(1, 'es obligatorio').max(64),
      date: dateTime,
    })
    .optional(),
  failure_reason: z.string().max(2000, 'admite hasta 2000 caracteres').nullable().optional(),
});
export type ChangeStatusInput = z.infer<typeof changeStatusSchema>;
