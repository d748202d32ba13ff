import { sql, type Kysely } from 'kysely';

// Received purchases (CONTRACT §15, issue 18): a factura another taxpayer issued to a book's
// issuer, recorded once its authorized XML verified — what a comprobante de retención is built
// from. One purchase per book, environment and access key. A withholding's job records the
// purchase it withholds (`purchase_id`), so that "this tax and code already withheld" reads an
// index instead of every withholding's JSON. Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('purchases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('book_id', 'text', (c) => c.notNull().references('books.id'))
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    .addColumn('access_key', 'text', (c) => c.notNull())
    // How Sello got it: `sri` (asked the authorization service by key) or `xml` (a file given to it).
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('sri', 'xml')`))
    .addColumn('numero', 'text', (c) => c.notNull())
    .addColumn('issue_date', 'text', (c) => c.notNull())
    .addColumn('supplier_ruc', 'text', (c) => c.notNull())
    .addColumn('supplier_name', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('subtotal', 'text', (c) => c.notNull())
    .addColumn('grand_total', 'text', (c) => c.notNull())
    // The whole reading (ReceivedPurchase) as JSON: taxes, payments, buyer…
    .addColumn('facts', 'text', (c) => c.notNull())
    // The signed comprobante, exactly as it verified.
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('signer_name', 'text')
    .addColumn('authorization_number', 'text')
    .addColumn('authorization_date', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('purchases_access_key', ['book_id', 'environment', 'access_key'])
    .execute();
  await db.schema.createIndex('purchases_by_date').on('purchases').columns(['book_id', 'environment', 'issue_date']).execute();
  await db.schema.alterTable('fiscal_submissions').addColumn('purchase_id', 'text').execute();
  await db.schema
    .createIndex('fiscal_submissions_purchase')
    .on('fiscal_submissions')
    .column('purchase_id')
    .where(sql.ref('purchase_id'), 'is not', null)
    .execute();
}
