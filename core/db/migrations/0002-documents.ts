import { sql, type Kysely } from 'kysely';

// Tax documents (CONTRACT §6). Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('external_ref', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull().check(sql`country in ('EC', 'PE')`))
    .addColumn('doc_type', 'text', (c) => c.notNull())
    .addColumn('numero', 'text', (c) => c.notNull())
    .addColumn('access_key', 'text')
    .addColumn('issue_date', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('grand_total', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'authorized', 'rejected', 'failed')`))
    .addColumn('authorization_status', 'text')
    .addColumn('authorization_number', 'text')
    .addColumn('authorization_date', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('pdf', 'blob')
    .addColumn('xml', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('documents_external_ref', ['book_id', 'environment', 'external_ref'])
    .execute();

  // Events: one row per status change of a live document, its webhook body fixed at that moment.
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    /** The exact JSON bytes every delivery of this event sends. */
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_by_book').on('events').columns(['book_id', 'created_at']).execute();
}
