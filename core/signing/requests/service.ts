/**
 * Signing requests as the HTTP edge uses them (CONTRACT §11): create (its PDFs read on the
 * PDF thread first, then checked and stored in one transaction, then handed to the worker
 * when `send`), read, send, and the approvals of token signatures. Errors are `SelloError`s
 * with fields, so each family renders its own envelope.
 */
import { findBook } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import type { SecretBox } from '../../secrets/index.js';
import { certificateRow } from './certificates-port.js';
import type { PdfThread } from '../pdf-thread/index.js';
import { checkSigningRequest, readDocument, readDocuments, type CreateSigningRequestBody, type DocumentReading } from './create-input.js';
import type { PinCache } from './pin-cache.js';
import {
  clearFailure,
  documentBytes,
  findRequest,
  findSignature,
  insertRequest,
  loadFull,
  markRejected,
  markSent,
  pendingSignatures,
  referenceTaken,
  type FullRequest,
} from './store.js';
import { tokenStatus } from './token-status.js';
import type { SigningWorker } from './worker.js';

export type Environment = 'test' | 'live';

export interface SigningRequests {
  /**
   * Reads the documents of `body` on the PDF thread: what `create` checks them with. Outside
   * any transaction (it takes as long as the PDFs do); refusals of a PDF are kept for `create`
   * to report by field.
   */
  readDocuments(body: CreateSigningRequestBody): Promise<DocumentReading[]>;
  /** The same for one document whose bytes the caller holds (a watched file). */
  readDocument(pdf: Buffer): Promise<DocumentReading>;
  /** Checks and stores (synchronously: inside the caller's transaction, if any) a request whose documents were read. */
  create(environment: Environment, body: CreateSigningRequestBody, readings: readonly DocumentReading[]): FullRequest;
  /** A request of `environment`, or `not_found` (another environment's reads as absent, CONTRACT §3). */
  get(environment: Environment, id: string): FullRequest;
  send(environment: Environment, id: string): FullRequest;
  /** `undefined`: no such document; `null`: not signed yet. */
  file(environment: Environment, id: string, documentId: string, which: 'original' | 'signed'): Buffer | null | undefined;
  pending(): Promise<PendingGroup[]>;
  approve(signatureId: string, input: { pin?: string | undefined; remember?: boolean | undefined }): Promise<ApprovalResult>;
  reject(signatureId: string): void;
}

export interface PendingGroup {
  token: { serial: string | null; label: string | null; present: boolean; pin_tries: string; pin_cached: boolean } | null;
  signatures: Array<Record<string, unknown>>;
}

export interface ApprovalResult {
  signature_id: string;
  state: string;
  request_status: string;
  last_error: { code: string; message: string | null; pin_tries: string | null } | null;
}

export function validationError(fields: Record<string, string[]>): SelloError {
  const first = Object.entries(fields)[0];
  return new SelloError('validation_failed', {
    status: 400,
    detail: first ? `${first[0]}: ${first[1][0]}` : 'Los datos enviados no son válidos.',
    fields,
  });
}

function notFound(id: string): SelloError {
  return new SelloError('not_found', { detail: `No existe la solicitud de firma ${id}.`, detailEn: `There is no signing request ${id}.` });
}

export function createSigningRequests(deps: { store: Store; secrets: SecretBox; worker: SigningWorker; pins: PinCache; pdfs: PdfThread }): SigningRequests {
  const { store, secrets, worker, pins, pdfs } = deps;
  const inspect = (pdf: Buffer) => pdfs.inspect(pdf);

  const visible = (environment: Environment, id: string) => {
    const row = findRequest(store, id);
    if (!row || row.environment !== environment) throw notFound(id);
    return row;
  };

  return {
    readDocuments: (body) => readDocuments(body, inspect),
    readDocument: (pdf) => readDocument(pdf, inspect),
    create(environment, body, readings) {
      const checked = checkSigningRequest(store, body, readings, environment, new Date());
      if (!checked.ok) throw validationError(checked.problems);
      const input = checked.request;
      let bookId: string | null = null;
      if (input.bookSlug !== null) {
        const book = findBook(store, input.bookSlug);
        if (!book) throw validationError({ book: [`No existe el libro "${input.bookSlug}".`] });
        bookId = book.id;
      }
      const bearerSealed = input.callbackBearerToken !== null ? secrets.seal(input.callbackBearerToken) : null;
      const full = store.transaction(() => {
        if (input.referenceId !== null && referenceTaken(store, environment, input.referenceId)) {
          throw new SelloError('validation_failed', {
            status: 409,
            detail: `Ya existe una solicitud de firma con reference_id "${input.referenceId}".`,
            fields: { reference_id: ['ya existe una solicitud con este valor'] },
          });
        }
        return insertRequest(store, input, { environment, bookId, bearerSealed, now: new Date() });
      });
      if (input.send) void worker.run(full.request.id);
      return full;
    },
    get(environment, id) {
      visible(environment, id);
      return loadFull(store, id)!;
    },
    send(environment, id) {
      const row = visible(environment, id);
      if (!markSent(store, id, new Date())) {
        throw new SelloError('request_not_draft', {
          detail: `La solicitud ${id} está en estado "${row.status}"; solo se envía una solicitud en borrador (draft).`,
          detailEn: `Request ${id} is "${row.status}"; only a draft can be sent.`,
        });
      }
      void worker.run(id);
      return loadFull(store, id)!;
    },
    file(environment, id, documentId, which) {
      visible(environment, id);
      return documentBytes(store, id, documentId, which);
    },
    async pending() {
      const rows = pendingSignatures(store);
      const groups = new Map<string, PendingGroup>();
      for (const row of rows) {
        const key = row.source === 'token' ? `token:${row.token_serial}` : `software:${row.source ?? 'unknown'}`;
        let group = groups.get(key);
        if (!group) {
          const status = row.source === 'token' && row.token_module && row.token_serial ? await tokenStatus(row.token_module, row.token_serial) : undefined;
          group = {
            token:
              row.source === 'token'
                ? {
                    serial: row.token_serial,
                    label: row.token_label,
                    present: status?.present ?? false,
                    pin_tries: status?.pinTries ?? 'unknown',
                    pin_cached: row.token_serial ? pins.has(row.token_serial) : false,
                  }
                : null,
            signatures: [],
          };
          groups.set(key, group);
        }
        group.signatures.push({
          id: row.id,
          request_id: row.request_id,
          reference_id: row.reference_id,
          subject: row.subject,
          environment: row.environment,
          document_id: row.document_id,
          document_title: row.title,
          certificate_id: row.certificate_id,
          signer: row.subject_name,
          page: row.page,
          attempts: row.attempts,
          last_error: row.last_error_code ? { code: row.last_error_code, message: row.last_error, pin_tries: row.pin_tries } : null,
          waiting_since: row.updated_at,
        });
      }
      return [...groups.values()];
    },
    async approve(signatureId, input) {
      const signature = findSignature(store, signatureId);
      if (!signature) throw new SelloError('not_found', { detail: `No existe la firma ${signatureId}.`, detailEn: `No signature ${signatureId}.` });
      const request = findRequest(store, signature.request_id)!;
      if (signature.state !== 'pending' || request.status !== 'processing') {
        throw new SelloError('signature_not_pending', {
          detail: `La firma ${signatureId} está en estado "${signature.state}" y su solicitud en "${request.status}"; solo se aprueba una firma pendiente de una solicitud en proceso.`,
          detailEn: `Signature ${signatureId} is "${signature.state}" (request "${request.status}"); only pending signatures of processing requests can be approved.`,
        });
      }
      const cert = certificateRow(store, signature.certificate_id);
      if (cert?.source === 'token' && cert.token_serial) {
        if (input.pin !== undefined) pins.set(cert.token_serial, input.pin, { remember: input.remember ?? false });
        else if (!pins.has(cert.token_serial)) {
          throw new SelloError('pin_required', { detail: 'Escriba el PIN del token para aprobar la firma.', detailEn: 'Type the token PIN to approve the signature.' });
        }
      }
      // An approval is the person's go-ahead to try again (a failure stops the request until then).
      clearFailure(store, signatureId);
      await worker.runAll();
      const after = findSignature(store, signatureId)!;
      if (after.last_error_code === 'pin_incorrect') {
        throw new SelloError('pin_incorrect', {
          meta: { pin_tries: after.pin_tries, signature_id: signatureId },
          detail: `PIN incorrecto. El token informa intentos: ${after.pin_tries ?? 'desconocido'}. No se volverá a intentar automáticamente.`,
        });
      }
      return {
        signature_id: signatureId,
        state: after.state,
        request_status: findRequest(store, signature.request_id)!.status,
        last_error: after.last_error_code ? { code: after.last_error_code, message: after.last_error, pin_tries: after.pin_tries } : null,
      };
    },
    reject(signatureId) {
      const signature = findSignature(store, signatureId);
      if (!signature) throw new SelloError('not_found', { detail: `No existe la firma ${signatureId}.`, detailEn: `No signature ${signatureId}.` });
      if (!markRejected(store, signatureId, new Date())) {
        throw new SelloError('signature_not_pending', {
          detail: `La firma ${signatureId} está en estado "${signature.state}"; solo se rechaza una firma pendiente.`,
          detailEn: `Signature ${signatureId} is "${signature.state}"; only pending signatures can be rejected.`,
        });
      }
    },
  };
}
