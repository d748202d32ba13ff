/**
 * The body of `POST /api/v1/purchase-settlements` (CONTRACT §15, liquidacionCompra 1.1.0): an
 * invoice's body whose party is the `supplier` (the proveedor, with the customer's fields) instead
 * of the customer; `payments` as the XSD's optional pagos (when given, they add up to the total).
 */
import { invoiceBodySchema, saleFields } from './invoice-body.js';
import { z } from 'zod';

const { customer: party, ...sale } = saleFields('la liquidación de compra');

export const purchaseSettlementBodySchema = z.strictObject(
  {
    ...sale,
    supplier: party,
    payments: invoiceBodySchema.shape.payments.optional(),
  },
  { error: (issue) => (issue.input === undefined ? 'es obligatorio' : 'debe ser un objeto {external_ref, issue_date, establishment, emission_point, currency, supplier, lines, payments?}') },
);

export type PurchaseSettlementBody = z.infer<typeof purchaseSettlementBodySchema>;
