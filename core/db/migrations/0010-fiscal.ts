import { sql, type Kysely } from 'kysely';

// Issuing to the tax authority (CONTRACT §15): the issuer of each book and environment, the
// sequential numbers, and one submission per issued document (its body, what Sello computed,
// the exact signed bytes sent, where it is in its life and when it is tried again). A
// document's status gains `signed` and `sent`; SQLite cannot change a CHECK in place, so
// `documents` is rebuilt as 0009 rebuilt its tables (sqlite.org/lang_altertable.html §7).
// Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    // A savepoint: a transaction of its own when run alone (kysely's Migrator, as tests build
    // older stores), a part of the one transaction of core/db/migrate.ts (which turns foreign
    // keys off around it) otherwise.
    await sql`savepoint m0010`.execute(db);
    try {
      await rebuildDocuments(db);
      await createFiscalTables(db);
      const broken = await sql`pragma foreign_key_check`.execute(db);
      if (broken.rows.length > 0) throw new Error(`0010-fiscal: ${broken.rows.length} broken foreign keys after the rebuild`);
      await sql`release m0010`.execute(db);
    } catch (err) {
      await sql`rollback to m0010`.execute(db);
      await sql`release m0010`.execute(db);
      throw err;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rebuildDocuments(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('documents_next')
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
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'signed', 'sent', 'authorized', 'rejected', 'failed')`))
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
  await sql`insert into documents_next select id, book_id, environment, external_ref, country, doc_type, numero, access_key, issue_date,
    currency, grand_total, status, authorization_status, authorization_number, authorization_date, failure_reason, pdf, xml, created_at, updated_at
    from documents`.execute(db);
  await db.schema.dropTable('documents').execute();
  await db.schema.alterTable('documents_next').renameTo('documents').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function createFiscalTables(db: Kysely<any>): Promise<void> {
  // The issuer of a book in one environment (`PUT /api/v1/issuer`): the body as given, checked.
  await db.schema
    .createTable('issuers')
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('country', 'text', (c) => c.notNull().check(sql`country in ('EC', 'PE')`))
    /** The issuer as JSON (core/fiscal/sri/invoice-model.ts `Issuer`). */
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('certificate_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('issuers_pk', ['book_id', 'environment'])
    .execute();

  // The last sequential number given per series and document type: taken and raised in the
  // transaction that creates the document, so a number is never given twice nor skipped by a
  // refused body.
  await db.schema
    .createTable('fiscal_sequences')
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    /** The authority's document type code (SRI codDoc: 01 factura…). */
    .addColumn('doc_code', 'text', (c) => c.notNull())
    .addColumn('establishment', 'text', (c) => c.notNull())
    .addColumn('emission_point', 'text', (c) => c.notNull())
    .addColumn('last', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('fiscal_sequences_pk', ['book_id', 'environment', 'doc_code', 'establishment', 'emission_point'])
    .execute();

  // One submission per issued document: a durable job like a webhook delivery (rows, leases,
  // retries with backoff), whose every step survives a kill.
  await db.schema
    .createTable('fiscal_submissions')
    .addColumn('document_id', 'text', (c) => c.primaryKey().references('documents.id'))
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('country', 'text', (c) => c.notNull().check(sql`country in ('EC', 'PE')`))
    /** `invoice`, later `credit_note`… */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** SHA-256 of the request body as received: a repeat of `external_ref` with another body is a conflict. */
    .addColumn('request_hash', 'text', (c) => c.notNull())
    /** What Sello computed from the body (JSON), and the issuer as it was then (JSON). */
    .addColumn('computed', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('certificate_id', 'text', (c) => c.notNull())
    .addColumn('access_key', 'text', (c) => c.notNull().unique())
    /** The exact bytes sent: re-serialising a signed XML breaks its digests. */
    .addColumn('signed_xml', 'blob')
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('pending', 'signed', 'sent', 'authorized', 'rejected', 'failed')`),
    )
    /**
     * What put the submission in `sent`: RECIBIDA, or the DEVUELTA code that means "ask the
     * authorization service" (43, 45, 70). A key the authorization service does not know is "not
     * published yet" after RECIBIDA, 43 or 70, but after a 45 another document holds the number.
     */
    .addColumn('reception', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    /** Epoch milliseconds of the next step; null once final. */
    .addColumn('due_at', 'integer')
    /** Epoch milliseconds until which a worker holds the row. */
    .addColumn('lease_until', 'integer')
    /** When the authority was first found unreachable in a row of failures (the 72 h limit). */
    .addColumn('unreachable_since', 'text')
    /** The last problem, in Spanish, for the UI and the logs. */
    .addColumn('last_error', 'text')
    /** The authority's answer holding the authorized document (the SRI's `autorizacion`). */
    .addColumn('authorization_xml', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fiscal_submissions_due').on('fiscal_submissions').columns(['due_at']).where(sql.ref('due_at'), 'is not', null).execute();
}
