/**
 * Invoices Sello issues to Ecuador's SRI (CONTRACT §15): issuing one (`issue.ts`: one
 * transaction from the idempotency claim to the submission job), reading it back with its
 * computed body and its submission, its `autorizacion` XML, and its RIDE for Family A's
 * `/d/{id}` and `/p/{id}` (rendered on a thread of its own, kept for the next download).
 *
 * @example
 *   const invoices = createInvoices({ store, documents, catalogs, submissions, rides: createRideThread() });
 *   const { replayed, answer } = invoices.issue(caller, input, raw); // then wakes the submission job
 *   const pdf = await invoices.ride('test', id); // undefined: not an issued invoice
 */
import type { Store } from '../../db/index.js';
import type { BookCaller, Documents } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import type { ComputedInvoice, InvoiceBody, InvoiceCatalogs, Issuer, RideData } from '../sri/index.js';
import { findSubmission, numberingOf, type SubmissionEngine } from '../submissions/index.js';
import { issueInvoice, type IssueResult } from './issue.js';
import type { RideThread } from './ride-thread/index.js';
import { invoiceView } from './view.js';

export { createRideThread, type RideThread } from './ride-thread/index.js';
export { documentWritesScope, issueInvoice, type IssueResult } from './issue.js';
export { invoiceJson } from './view.js';

export interface Invoices {
  /**
   * Issues (or replays) an invoice; resolves once committed, then wakes the submission job. The
   * transaction shares its commit with the other writes of the moment (`store.batch`, each in its
   * own savepoint: a refused body undoes only itself), so a burst of invoices does not pay one
   * fsync each.
   */
  issue(caller: BookCaller, input: InvoiceBody, raw: unknown): Promise<IssueResult>;
  /** The document view, the computed invoice and its submission; 404 unless an invoice Sello issued in the caller's book. */
  get(caller: BookCaller, id: string): ReturnType<typeof invoiceView>;
  /** The `autorizacion` XML; 404 `not_ready` before authorization. */
  xml(caller: BookCaller, id: string): string;
  /** The RIDE of an invoice Sello issued in `environment` (any book: Family A keys are the account's); undefined for other documents. */
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

  const issued = (caller: BookCaller, id: string) => {
    const view = documents.get(caller, id);
    const submission = findSubmission(store, id);
    if (!submission || submission.kind !== 'invoice') {
      throw new SelloError('not_found', { detail: `El documento ${id} no es una factura emitida por Sello.`, detailEn: `Document ${id} is not an invoice issued by Sello.` });
    }
    return { view, submission };
  };

  return {
    async issue(caller, input, raw) {
      const issueDeps = { store, documents, catalogs: deps.catalogs, ...(deps.now ? { now: deps.now } : {}) };
      const result = await store.batch(() => issueInvoice(issueDeps, caller, input, raw));
      if (!result.replayed) deps.submissions.wake();
      return result;
    },
    get(caller, id) {
      const { view, submission } = issued(caller, id);
      return invoiceView(view, submission);
    },
    xml(caller, id) {
      issued(caller, id);
      return documents.xml(caller, id);
    },
    async ride(environment, id) {
      const doc = documents.findForAccount(environment, id);
      const submission = doc && findSubmission(store, id);
      if (!doc || !submission || submission.kind !== 'invoice') return undefined;
      // A new status (the authorization) is a new RIDE; the same one is rendered once.
      const key = `${id}:${doc.updated_at}`;
      let pdf = rides.get(key);
      if (!pdf) {
        const data: RideData = {
          issuer: JSON.parse(submission.issuer) as Issuer,
          invoice: JSON.parse(submission.computed) as ComputedInvoice,
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
