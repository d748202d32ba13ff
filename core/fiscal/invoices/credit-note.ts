/**
 * `POST /api/v1/credit-notes` (CONTRACT §15, notaCredito 1.1.0): the invoice's lines and totals
 * (computeSale, without payments), the invoice it modifies (modified-invoice.ts) and what is
 * left of it: a note never exceeds the invoice's total minus the notes already issued against it
 * that were not rejected or failed, checked in the transaction that numbers the note, so two
 * notes sent at once cannot both take the last of it. An invoice Sello did not issue has no
 * balance Sello knows.
 */
import type { Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import { comprobanteDefinition, computeSale, type ComputedCreditNote, type CreditNoteBody } from '../sri/index.js';
import { formatUnits, toUnits } from '../sri/decimal.js';
import { issueComprobante, saleFacts, type IssueDeps, type IssueResult, type Prepared } from './issue.js';
import { modifiedInvoice } from './modified-invoice.js';

const cents = (text: string) => toUnits(text, 2);
const money = (units: bigint) => formatUnits(units, 2);

/** What the credit notes already issued against `invoiceId` take from it (those not rejected or failed), in cents. */
function creditedCents(store: Store, invoiceId: string): bigint {
  const rows = store.all(
    store.db
      .selectFrom('fiscal_submissions')
      .innerJoin('documents', 'documents.id', 'fiscal_submissions.document_id')
      .select('documents.grand_total')
      .where('fiscal_submissions.modifies_document_id', '=', invoiceId)
      .where('fiscal_submissions.kind', '=', 'credit_note')
      .where('documents.status', 'not in', ['rejected', 'failed']),
  );
  return rows.reduce((sum, r) => sum + (r.grand_total ? cents(r.grand_total) : 0n), 0n);
}

/** The note as Sello computes it, with the invoice's rules checked. */
export function prepareCreditNote(store: Store, caller: BookCaller, body: CreditNoteBody, deps: Pick<IssueDeps, 'catalogs'>, now: Date): Prepared {
  const computed = computeSale(body, deps.catalogs, now, 'la nota de crédito');
  if ('errors' in computed) return computed;
  const note = computed.ok;
  const target = modifiedInvoice(store, caller, body, { customer: note.customer, issueDate: note.issueDate, named: 'una nota de crédito' });
  if ('errors' in target) return target;

  const { modified, invoice } = target;
  if (invoice) {
    const left = cents(invoice.computed.grandTotal) - creditedCents(store, invoice.id);
    if (cents(note.grandTotal) > left) {
      const message = `la nota de crédito suma ${note.grandTotal} y a la factura ${invoice.numero} (total ${invoice.computed.grandTotal}) le quedan ${money(left > 0n ? left : 0n)} por acreditar`;
      return { errors: [{ path: body.grand_total !== undefined ? 'grand_total' : 'lines', message }] };
    }
  }
  const { payments: _payments, tip: _tip, ...sale } = note;
  const creditNote: ComputedCreditNote = { ...sale, modified, reason: body.reason };
  return { computed: creditNote, facts: saleFacts(creditNote), warnings: computed.warnings };
}

/** Issues the credit note `input` in the caller's book and environment (issue.ts, `issueComprobante`). */
export function issueCreditNote(deps: IssueDeps, caller: BookCaller, input: CreditNoteBody, raw: unknown): IssueResult {
  return issueComprobante(deps, caller, comprobanteDefinition('credit_note'), input.external_ref, raw, (now) => prepareCreditNote(deps.store, caller, input, deps, now));
}
