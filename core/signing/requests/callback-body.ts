/**
 * The signing-result callback bodies. Signed: exactly the spec's fields (spec, Signing-result
 * callback body): `reference_id`, `signed_at`, `signers[]`, `documents[]` with the SHA-256 and
 * the base64 of each signed PDF. Failed (a local extension, docs/signing-requests.md):
 * `status: "failed"`, when, why (code and Spanish message) and which documents, no PDF.
 */
import type { CertificateRow } from '../../certificates/index.js';
import { signerFacts } from './certificates-port.js';
import type { DocumentMeta, RequestRow, SignatureRow } from './store.js';

export interface Signer {
  national_id: string;
  name: string;
  email: string;
  role: string;
  order: number;
  signed_at: string | null;
}

export interface CallbackBody {
  reference_id: string | null;
  signed_at: string;
  signers: Signer[];
  documents: Array<{ id: string; client_id: string | null; name: string; hash: string; content_base64: string }>;
}

/** The body of the one callback of a request that ended `failed`. */
export interface FailureCallbackBody {
  reference_id: string | null;
  status: 'failed';
  failed_at: string;
  error: { code: string; message: string; document_id: string };
  documents: Array<{ id: string; client_id: string | null; name: string }>;
}

/** `Contrato de arriendo` → `Contrato de arriendo.pdf`; path separators and control characters go. */
export function fileName(title: string, extension: string): string {
  const base = title.replace(/[\\/:*?"<>|\p{Cc}]+/gu, '_').trim() || 'documento';
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`;
}

/**
 * One signer per certificate, in the order of its first signature; `signed_at` is its
 * last signature. `role` is `signer`: the spec names the field but not its values.
 */
export function signersOf(signatures: readonly SignatureRow[], certificate: (id: string) => CertificateRow | undefined): Signer[] {
  const signers: Signer[] = [];
  const seen = new Map<string, Signer>();
  for (const sig of signatures) {
    const existing = seen.get(sig.certificate_id);
    if (existing) {
      if (sig.signed_at && (!existing.signed_at || sig.signed_at > existing.signed_at)) existing.signed_at = sig.signed_at;
      continue;
    }
    const row = certificate(sig.certificate_id);
    const facts = row ? signerFacts(row) : { name: sig.certificate_id, nationalId: '', email: '' };
    const signer = { national_id: facts.nationalId, name: facts.name, email: facts.email, role: 'signer', order: signers.length + 1, signed_at: sig.signed_at };
    seen.set(sig.certificate_id, signer);
    signers.push(signer);
  }
  return signers;
}

export function buildCallbackBody(input: {
  request: RequestRow;
  signedAt: Date;
  signatures: SignatureRow[];
  certificates: ReadonlyMap<string, CertificateRow | undefined>;
  documents: Array<DocumentMeta & { pdf: Buffer; hash: string }>;
}): CallbackBody {
  return {
    reference_id: input.request.reference_id,
    signed_at: input.signedAt.toISOString(),
    signers: signersOf(input.signatures, (id) => input.certificates.get(id)),
    documents: input.documents.map((d) => ({
      id: d.id,
      client_id: d.client_id,
      name: fileName(d.title, d.file_extension),
      hash: d.hash,
      content_base64: d.pdf.toString('base64'),
    })),
  };
}

export function buildFailureCallbackBody(input: {
  request: RequestRow;
  failedAt: Date;
  failure: { code: string; message: string; documentId: string };
  documents: DocumentMeta[];
}): FailureCallbackBody {
  return {
    reference_id: input.request.reference_id,
    status: 'failed',
    failed_at: input.failedAt.toISOString(),
    error: { code: input.failure.code, message: input.failure.message, document_id: input.failure.documentId },
    documents: input.documents.map((d) => ({ id: d.id, client_id: d.client_id, name: fileName(d.title, d.file_extension) })),
  };
}
