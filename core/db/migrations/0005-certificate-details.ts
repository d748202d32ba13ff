import { sql, type Kysely } from 'kysely';

// The spec's Certificate object needs more than 0004 kept (CONTRACT §10): its type,
// validity, principal and organization, and its status. Rows from 0004 keep NULLs and
// are described from their X.509 certificate when read. Frozen in time: Kysely<any>,
// no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('certificates').addColumn('type', 'text').execute();
  /** Days, as the spec's `validity` (1, 365, 732, 1095, 1825 for test certificates). */
  await db.schema.alterTable('certificates').addColumn('validity', 'integer').execute();
  /** The spec's Principal, JSON. */
  await db.schema.alterTable('certificates').addColumn('principal', 'text').execute();
  /** The spec's Organization, JSON; NULL when the certificate has none. */
  await db.schema.alterTable('certificates').addColumn('organization', 'text').execute();
  await db.schema
    .alterTable('certificates')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('issued').check(sql`status in ('issued', 'draft', 'processing')`))
    .execute();
  /** RFC 3339: when the certificate was issued (its notBefore for imported ones). */
  await db.schema.alterTable('certificates').addColumn('issued_at', 'text').execute();
  await db.schema.createIndex('certificates_environment').on('certificates').columns(['environment', 'created_at']).execute();
}
