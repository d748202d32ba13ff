import { sql, type Kysely } from 'kysely';

// Certificates Sello can sign with: imported .p12 files, certificates found on PKCS#11
// tokens, and (later) test certificates. Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('certificates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('p12', 'token', 'test')`))
    /** SHA-256 of the certificate's DER, hex: one record per certificate and source. */
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('certificate', 'blob', (c) => c.notNull())
    /** JSON array of base64 DER certificates, issuer first. */
    .addColumn('chain', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('subject_name', 'text', (c) => c.notNull())
    .addColumn('serial_number', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    /** The .p12 file as imported (it is encrypted with its own password). */
    .addColumn('p12', 'blob')
    /** The .p12 password, sealed with the data folder's secret key. */
    .addColumn('p12_password_sealed', 'text')
    /** A test certificate's private key (PKCS#8 PEM), sealed. */
    .addColumn('private_key_sealed', 'text')
    .addColumn('token_module', 'text')
    .addColumn('token_serial', 'text')
    .addColumn('token_label', 'text')
    /** CKA_ID of the certificate and its key, hex. */
    .addColumn('token_key_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('certificates_fingerprint_source', ['fingerprint', 'source'])
    .execute();
}
