/**
 * `POST /api/v1/invoices` after its body passed the schema (CONTRACT §15 "Writes"): the issuer,
 * the series, what Sello computes, the issuer's certificate, then — in ONE transaction — the
 * idempotency claim, the next secuencial, the access key, the §6 document and its submission
 * job, and the stored answer. A refused body rolls the whole transaction back: it takes no
 * number and reaches nothing; an accepted one has its number, its document and its job or none
 * of them, whatever happens to the process.
 *
 * Idempotency (CONTRACT §5) shares its scope with `POST /api/v1/documents`: both write the same
 * documents, whose `external_ref` is unique per book and environment, so the same reference sent
 * to the other route is the "same external_ref with another body" 422 rather than a clash.
 */
import { claimIdempotencyKey, completeIdempotencyKey, requestHash, type StoredResponse } from '../../auth/index.js';
import { assertUsableForSigning, findCertificateRow } from '../../certificates/index.js';
import type { Store } from '../../db/index.js';
import type { BookCaller, Documents } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import { assertXmlSigningCertificate, certificateFacts } from '../../xml/light.js';
import { requireIssuer } from '../issuer-store.js';
import { secuencialText, takeSecuencial } from '../numbering.js';
import {
  accessKeyFor,
  COD_DOC,
  computeInvoice,
  errorFields,
  numeroOf,
  randomNumericCode,
  seriesErrors,
  type FieldError,
  type InvoiceBody,
  type InvoiceCatalogs,
} from '../sri/index.js';
import { insertSubmission } from '../submissions/index.js';

export interface IssueDeps {
  store: Store;
  documents: Documents;
  catalogs: InvoiceCatalogs;
  now?: () => Date;
}

export interface IssueResult {
  /** A repeat of an accepted request: the first answer, sent with `Idempotent-Replayed: true`. */
  replayed: boolean;
  answer: StoredResponse;
}

/** The idempotency scope of document writes of a book and environment (the same as POST /api/v1/documents). */
export function documentWritesScope(caller: BookCaller): string {
  return `book:${caller.book.id}:${caller.environment}:documents.create`;
}

/**
 * The issuer's certificate must be able to sign now: present, current, RSA with digital
 * signature (the SRI's error 39 otherwise). Checked before a number is taken, so that a
 * certificate problem is the caller's 422 and not a numbered document that ends `failed`.
 */
function checkIssuerCertificate(store: Store, certificateId: string, now: Date): void {
  const row = findCertificateRow(store, certificateId);
  const fix = 'Configure el emisor con un certificado vigente (PUT /api/v1/issuer).';
  if (!row) {
    throw new SelloError('certificate_not_found', { status: 422, detail: `El certificado del emisor (${certificateId}) ya no existe en Sello. ${fix}` });
  }
  try {
    assertUsableForSigning(row, now);
    assertXmlSigningCertificate(certificateFacts(row.certificate));
  } catch (err) {
    if (err instanceof SelloError) throw new SelloError(err.code, { ...err.details, status: 422, detail: `Certificado del emisor: ${err.message} ${fix}` });
    throw err;
  }
}

/**
 * Issues the invoice `input` (valid against `invoiceBodySchema`; `raw` is the JSON as received,
 * for the idempotency hash) in the caller's book and environment. Throws SelloError 422
 * (`validation_failed` by field path, `emisor_not_configured`, certificate problems).
 *
 * @example
 *   const { replayed, answer } = issueInvoice(deps, caller, input, raw);
 *   // answer.status 201, answer.body '{"data":{"id":…,"numero":"001-001-000000001","access_key":…,"status":"pending"…}}'
 */
export function issueInvoice(deps: IssueDeps, caller: BookCaller, input: InvoiceBody, raw: unknown): IssueResult {
  const { store, documents } = deps;
  const scope = documentWritesScope(caller);
  const hash = requestHash(raw);
  return store.transaction(() => {
    const claim = claimIdempotencyKey(store, scope, input.external_ref, hash, 'external_ref');
    if (claim.kind === 'replay') return { replayed: true, answer: claim.response };

    const now = deps.now?.() ?? new Date();
    const { issuer, certificateId } = requireIssuer(store, caller.book.id, caller.environment);
    const refusals: FieldError[] = seriesErrors(issuer, input.establishment, input.emission_point);
    const computed = computeInvoice(input, deps.catalogs, now);
    if ('errors' in computed) refusals.push(...computed.errors);
    if (refusals.length > 0 || 'errors' in computed) throw new SelloError('validation_failed', { fields: errorFields(refusals) });
    checkIssuerCertificate(store, certificateId, now);

    const invoice = computed.ok;
    const ambiente = caller.environment === 'live' ? 2 : 1;
    const secuencial = secuencialText(
      takeSecuencial(store, { bookId: caller.book.id, environment: caller.environment, docCode: COD_DOC.factura, establishment: invoice.establishment, emissionPoint: invoice.emissionPoint }),
    );
    const accessKey = accessKeyFor({
      issueDate: invoice.issueDate,
      codDoc: COD_DOC.factura,
      ruc: issuer.ruc,
      ambiente,
      establishment: invoice.establishment,
      emissionPoint: invoice.emissionPoint,
      secuencial,
      numericCode: randomNumericCode(),
    });
    const view = documents.create(
      caller,
      {
        external_ref: input.external_ref,
        country: 'EC',
        doc_type: 'invoice',
        numero: numeroOf(invoice.establishment, invoice.emissionPoint, secuencial),
        access_key: accessKey,
        issue_date: invoice.issueDate,
        currency: invoice.currency,
        grand_total: invoice.grandTotal,
      },
      null,
    );
    insertSubmission(store, {
      documentId: view.id,
      bookId: caller.book.id,
      environment: caller.environment,
      kind: 'invoice',
      requestHash: hash,
      computed: JSON.stringify(invoice),
      // The issuer as it is now: a later PUT /api/v1/issuer does not change a numbered document.
      issuer: JSON.stringify(issuer),
      certificateId,
      accessKey,
      now: now.getTime(),
    });
    const warnings = computed.warnings.length > 0 ? { meta: { warnings: errorFields(computed.warnings) } } : {};
    const answer: StoredResponse = { status: 201, body: JSON.stringify({ data: view, ...warnings }), headers: { Location: `/api/v1/invoices/${view.id}` } };
    completeIdempotencyKey(store, scope, input.external_ref, answer);
    return { replayed: false, answer };
  });
}
