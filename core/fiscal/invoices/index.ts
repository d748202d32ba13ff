/**
 * The comprobantes Sello issues to Ecuador's SRI (CONTRACT §15: invoices, credit and debit notes,
 * purchase settlements, remission guides): issuing one (`issue.ts`: one transaction from the
 * idempotency claim to the submission job; each type's own rules in `credit-note.ts`,
 * `debit-note.ts`, `modified-invoice.ts`, `purchase-settlement.ts`, `remission-guide.ts`), reading
 * it back with its computed body and its submission, its `autorizacion` XML, and its RIDE for
 * Family A's `/d/{id}` and `/p/{id}` (rendered on a thread of its own, kept for the next download).
 *
 * @example
 *   const invoices = createInvoices({ store, documents, catalogs, submissions, rides: createRideThread() });
 *   const { replayed, answer } = invoices.issue(caller, input, raw); // then wakes the submission job
 *   const pdf = await invoices.ride('test', id); // undefined: not an invoice or note Sello issued
 */
import type { Store } from '../../db/index.js';
import type { BookCaller, Documents } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import { comprobanteDefinition, isComprobanteKind, type ComprobanteKind, type ComputedCreditNote, type ComputedDebitNote, type ComputedInvoice, type ComputedPurchaseSettlement, type ComputedRemissionGuide, type ComputedWithholding, type CreditNoteBody, type DebitNoteBody, type PurchaseSettlementBody, type RemissionGuideBody, type WithholdingBody, type InvoiceBody, type InvoiceCatalogs, type Issuer, type RideData } from '../sri/index.js';
import { findSubmission, numberingOf, type SubmissionEngine } from '../submissions/index.js';
import { issueCreditNote } from './credit-note.js';
import { issueDebitNote } from './debit-note.js';
import { issuePurchaseSettlement } from './purchase-settlement.js';
import { issueRemissionGuide } from './remission-guide.js';
import { issueWithholding } from './withholding.js';
import { issueInvoice, type IssueDeps, type IssueResult } from './issue.js';
import type { RideThread } from './ride-thread/index.js';
import { creditNoteView, debitNoteView, invoiceView, purchaseSettlementView, remissionGuideView, withholdingView } from './view.js';

export { createRideThread, type RideThread } from './ride-thread/index.js';
export { documentWritesScope, issueInvoice, type IssueResult } from './issue.js';
export { issueCreditNote } from './credit-note.js';
export { issueDebitNote } from './debit-note.js';
export { issuePurchaseSettlement } from './purchase-settlement.js';
export { issueRemissionGuide } from './remission-guide.js';
export { issueWithholding } from './withholding.js';
export { creditNoteJson, debitNoteJson, invoiceJson, purchaseSettlementJson, remissionGuideJson, withholdingJson } from './view.js';

export interface Invoices {
  /**
   * Issues (or replays) an invoice; resolves once committed, then wakes the submission job. The
   * transaction shares its commit with the other writes of the moment (`store.batch`, each in its
   * own savepoint: a refused body undoes only itself), so a burst of invoices does not pay one
   * fsync each.
   */
  issue(caller: BookCaller, input: InvoiceBody, raw: unknown): Promise<IssueResult>;
  /** Issues (or replays) a credit note, as `issue`. */
  issueCreditNote(caller: BookCaller, input: CreditNoteBody, raw: unknown): Promise<IssueResult>;
  /** Issues (or replays) a debit note, as `issue`. */
  issueDebitNote(caller: BookCaller, input: DebitNoteBody, raw: unknown): Promise<IssueResult>;
  /** Issues (or replays) a purchase settlement (liquidación de compra), as `issue`. */
  issuePurchaseSettlement(caller: BookCaller, input: PurchaseSettlementBody, raw: unknown): Promise<IssueResult>;
  /** Issues (or replays) a remission guide, as `issue`. */
  issueRemissionGuide(caller: BookCaller, input: RemissionGuideBody, raw: unknown): Promise<IssueResult>;
  /** Issues (or replays) the withholding of received purchase `purchaseId`, as `issue`; refusals are 422 `withholding_failed`. */
  issueWithholding(caller: BookCaller, purchaseId: string, input: WithholdingBody, raw: unknown): Promise<IssueResult>;
  /** The document view, the computed invoice and its submission; 404 unless an invoice Sello issued in the caller's book. */
  get(caller: BookCaller, id: string): ReturnType<typeof invoiceView>;
  /** As `get`, for a credit note. */
  getCreditNote(caller: BookCaller, id: string): ReturnType<typeof creditNoteView>;
  /** As `get`, for a debit note. */
  getDebitNote(caller: BookCaller, id: string): ReturnType<typeof debitNoteView>;
  /** As `get`, for a purchase settlement. */
  getPurchaseSettlement(caller: BookCaller, id: string): ReturnType<typeof purchaseSettlementView>;
  /** As `get`, for a remission guide. */
  getRemissionGuide(caller: BookCaller, id: string): ReturnType<typeof remissionGuideView>;
  /** As `get`, for a withholding. */
  getWithholding(caller: BookCaller, id: string): ReturnType<typeof withholdingView>;
  /** The `autorizacion` XML of a comprobante of `kind`; 404 `not_ready` before authorization. */
  xml(caller: BookCaller, id: string, kind?: ComprobanteKind): string;
  /** The RIDE of an invoice or credit note Sello issued in `environment` (any book: Family A keys are the account's); undefined for other documents. */
  ride(environment: 'test' | 'live', id: string): Promise<Buffer | undefined>;
}

export interface InvoicesDeps {
  store: Store;
  documents: Documents;
  catalogs: InvoiceCatalogs;
  submissions: Pick<SubmissionEngine, 'wake'>;
  rides: RideThread;
  now?: () => Date;
}

/** RIDEs kept: a customer's download is often followed by another (the /d and /p links). */
const RIDE_CACHE_ENTRIES = 64;

export function createInvoices(deps: InvoicesDeps): Invoices {
  const { store, documents } = deps;
  const rides = new Map<string, Promise<Buffer>>();

  const issued = (caller: BookCaller, id: string, kind: ComprobanteKind) => {
    const view = documents.get(caller, id);
    const submission = findSubmission(store, id);
    if (!submission || submission.kind !== kind) {
      const { title } = comprobanteDefinition(kind);
      throw new SelloError('not_found', { detail: `El documento ${id} no es una ${title.toLowerCase()} emitida por Sello.`, detailEn: `Document ${id} is not a ${kind.replace('_', ' ')} issued by Sello.` });
    }
    return { view, submission };
  };
  const issueDeps = (): IssueDeps => ({ store, documents, catalogs: deps.catalogs, ...(deps.now ? { now: deps.now } : {}) });
  const afterIssue = (result: IssueResult): IssueResult => {
    if (!result.replayed) deps.submissions.wake();
    return result;
  };

  return {
    async issue(caller, input, raw) {
      return afterIssue(await store.batch(() => issueInvoice(issueDeps(), caller, input, raw)));
    },
    async issueCreditNote(caller, input, raw) {
      return afterIssue(await store.batch(() => issueCreditNote(issueDeps(), caller, input, raw)));
    },
    async issueDebitNote(caller, input, raw) {
      return afterIssue(await store.batch(() => issueDebitNote(issueDeps(), caller, input, raw)));
    },
    async issuePurchaseSettlement(caller, input, raw) {
      return afterIssue(await store.batch(() => issuePurchaseSettlement(issueDeps(), caller, input, raw)));
    },
    async issueRemissionGuide(caller, input, raw) {
      return afterIssue(await store.batch(() => issueRemissionGuide(issueDeps(), caller, input, raw)));
    },
    async issueWithholding(caller, purchaseId, input, raw) {
      return afterIssue(await store.batch(() => issueWithholding(issueDeps(), caller, purchaseId, input, raw)));
    },
    get(caller, id) {
      const { view, submission } = issued(caller, id, 'invoice');
      return invoiceView(view, submission);
    },
    getCreditNote(caller, id) {
      const { view, submission } = issued(caller, id, 'credit_note');
      return creditNoteView(view, submission);
    },
    getDebitNote(caller, id) {
      const { view, submission } = issued(caller, id, 'debit_note');
      return debitNoteView(view, submission);
    },
    getPurchaseSettlement(caller, id) {
      const { view, submission } = issued(caller, id, 'purchase_settlement');
      return purchaseSettlementView(view, submission);
    },
    getRemissionGuide(caller, id) {
      const { view, submission } = issued(caller, id, 'remission_guide');
      return remissionGuideView(view, submission);
    },
    getWithholding(caller, id) {
      const { view, submission } = issued(caller, id, 'withholding');
      return withholdingView(view, submission);
    },
    xml(caller, id, kind = 'invoice') {
      issued(caller, id, kind);
      return documents.xml(caller, id);
    },
    async ride(environment, id) {
      const doc = documents.findForAccount(environment, id);
      const submission = doc && findSubmission(store, id);
      if (!doc || !submission || !isComprobanteKind(submission.kind)) return undefined;
      // A new status (the authorization) is a new RIDE; the same one is rendered once.
      const key = `${id}:${doc.updated_at}`;
      let pdf = rides.get(key);
      if (!pdf) {
        const data: RideData = {
          kind: submission.kind,
          issuer: JSON.parse(submission.issuer) as Issuer,
          document: JSON.parse(submission.computed) as ComputedInvoice | ComputedCreditNote | ComputedDebitNote | ComputedPurchaseSettlement | ComputedRemissionGuide | ComputedWithholding,
          numbering: numberingOf(submission.access_key),
          authorization:
            doc.status === 'authorized' && doc.authorization?.number && doc.authorization.date
              ? { number: doc.authorization.number, date: doc.authorization.date }
              : undefined,
          environment: submission.access_key[23] === '2' ? 'PRODUCCIÓN' : 'PRUEBAS',
          emission: 'NORMAL',
        };
        pdf = deps.rides.render(data);
        rides.set(key, pdf);
        pdf.catch(() => rides.delete(key));
        while (rides.size > RIDE_CACHE_ENTRIES) rides.delete(rides.keys().next().value!);
      }
      return pdf;
    },
  };
}
