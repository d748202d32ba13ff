/**
 * `POST /api/v1/credit-notes` (CONTRACT §15, notaCredito 1.1.0): the invoice's lines and totals
 * (computeSale, without payments), the invoice it modifies and what is left of it.
 *
 * The invoice is named by its Sello id (`invoice_id`) or by `modified: {numero, issue_date}`:
 * - one Sello issued in the caller's book and environment must exist, not be rejected or failed
 *   (nothing to modify), be for the same customer, and be dated on or before the note; the note
 *   never exceeds what is left of it (its total minus the notes already issued against it that
 *   were not rejected or failed), checked in the transaction that numbers the note, so two notes
 *   sent at once cannot both take the last of it;
 * - by numero, one Sello did not issue (the office's previous system) is taken as named: Sello
 *   knows neither its total nor its customer, and the SRI checks what it checks.
 */
import { sql } from 'kysely';
import type { Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import { computeSale, type ComputedCreditNote, type ComputedInvoice, type CreditNoteBody, type FieldError, type ModifiedDocument } from '../sri/index.js';
import { comprobanteDefinition } from '../sri/index.js';
import { formatUnits, toUnits } from '../sri/decimal.js';
import { issueComprobante, type IssueDeps, type IssueResult, type Prepared } from './issue.js';

interface SelloInvoice {
  id: string;
  numero: string;
  issue_date: string;
  status: string;
  computed: string;
}

const cents = (text: string) => toUnits(text, 2);
const money = (units: bigint) => formatUnits(units, 2);

/** An invoice Sello issued in the caller's book and environment, by id or by numero. */
function findSelloInvoice(store: Store, caller: BookCaller, by: { id: string } | { numero: string }): SelloInvoice | undefined {
  let query = store.db
    .selectFrom('documents')
    .innerJoin('fiscal_submissions', 'fiscal_submissions.document_id', 'documents.id')
    .select(['documents.id', 'documents.numero', 'documents.issue_date', 'documents.status', 'fiscal_submissions.computed'])
    .where('documents.book_id', '=', caller.book.id)
    .where('documents.environment', '=', caller.environment)
    .where('fiscal_submissions.kind', '=', 'invoice');
  query = 'id' in by ? query.where('documents.id', '=', by.id) : query.where('documents.numero', '=', by.numero);
  return store.first(query) as SelloInvoice | undefined;
}

/** What the credit notes already issued against `invoiceId` take from it (those not rejected or failed), in cents. */
function creditedCents(store: Store, invoiceId: string): bigint {
  const rows = store.all(
    store.db
      .selectFrom('fiscal_submissions')
      .innerJoin('documents', 'documents.id', 'fiscal_submissions.document_id')
      .select('documents.grand_total')
      .where('fiscal_submissions.kind', '=', 'credit_note')
      .where(sql<string>`json_extract(fiscal_submissions.computed, '$.modified.documentId')`, '=', invoiceId)
      .where('documents.status', 'not in', ['rejected', 'failed']),
  );
  return rows.reduce((sum, r) => sum + (r.grand_total ? cents(r.grand_total) : 0n), 0n);
}

const STATUS_TEXT: Record<string, string> = { rejected: 'fue rechazada por el SRI', failed: 'no se pudo emitir (failed)' };

/** The invoice the note modifies, or the fields at fault. */
function modifiedInvoice(store: Store, caller: BookCaller, body: CreditNoteBody): { modified: ModifiedDocument; invoice: SelloInvoice | undefined } | { errors: FieldError[] } {
  let invoice: SelloInvoice | undefined;
  let at: string;
  if (body.invoice_id !== undefined) {
    at = 'invoice_id';
    invoice = findSelloInvoice(store, caller, { id: body.invoice_id });
    if (!invoice) return { errors: [{ path: at, message: `${body.invoice_id} no es una factura emitida por Sello en este libro y ambiente (la clave de API decide cuáles); para una factura de otro sistema indique modified {numero, issue_date}` }] };
  } else {
    at = 'modified.numero';
    const named = body.modified!;
    invoice = findSelloInvoice(store, caller, { numero: named.numero });
    if (!invoice) return { modified: { codDoc: '01', numero: named.numero, issueDate: named.issue_date, documentId: null }, invoice: undefined };
    if (invoice.issue_date !== named.issue_date) {
      return { errors: [{ path: 'modified.issue_date', message: `la factura ${named.numero} que emitió Sello es del ${invoice.issue_date}, no del ${named.issue_date}` }] };
    }
  }
  const problem = STATUS_TEXT[invoice.status];
  if (problem) return { errors: [{ path: at, message: `la factura ${invoice.numero} ${problem}: no hay nada que modificar` }] };
  return { modified: { codDoc: '01', numero: invoice.numero, issueDate: invoice.issue_date, documentId: invoice.id }, invoice };
}

/** The note as Sello computes it, with the invoice's rules checked. */
export function prepareCreditNote(store: Store, caller: BookCaller, body: CreditNoteBody, deps: Pick<IssueDeps, 'catalogs'>, now: Date): Prepared {
  const computed = computeSale(body, deps.catalogs, now, 'la nota de crédito');
  const target = modifiedInvoice(store, caller, body);
  const errors = [...('errors' in computed ? computed.errors : []), ...('errors' in target ? target.errors : [])];
  if ('errors' in computed || 'errors' in target) return { errors };

  const { modified, invoice } = target;
  const note = computed.ok;
  if (modified.issueDate > note.issueDate) errors.push({ path: 'issue_date', message: `es anterior a la factura que modifica (${modified.numero}, del ${modified.issueDate})` });
  if (invoice) {
    const sold = JSON.parse(invoice.computed) as ComputedInvoice;
    if (sold.customer.taxId !== note.customer.taxId) {
      errors.push({ path: 'customer.tax_id', message: `la factura ${invoice.numero} es de ${sold.customer.taxId} (${sold.customer.name}): una nota de crédito es para el mismo cliente` });
    }
    const left = cents(sold.grandTotal) - creditedCents(store, invoice.id);
    if (cents(note.grandTotal) > left) {
      errors.push({
        path: body.grand_total !== undefined ? 'grand_total' : 'lines',
        message: `la nota de crédito suma ${note.grandTotal} y a la factura ${invoice.numero} (total ${sold.grandTotal}) le quedan ${money(left > 0n ? left : 0n)} por acreditar`,
      });
    }
  }
  if (errors.length > 0) return { errors };
  const { payments: _payments, tip: _tip, ...lines } = note;
  const creditNote: ComputedCreditNote = { ...lines, modified, reason: body.reason };
  return { computed: creditNote, warnings: computed.warnings };
}

/** Issues the credit note `input` in the caller's book and environment (issue.ts, `issueComprobante`). */
export function issueCreditNote(deps: IssueDeps, caller: BookCaller, input: CreditNoteBody, raw: unknown): IssueResult {
  return issueComprobante(deps, caller, comprobanteDefinition('credit_note'), input.external_ref, raw, (now) => prepareCreditNote(deps.store, caller, input, deps, now));
}
