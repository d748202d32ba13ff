/**
 * The invoice a credit or debit note modifies (CONTRACT §15), named by its Sello id
 * (`invoice_id`) or by `modified: {numero, issue_date}`:
 * - one Sello issued in the caller's book and environment must exist, not be rejected or failed
 *   (nothing to modify), be for the note's customer and dated on or before it;
 * - by numero, one Sello did not issue (the office's previous system) is taken as named: Sello
 *   knows neither its total nor its customer, and the SRI checks what it checks.
 */
import type { Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import type { ComputedInvoice, Customer, FieldError, ModifiedDocument } from '../sri/index.js';

export interface SelloInvoice {
  id: string;
  numero: string;
  issue_date: string;
  status: string;
  /** Its 49-digit access key (the authorization number in the offline scheme). */
  access_key: string;
  /** The invoice as Sello computed it when it numbered it. */
  computed: ComputedInvoice;
}

/** How a note names the invoice it modifies (its body's fields). */
export interface InvoiceReference {
  invoice_id?: string | undefined;
  modified?: { numero: string; issue_date: string } | undefined;
}

/** An invoice Sello issued in the caller's book and environment, by id or by numero. */
export function findSelloInvoice(store: Store, caller: BookCaller, by: { id: string } | { numero: string }): SelloInvoice | undefined {
  let query = store.db
    .selectFrom('documents')
    .innerJoin('fiscal_submissions', 'fiscal_submissions.document_id', 'documents.id')
    .select(['documents.id', 'documents.numero', 'documents.issue_date', 'documents.status', 'fiscal_submissions.access_key', 'fiscal_submissions.computed'])
    .where('documents.book_id', '=', caller.book.id)
    .where('documents.environment', '=', caller.environment)
    .where('fiscal_submissions.kind', '=', 'invoice');
  // By number: documents_by_numero (0011) finds it without reading the book.
  query = 'id' in by ? query.where('documents.id', '=', by.id) : query.where('documents.doc_type', '=', 'invoice').where('documents.numero', '=', by.numero);
  const row = store.first(query);
  return row && { id: row.id, numero: row.numero ?? '', issue_date: row.issue_date ?? '', status: row.status, access_key: row.access_key, computed: JSON.parse(row.computed) as ComputedInvoice };
}

/** Why an invoice in this status cannot be referred to by a new comprobante. */
export const UNUSABLE_STATUS: Record<string, string> = { rejected: 'fue rechazada por el SRI', failed: 'no se pudo emitir (failed)' };

/**
 * The invoice `reference` names, checked against the note's customer and date; `invoice` is
 * undefined for one Sello did not issue. `note` names the document in messages ("una nota de crédito").
 */
export function modifiedInvoice(
  store: Store,
  caller: BookCaller,
  reference: InvoiceReference,
  noteFacts: { customer: Customer; issueDate: string; named: string },
): { modified: ModifiedDocument; invoice: SelloInvoice | undefined } | { errors: FieldError[] } {
  let invoice: SelloInvoice | undefined;
  let at: string;
  if (reference.invoice_id !== undefined) {
    at = 'invoice_id';
    invoice = findSelloInvoice(store, caller, { id: reference.invoice_id });
    if (!invoice) {
      return { errors: [{ path: at, message: `${reference.invoice_id} no es una factura emitida por Sello en este libro y ambiente (la clave de API decide cuáles); para una factura de otro sistema indique modified {numero, issue_date}` }] };
    }
  } else {
    at = 'modified.numero';
    const named = reference.modified!;
    invoice = findSelloInvoice(store, caller, { numero: named.numero });
    if (!invoice) {
      const modified: ModifiedDocument = { codDoc: '01', numero: named.numero, issueDate: named.issue_date, documentId: null };
      if (named.issue_date > noteFacts.issueDate) return { errors: [{ path: 'issue_date', message: `es anterior a la factura que modifica (${named.numero}, del ${named.issue_date})` }] };
      return { modified, invoice: undefined };
    }
    if (invoice.issue_date !== named.issue_date) {
      return { errors: [{ path: 'modified.issue_date', message: `la factura ${named.numero} que emitió Sello es del ${invoice.issue_date}, no del ${named.issue_date}` }] };
    }
  }
  const problem = UNUSABLE_STATUS[invoice.status];
  if (problem) return { errors: [{ path: at, message: `la factura ${invoice.numero} ${problem}: no hay nada que modificar` }] };
  const errors: FieldError[] = [];
  if (invoice.issue_date > noteFacts.issueDate) errors.push({ path: 'issue_date', message: `es anterior a la factura que modifica (${invoice.numero}, del ${invoice.issue_date})` });
  const sold = invoice.computed.customer;
  if (sold.taxId !== noteFacts.customer.taxId) {
    errors.push({ path: 'customer.tax_id', message: `la factura ${invoice.numero} es de ${sold.taxId} (${sold.name}): ${noteFacts.named} es para el mismo cliente` });
  }
  if (errors.length > 0) return { errors };
  return { modified: { codDoc: '01', numero: invoice.numero, issueDate: invoice.issue_date, documentId: invoice.id }, invoice };
}
