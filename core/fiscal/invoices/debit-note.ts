/**
 * `POST /api/v1/debit-notes` (CONTRACT §15, notaDebito 1.0.0): what is charged on top of an
 * invoice (interest, collection costs…) as reasons with their taxes. Each reason is computed as a
 * one-unit line would be (computeSale: its IVA, an ICE before it, totals per rate), so the
 * rounding and the catalogs' rules are the invoice's; errors name `reasons[i]`. The invoice it
 * modifies is checked as for a credit note (modified-invoice.ts); a debit note adds to it, so
 * there is no balance to respect. Payments are optional and, when given, must add up to the total.
 */
import type { Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import { comprobanteDefinition, computeSale, type ComputedDebitNote, type DebitNoteBody, type FieldError } from '../sri/index.js';
import { issueComprobante, saleFacts, type IssueDeps, type IssueResult, type Prepared } from './issue.js';
import { modifiedInvoice } from './modified-invoice.js';

/** `lines[2].taxes[0].type` → `reasons[2].taxes[0].type`: the sale's paths in the debit note's words. */
function inReasons(errors: FieldError[]): FieldError[] {
  return errors.map((e) => ({ ...e, path: e.path.replace(/^lines(?=\[|$)/, 'reasons') }));
}

export function prepareDebitNote(store: Store, caller: BookCaller, body: DebitNoteBody, deps: Pick<IssueDeps, 'catalogs'>, now: Date): Prepared {
  const lines = body.reasons.map((r, i) => ({ code: String(i + 1), description: r.reason, quantity: '1', unit_price: r.amount, discount: '0.00', taxes: r.taxes }));
  const computed = computeSale({ ...body, lines }, deps.catalogs, now, 'la nota de débito');
  if ('errors' in computed) return { errors: inReasons(computed.errors) };
  const sale = computed.ok;
  const target = modifiedInvoice(store, caller, body, { customer: sale.customer, issueDate: sale.issueDate, named: 'una nota de débito' });
  if ('errors' in target) return target;
  const note: ComputedDebitNote = {
    issueDate: sale.issueDate,
    establishment: sale.establishment,
    emissionPoint: sale.emissionPoint,
    currency: sale.currency,
    customer: sale.customer,
    reasons: sale.lines.map((l, i) => ({ reason: body.reasons[i]!.reason, amount: l.subtotal, taxes: l.taxes })),
    totalWithoutTaxes: sale.totalWithoutTaxes,
    taxTotals: sale.taxTotals,
    grandTotal: sale.grandTotal,
    payments: sale.payments,
    additionalInfo: sale.additionalInfo,
    modified: target.modified,
  };
  return { computed: note, facts: saleFacts(note), warnings: inReasons(computed.warnings) };
}

/** Issues the debit note `input` in the caller's book and environment (issue.ts, `issueComprobante`). */
export function issueDebitNote(deps: IssueDeps, caller: BookCaller, input: DebitNoteBody, raw: unknown): IssueResult {
  return issueComprobante(deps, caller, comprobanteDefinition('debit_note'), input.external_ref, raw, (now) => prepareDebitNote(deps.store, caller, input, deps, now));
}
