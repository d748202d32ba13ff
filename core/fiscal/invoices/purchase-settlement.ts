/**
 * `POST /api/v1/purchase-settlements` (CONTRACT §15, liquidacionCompra 1.1.0): the office's client
 * buys from someone who issues no comprobantes and documents the purchase itself. Computed as an
 * invoice whose party is the supplier (computeSale, so rates, rounding and the 72-hour rule are
 * the invoice's; errors name `supplier.…`), with payments optional and IVA the only tax (the
 * XSD's). A supplier is a person with a cédula, passport, foreign id or RUC; never the consumidor
 * final.
 */
import type { BookCaller } from '../../documents/index.js';
import { comprobanteDefinition, computeSale, type ComputedPurchaseSettlement, type FieldError, type PurchaseSettlementBody } from '../sri/index.js';
import { issueComprobante, saleFacts, type IssueDeps, type IssueResult, type Prepared } from './issue.js';

/** `customer.tax_id` → `supplier.tax_id`: the sale's paths in the settlement's words. */
function asSupplier(errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, path: e.path.replace(/^customer(?=\.|$)/, 'supplier') }));
}

export function preparePurchaseSettlement(body: PurchaseSettlementBody, deps: Pick<IssueDeps, 'catalogs'>, now: Date): Prepared {
  const { supplier, ...rest } = body;
  if (supplier.tax_id_type.type === 'ec-consumidor-final') {
    return { errors: [{ path: 'supplier.tax_id_type.type', message: 'el proveedor de una liquidación de compra se identifica con su cédula, pasaporte, identificación del exterior o RUC; no es un consumidor final' }] };
  }
  // liquidacionCompra 1.1.0 knows only IVA (its codigo is "2"): an ICE has no place in it.
  const ice = body.lines.flatMap((line, i) => line.taxes.flatMap((t, j) => (deps.catalogs.taxTypes.find((c) => c.code === t.type)?.group === 'ice' ? [{ i, j, type: t.type }] : [])));
  if (ice.length > 0) {
    return { errors: ice.map(({ i, j, type }) => ({ path: `lines[${i}].taxes[${j}].type`, message: `${type} es un ICE: la liquidación de compra del SRI solo lleva IVA` })) };
  }
  const computed = computeSale({ ...rest, customer: supplier }, deps.catalogs, now, 'la liquidación de compra');
  if ('errors' in computed) return { errors: asSupplier(computed.errors) };
  const { customer, tip: _tip, ...sale } = computed.ok;
  const settlement: ComputedPurchaseSettlement = { ...sale, supplier: customer };
  return { computed: settlement, facts: saleFacts(settlement), warnings: asSupplier(computed.warnings) };
}

/** Issues the purchase settlement `input` in the caller's book and environment (issue.ts, `issueComprobante`). */
export function issuePurchaseSettlement(deps: IssueDeps, caller: BookCaller, input: PurchaseSettlementBody, raw: unknown): IssueResult {
  return issueComprobante(deps, caller, comprobanteDefinition('purchase_settlement'), input.external_ref, raw, (now) => preparePurchaseSettlement(input, deps, now));
}
