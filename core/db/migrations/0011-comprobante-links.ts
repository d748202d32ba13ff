import { sql, type Kysely } from 'kysely';

// The comprobantes that refer to an invoice (CONTRACT §15, issue 18): a credit or debit note
// names the invoice it modifies, found by its Sello id or by its number. Each note's job records
// the invoice's id (`modifies_document_id`), so that what is left of an invoice sums its notes
// through an index instead of reading every note's JSON; and a document is found by its number
// through an index instead of a scan of the book. Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fiscal_submissions').addColumn('modifies_document_id', 'text').execute();
  await sql`update fiscal_submissions set modifies_document_id = json_extract(computed, '$.modified.documentId')
    where kind in ('credit_note', 'debit_note')`.execute(db);
  await db.schema
    .createIndex('fiscal_submissions_modifies')
    .on('fiscal_submissions')
    .columns(['modifies_document_id', 'kind'])
    .where(sql.ref('modifies_document_id'), 'is not', null)
    .execute();
  await db.schema.createIndex('documents_by_numero').on('documents').columns(['book_id', 'environment', 'doc_type', 'numero']).execute();
}
