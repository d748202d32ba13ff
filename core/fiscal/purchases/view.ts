/**
 * A received purchase as the API shows it (CONTRACT §15): the `{data}` of `POST
 * /api/v1/purchases` and the attributes of the JSON:API `purchase` resource. snake_case, amounts
 * as decimal strings as the supplier's XML wrote them.
 */
import type { PurchasesTable } from '../../db/schema.js';
import type { ReceivedPurchase } from '../sri/purchase-model.js';

/** A stored purchase without its signed XML: what every view and rule reads (the XML weighs up to 2 MB and only the download needs it). */
export type PurchaseRow = Omit<PurchasesTable, 'xml'>;

export function purchaseJson(row: PurchaseRow) {
  const p = JSON.parse(row.facts) as ReceivedPurchase;
  return {
    id: row.id,
    access_key: row.access_key,
    source: row.source,
    doc_type: 'invoice' as const,
    numero: row.numero,
    issue_date: row.issue_date,
    supplier: { ruc: p.supplier.ruc, name: p.supplier.name, trade_name: p.supplier.tradeName ?? null, address: p.supplier.address },
    buyer: { tax_id: p.buyer.taxId, tax_id_type_code: p.buyer.idTypeCode, name: p.buyer.name },
    currency: row.currency,
    subtotal: row.subtotal,
    total_discount: p.totalDiscount,
    taxes: p.taxes.map((t) => ({ code: t.codigo, rate_code: t.codigoPorcentaje, rate: t.tarifa, base: t.baseImponible, amount: t.valor })),
    grand_total: row.grand_total,
    payments: p.payments.map((pay) => ({ method: pay.method, amount: pay.amount })),
    authorization: row.authorization_number ? { number: row.authorization_number, date: row.authorization_date } : null,
    signer_name: row.signer_name,
    created_at: row.created_at,
  };
}

export type PurchaseJson = ReturnType<typeof purchaseJson>;
