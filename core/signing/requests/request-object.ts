/**
 * The spec's Signing request object (Family A response), with the contract's echoes
 * (`reference_id`, `callback_url`, `documents[].client_id`) and, per signature, the local
 * `status` (`pending`, `signed`, `rejected`, `failed`) and the last error, so a caller can see
 * why a request waits or why it ended `failed` (CONTRACT §11; docs/signing-requests.md).
 */
import type { Store } from '../../db/index.js';
import { certificateObject, certificateRow } from './certificates-port.js';
import type { FullRequest } from './store.js';

export function documentUrl(baseUrl: string, requestId: string, documentId: string, which: 'original' | 'signed'): string {
  return `${baseUrl}/digital-signatures/signing-requests/${requestId}/documents/${documentId}/${which}`;
}

/** Numbers the spec types as strings (page, x, y): `72`, `72.5`. */
function text(n: number): string {
  return String(n);
}

export function toSigningRequestObject(store: Store, full: FullRequest, baseUrl: string) {
  const { request } = full;
  const certificates = new Map<string, unknown>();
  const certificateFor = (id: string) => {
    if (!certificates.has(id)) certificates.set(id, certificateObject(certificateRow(store, id), id));
    return certificates.get(id);
  };
  return {
    id: request.id,
    object: 'signing_request',
    environment: request.environment,
    status: request.status,
    type: request.type,
    subject: request.subject,
    reference_id: request.reference_id,
    callback_url: request.callback_url,
    created: request.created_at,
    signed: request.signed_at,
    documents: full.documents.map((doc) => ({
      id: doc.id,
      client_id: doc.client_id,
      title: doc.title,
      notes: doc.notes,
      file_extension: doc.file_extension,
      original_file: documentUrl(baseUrl, request.id, doc.id, 'original'),
      original_file_hash: doc.original_hash,
      signed_file: documentUrl(baseUrl, request.id, doc.id, 'signed'),
      signed_file_hash: doc.signed_hash,
      signatures: full.signatures
        .filter((s) => s.document_id === doc.id)
        .map((s) => ({
          id: s.id,
          status: s.state,
          timestamp: s.signed_at,
          signing_certificate: certificateFor(s.certificate_id),
          page: text(s.page),
          size: s.size,
          x: text(s.x),
          y: text(s.y),
          ...(s.last_error_code ? { last_error: { code: s.last_error_code, message: s.last_error, pin_tries: s.pin_tries } } : {}),
        })),
    })),
  };
}

export type SigningRequestObject = ReturnType<typeof toSigningRequestObject>;
