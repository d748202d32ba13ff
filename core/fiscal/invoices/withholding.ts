/**
 * `POST /api/v1/purchases/:id/withhold` (CONTRACT §15, comprobanteRetencion 2.0.0): the office's
 * client withholds renta, IVA or ISD from a purchase it received and recorded
 * (core/fiscal/purchases). The purchase is read, and the withholdings already issued for it
 * counted, inside the transaction that numbers this one, so two withholdings sent at once cannot
 * both take the same tax and code. Refusals are 422 `withholding_failed` (withholding-rules.ts
 * says which); a purchase not in the caller's book is 404.
 */
import type { Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import { findPurchaseRow } from '../purchases/index.js';
import { comprobanteDefinition, computeWithholding, type ComputedWithholding, type Issuer, type PriorWithholding, type ReceivedPurchase, type WithholdingBody } from '../sri/index.js';
import { issueComprobante, type IssueDeps, type IssueResult, type Prepared } from './issue.js';

/** The withholdings issued for `purchaseId` that still stand (not rejected or failed). */
function priorWithholdings(store: Store, purchaseId: string): PriorWithholding[] {
  const rows = store.all(
    store.db
      .selectFrom('fiscal_submissions')
      .innerJoin('documents', 'documents.id', 'fiscal_submissions.document_id')
      .select(['documents.numero', 'fiscal_submissions.computed'])
      .where('fiscal_submissions.purchase_id', '=', purchaseId)
      .where('fiscal_submissions.kind', '=', 'withholding')
      .where('documents.status', 'not in', ['rejected', 'failed']),
  );
  return rows.map((r) => ({ numero: r.numero ?? '', lines: (JSON.parse(r.computed) as ComputedWithholding).lines }));
}

/** The series a withholding takes: the body's, or the issuer's first establishment and its first emission point. */
function seriesOf(body: WithholdingBody, issuer: Issuer): { establishment: string; emissionPoint: string } {
  const establishment = body.establishment ?? issuer.establishments[0]?.code ?? '001';
  const found = issuer.establishments.find((e) => e.code === establishment);
  return { establishment, emissionPoint: body.emission_point ?? found?.emission_points[0] ?? '001' };
}

export function prepareWithholding(store: Store, caller: BookCaller, purchaseId: string, body: WithholdingBody, issuer: Issuer, now: Date): Prepared {
  const row = findPurchaseRow(store, caller, { id: purchaseId });
  if (!row) throw new SelloError('not_found', { detail: `La compra ${purchaseId} no existe en este libro y ambiente: regístrela antes con POST /api/v1/purchases.` });
  const purchase = JSON.parse(row.facts) as ReceivedPurchase;
  const result = computeWithholding({ body, purchaseId, purchase, contribuyenteEspecial: issuer.contribuyente_especial, ...seriesOf(body, issuer), prior: priorWithholdings(store, purchaseId), now });
  if ('errors' in result) return result;
  const w = result.ok;
  return {
    computed: w,
    facts: { issueDate: w.issueDate, establishment: w.establishment, emissionPoint: w.emissionPoint, currency: 'USD', grandTotal: w.totalWithheld, purchaseId },
    warnings: [],
  };
}

/**
 * Issues the withholding `input` of purchase `purchaseId` in the caller's book and environment
 * (issue.ts, `issueComprobante`). The purchase's id joins the idempotency hash: the same
 * `external_ref` and lines sent for another purchase is another request.
 */
export function issueWithholding(deps: IssueDeps, caller: BookCaller, purchaseId: string, input: WithholdingBody, raw: unknown): IssueResult {
  return issueComprobante(
    deps,
    caller,
    comprobanteDefinition('withholding'),
    input.external_ref,
    { purchase_id: purchaseId, body: raw },
    (now, issuer) => prepareWithholding(deps.store, caller, purchaseId, input, issuer, now),
    'withholding_failed',
  );
}
