import { sql, type Kysely } from 'kysely';

// Signing requests (CONTRACT §11): the request, its documents (original and current PDF
// bytes) and its signatures, applied in order. Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'processing', 'signed')`))
    .addColumn('type', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    /** The caller's own key (CONTRACT §11); unique per environment, looked up by Family B. */
    .addColumn('reference_id', 'text')
    /** Optional book (by id) that owns the request for Family B reads; null = every book of the account. */
    .addColumn('book_id', 'text', (c) => c.references('books.id'))
    .addColumn('callback_url', 'text')
    /** The callback's bearer token, sealed with the data folder's key; never returned. */
    .addColumn('callback_bearer_sealed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('signed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('signing_requests_reference')
    .on('signing_requests')
    .columns(['environment', 'reference_id'])
    .unique()
    .where(sql.ref('reference_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('signing_requests_status').on('signing_requests').columns(['status']).execute();

  await db.schema
    .createTable('signing_documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull().references('signing_requests.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('client_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('file_extension', 'text', (c) => c.notNull())
    .addColumn('original', 'blob', (c) => c.notNull())
    .addColumn('original_hash', 'text', (c) => c.notNull())
    /** The PDF with every signature applied so far: the resume point after a crash. */
    .addColumn('current', 'blob')
    /** Set when the last signature of the request is applied. */
    .addColumn('signed_hash', 'text')
    .addUniqueConstraint('signing_documents_position', ['request_id', 'position'])
    .execute();

  await db.schema
    .createTable('signing_signatures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull().references('signing_requests.id'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('signing_documents.id'))
    /** Order of application across the request (document order, then signature order). */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('certificate_id', 'text', (c) => c.notNull())
    .addColumn('page', 'integer', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull().check(sql`size in ('s', 'm', 'l')`))
    .addColumn('x', 'real', (c) => c.notNull())
    .addColumn('y', 'real', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'signed', 'rejected')`))
    /** Sign attempts made (a wrong PIN counts; it is never retried by itself). */
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error_code', 'text')
    .addColumn('last_error', 'text')
    /** What the token reported about its PIN tries at the last failure. */
    .addColumn('pin_tries', 'text')
    .addColumn('signed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('signing_signatures_position', ['request_id', 'position'])
    .execute();
  await db.schema.createIndex('signing_signatures_state').on('signing_signatures').columns(['state', 'certificate_id']).execute();
}
