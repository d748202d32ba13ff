import { sql } from 'kysely';
import { z } from 'zod';
import type { Caller } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import { fileName, loadFull, signersOf } from '../../signing/requests/index.js';
import { findCertificateRow } from '../../certificates/index.js';
import { defineResource } from '../jsonapi/resource.js';

function familyB(caller: Caller): Extract<Caller, { family: 'b' }> {
  if (caller.family !== 'b') throw new SelloError('unauthorized');
  return caller;
}

const signerSchema = z.object({ national_id: z.string(), name: z.string(), email: z.string(), role: z.string(), order: z.number().int(), signed_at: z.string().nullable() });
const documentSchema = z.object({ id: z.string(), client_id: z.string().nullable(), name: z.string(), hash: z.string().nullable() });

/**
 * `signature_request` (CONTRACT §11): a signing request by its `reference_id`, for a Bearer
 * key with scope `signing`. Signing requests belong to the account (Family A keys have no
 * book): a key sees those of its environment that name its book, or that name no book
 * (docs/decisions.md, «Qué libro ve una solicitud de firma»).
 */
export function signatureRequestResource(store: Store) {
  return defineResource({
    type: 'signature_request',
    path: '/api/v1/signature-requests',
    description: 'Signing requests by their reference_id: status, signers and documents with the SHA-256 of the signed PDF.',
    scope: 'signing',
    attributes: {
      request_id: { schema: z.uuid(), column: 'sr.id', filter: 'uuid' },
      // `failed` is a local extension of the spec's states: ended by a failure no approval can fix (docs/signing-requests.md).
      status: { schema: z.enum(['draft', 'processing', 'signed', 'failed']), column: 'sr.status', filter: 'string', sortable: true },
      subject: { schema: z.string(), column: 'sr.subject', filter: 'string', sortable: true },
      created: { schema: z.iso.datetime(), column: 'sr.created_at', filter: 'datetime', sortable: true },
      signed: { schema: z.iso.datetime().nullable(), column: 'sr.signed_at', filter: 'datetime', sortable: true },
      signers: { schema: z.array(signerSchema) },
      documents: { schema: z.array(documentSchema) },
    },
    from: sql`signing_requests as sr`,
    idColumn: 'sr.reference_id',
    idFilter: 'string',
    select: sql`sr.reference_id as id, sr.id as request_id, sr.status, sr.subject, sr.created_at, sr.signed_at`,
    visibleTo(caller) {
      const b = familyB(caller);
      return sql`sr.reference_id is not null and sr.environment = ${b.environment} and (sr.book_id is null or sr.book_id = ${b.book.id})`;
    },
    toAttributes(row) {
      const full = loadFull(store, String(row.request_id));
      const signers = signersOf(full?.signatures ?? [], (id) => findCertificateRow(store, id));
      return {
        request_id: row.request_id,
        status: row.status,
        subject: row.subject,
        created: row.created_at,
        signed: row.signed_at ?? null,
        signers,
        documents: (full?.documents ?? []).map((d) => ({ id: d.id, client_id: d.client_id, name: fileName(d.title, d.file_extension), hash: d.signed_hash })),
      };
    },
  });
}
