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
  comprobanteDefinition,
  computeInvoice,
  errorFields,
  numeroOf,
  randomNumericCode,
  seriesErrors,
  type ComprobanteDefinition,
  type FieldError,
  type InvoiceBody,
  type InvoiceCatalogs,
  type Issuer,
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

/** What numbering a comprobante and its §6 document need of it. */
export interface DocumentFacts {
  issueDate: string;
  establishment: string;
  emissionPoint: string;
  currency: 'USD';
  /** The §6 document's grand_total ("0.00" for a guía de remisión, which moves goods and carries no amounts). */
  grandTotal: string;
  /** A note's: the Sello id of the invoice it modifies (its job records it, modified-invoice.ts). */
  modifies?: string | null | undefined;
  /** A withholding's: the Sello id of the purchase it withholds (its job records it). */
  purchaseId?: string | undefined;
}

/**
 * How a comprobante's refusals are answered: `validation_failed` by default; a withholding's
 * (CONTRACT §15) are `withholding_failed`, with the same `errors` by field and a message that
 * sums them up.
 */
export type RefusalCode = 'validation_failed' | 'withholding_failed';

function refusal(code: RefusalCode, errors: FieldError[]): SelloError {
  if (code === 'validation_failed') return new SelloError(code, { fields: errorFields(errors) });
  const reasons = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new SelloError(code, { fields: errorFields(errors), detail: `No se pudo emitir la retención: ${reasons}.`, detailEn: `The withholding could not be issued: see errors.` });
}

/**
 * What a comprobante's own rules made of a valid body: the computed document (stored as JSON with
 * its submission; its XML is built from it) and its facts, or the fields at fault.
 */
export type Prepared = { computed: object; facts: DocumentFacts; warnings: FieldError[] } | { errors: FieldError[] };

/** The facts of a document with an invoice's header and totals (factura, notas, liquidación). */
export function saleFacts(doc: Omit<DocumentFacts, 'modifies'> & { modified?: { documentId: string | null } }): DocumentFacts {
  return { issueDate: doc.issueDate, establishment: doc.establishment, emissionPoint: doc.emissionPoint, currency: doc.currency, grandTotal: doc.grandTotal, modifies: doc.modified?.documentId ?? null };
}

/**
 * Issues a comprobante of `definition`'s kind (valid against its body schema; `raw` is the JSON
 * as received, for the idempotency hash) in the caller's book and environment: `prepare` computes
 * it (inside the transaction, so what it reads — the invoice a note modifies, the notes already
 * issued against it — cannot change before the number is taken). Throws SelloError 422
 * (`validation_failed` by field path, `emisor_not_configured`, certificate problems).
 */
export function issueComprobante(
  deps: IssueDeps,
  caller: BookCaller,
  definition: ComprobanteDefinition,
  externalRef: string,
  raw: unknown,
  prepare: (now: Date, issuer: Issuer) => Prepared,
  refusalCode: RefusalCode = 'validation_failed',
): IssueResult {
  const { store, documents } = deps;
  const scope = documentWritesScope(caller);
  const hash = requestHash(raw);
  return store.transaction(() => {
    const claim = claimIdempotencyKey(store, scope, externalRef, hash, 'external_ref');
    if (claim.kind === 'replay') return { replayed: true, answer: claim.response };

    const now = deps.now?.() ?? new Date();
    const { issuer, certificateId } = requireIssuer(store, caller.book.id, caller.environment);
    const prepared = prepare(now, issuer);
    const refusals: FieldError[] = 'errors' in prepared ? [...prepared.errors] : [];
    if (!('errors' in prepared)) refusals.unshift(...seriesErrors(issuer, prepared.facts.establishment, prepared.facts.emissionPoint));
    if (refusals.length > 0 || 'errors' in prepared) throw refusal(refusalCode, refusals);
    checkIssuerCertificate(store, certificateId, now);

    const doc = prepared.facts;
    const ambiente = caller.environment === 'live' ? 2 : 1;
    const secuencial = secuencialText(
      takeSecuencial(store, { bookId: caller.book.id, environment: caller.environment, docCode: definition.codDoc, establishment: doc.establishment, emissionPoint: doc.emissionPoint }),
    );
    const accessKey = accessKeyFor({
      issueDate: doc.issueDate,
      codDoc: definition.codDoc,
      ruc: issuer.ruc,
      ambiente,
      establishment: doc.establishment,
      emissionPoint: doc.emissionPoint,
      secuencial,
      numericCode: randomNumericCode(),
    });
    const view = documents.create(
      caller,
      {
        external_ref: externalRef,
        country: 'EC',
        doc_type: definition.docType,
        numero: numeroOf(doc.establishment, doc.emissionPoint, secuencial),
        access_key: accessKey,
        issue_date: doc.issueDate,
        currency: doc.currency,
        grand_total: doc.grandTotal,
      },
      null,
    );
    insertSubmission(store, {
      documentId: view.id,
      bookId: caller.book.id,
      environment: caller.environment,
      kind: definition.kind,
      requestHash: hash,
      computed: JSON.stringify(prepared.computed),
      // The issuer as it is now: a later PUT /api/v1/issuer does not change a numbered document.
      issuer: JSON.stringify(issuer),
      certificateId,
      accessKey,
      modifiesDocumentId: doc.modifies ?? null,
      purchaseId: doc.purchaseId ?? null,
      now: now.getTime(),
    });
    const warnings = prepared.warnings.length > 0 ? { meta: { warnings: errorFields(prepared.warnings) } } : {};
    const answer: StoredResponse = { status: 201, body: JSON.stringify({ data: view, ...warnings }), headers: { Location: `${definition.path}/${view.id}` } };
    completeIdempotencyKey(store, scope, externalRef, answer);
    return { replayed: false, answer };
  });
}

/**
 * Issues the invoice `input` in the caller's book and environment (`issueComprobante`).
 *
 * @example
 *   const { replayed, answer } = issueInvoice(deps, caller, input, raw);
 *   // answer.status 201, answer.body '{"data":{"id":…,"numero":"001-001-000000001","access_key":…,"status":"pending"…}}'
 */
export function issueInvoice(deps: IssueDeps, caller: BookCaller, input: InvoiceBody, raw: unknown): IssueResult {
  return issueComprobante(deps, caller, comprobanteDefinition('invoice'), input.external_ref, raw, (now) => {
    const computed = computeInvoice(input, deps.catalogs, now);
    return 'errors' in computed ? computed : { computed: computed.ok, facts: saleFacts(computed.ok), warnings: computed.warnings };
  });
}
