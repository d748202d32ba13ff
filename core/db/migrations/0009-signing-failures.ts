import { sql, type Kysely } from 'kysely';

// Signing requests and signatures that end `failed` (docs/signing-requests.md «Estados y quién
// firma»): a signature whose failure no approval can fix ends there, and so does its request,
// with a callback. SQLite cannot change a CHECK in place, so both tables are rebuilt (the
// procedure of sqlite.org/lang_altertable.html §7): foreign keys off, new table, copy, drop,
// rename, indexes, `foreign_key_check`, in one transaction. Frozen in time: Kysely<any>.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // Outside the transaction: SQLite ignores this pragma inside one.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    // A savepoint: a transaction of its own when run alone (kysely's Migrator, as tests build
    // older stores), a part of the one transaction of core/db/migrate.ts (which turns foreign
    // keys off around it) otherwise.
    await sql`savepoint m0009`.execute(db);
    try {
      await rebuildRequests(db);
      await rebuildSignatures(db);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`0009-signing-failures: ${broken.rows.length} broken foreign keys after the rebuild`);
      await sql`release m0009`.execute(db);
    } catch (err) {
      await sql`rollback to m0009`.execute(db);
      await sql`release m0009`.execute(db);
      throw err;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rebuildRequests(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_requests_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'processing', 'signed', 'failed')`))
    .addColumn('type', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('reference_id', 'text')
    .addColumn('book_id', 'text', (c) => c.references('books.id'))
    .addColumn('callback_url', 'text')
    .addColumn('callback_bearer_sealed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('signed_at', 'text')
    /** When the request ended `failed` (its failed signature says why). */
    .addColumn('failed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into signing_requests_next
    (id, environment, status, type, subject, reference_id, book_id, callback_url, callback_bearer_sealed, created_at, sent_at, signed_at, updated_at)
    select id, environment, status, type, subject, reference_id, book_id, callback_url, callback_bearer_sealed, created_at, sent_at, signed_at, updated_at
    from signing_requests`.execute(db);
  await db.schema.dropTable('signing_requests').execute();
  await db.schema.alterTable('signing_requests_next').renameTo('signing_requests').execute();
  await db.schema
    .createIndex('signing_requests_reference')
    .on('signing_requests')
    .columns(['environment', 'reference_id'])
    .unique()
    .where(sql.ref('reference_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('signing_requests_status').on('signing_requests').columns(['status']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rebuildSignatures(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_signatures_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text', (c) => c.notNull().references('signing_requests.id'))
    .addColumn('document_id', 'text', (c) => c.notNull().references('signing_documents.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('certificate_id', 'text', (c) => c.notNull())
    .addColumn('page', 'integer', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull().check(sql`size in ('s', 'm', 'l')`))
    .addColumn('x', 'real', (c) => c.notNull())
    .addColumn('y', 'real', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'signed', 'rejected', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error_code', 'text')
    .addColumn('last_error', 'text')
    .addColumn('pin_tries', 'text')
    .addColumn('signed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('signing_signatures_position', ['request_id', 'position'])
    .execute();
  await sql`insert into signing_signatures_next
    (id, request_id, document_id, position, certificate_id, page, size, x, y, state, attempts, last_error_code, last_error, pin_tries, signed_at, updated_at)
    select id, request_id, document_id, position, certificate_id, page, size, x, y, state, attempts, last_error_code, last_error, pin_tries, signed_at, updated_at
    from signing_signatures`.execute(db);
  await db.schema.dropTable('signing_signatures').execute();
  await db.schema.alterTable('signing_signatures_next').renameTo('signing_signatures').execute();
  await db.schema.createIndex('signing_signatures_state').on('signing_signatures').columns(['state', 'certificate_id']).execute();
}
