/**
 * `POST /api/v1/remission-guides` (CONTRACT §15, guiaRemision 1.1.0): goods moved by a carrier to
 * one or more recipients. What the body says is computed and checked by
 * core/fiscal/sri/compute-remission-guide.ts; here each recipient's `invoice_id` becomes its
 * supporting document (the invoice's number, date and access key), which must be an invoice
 * Sello issued in the caller's book and environment that was not rejected or failed. A guide
 * carries no amounts: its §6 document says USD 0.00.
 */
import type { Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import { comprobanteDefinition, computeRemissionGuide, type ComputedRemissionGuide, type FieldError, type RemissionGuideBody } from '../sri/index.js';
import { issueComprobante, type IssueDeps, type IssueResult, type Prepared } from './issue.js';
import { findSelloInvoice, UNUSABLE_STATUS } from './modified-invoice.js';

export function prepareRemissionGuide(store: Store, caller: BookCaller, body: RemissionGuideBody, deps: Pick<IssueDeps, 'catalogs'>, now: Date): Prepared {
  const computed = computeRemissionGuide(body, deps.catalogs, now);
  if ('errors' in computed) return computed;
  const errors: FieldError[] = [];
  const recipients = computed.ok.recipients.map((recipient, i) => {
    if (recipient.invoiceId === undefined) return recipient;
    const at = `recipients[${i}].invoice_id`;
    const invoice = findSelloInvoice(store, caller, { id: recipient.invoiceId });
    if (!invoice) {
      errors.push({ path: at, message: `${recipient.invoiceId} no es una factura emitida por Sello en este libro y ambiente; para otro documento indique support_document` });
      return recipient;
    }
    const problem = UNUSABLE_STATUS[invoice.status];
    if (problem) {
      errors.push({ path: at, message: `la factura ${invoice.numero} ${problem}: no sustenta el traslado` });
      return recipient;
    }
    const { invoiceId: _id, ...rest } = recipient;
    return { ...rest, supportDocument: { codDoc: '01', numero: invoice.numero, issueDate: invoice.issue_date, authorizationNumber: invoice.access_key, documentId: invoice.id } };
  });
  if (errors.length > 0) return { errors };
  const guide: ComputedRemissionGuide = { ...computed.ok, recipients };
  return {
    computed: guide,
    facts: { issueDate: guide.issueDate, establishment: guide.establishment, emissionPoint: guide.emissionPoint, currency: 'USD', grandTotal: '0.00' },
    warnings: computed.warnings,
  };
}

/** Issues the remission guide `input` in the caller's book and environment (issue.ts, `issueComprobante`). */
export function issueRemissionGuide(deps: IssueDeps, caller: BookCaller, input: RemissionGuideBody, raw: unknown): IssueResult {
  return issueComprobante(deps, caller, comprobanteDefinition('remission_guide'), input.external_ref, raw, (now) => prepareRemissionGuide(deps.store, caller, input, deps, now));
}
