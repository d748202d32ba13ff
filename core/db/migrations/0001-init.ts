import { sql, type Kysely } from 'kysely';

// Migrations are frozen in time: they take Kysely<any> and import nothing from the app.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('books')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('tenant_slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('accounting_api', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('family', 'text', (c) => c.notNull().check(sql`family in ('a', 'b')`))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('name', 'text')
    .addColumn('book_id', 'text', (c) => c.references('books.id'))
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .addCheckConstraint('family_b_has_book', sql`(family = 'b') = (book_id is not null)`)
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('events', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('last_delivered_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // Lists read a book's live endpoints in id order: this index serves the filter,
  // the default order and the LIMIT without a sort.
  await db.schema
    .createIndex('webhook_endpoints_by_book')
    .on('webhook_endpoints')
    .columns(['book_id', 'environment', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('running', 'done')`))
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();

  await db.schema
    .createTable('identification_types')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('authority_code', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tax_types')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('authority_code', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('group', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
