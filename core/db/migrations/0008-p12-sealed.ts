import type { Kysely } from 'kysely';

// The imported .p12 sealed at rest like the other secrets (issue 15): a backup of the store
// alone must not allow an offline attack on the file's password. `p12_sealed` holds the file
// sealed with the data folder's key; `p12` (the file as imported) is emptied. Sealing needs that
// key, which migrations do not have: rows still in clear are sealed when the data folder is
// opened (core/certificates/p12-at-rest.ts). Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('certificates').addColumn('p12_sealed', 'text').execute();
}
