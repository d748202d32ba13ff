import { sql, type Kysely } from 'kysely';

// Watched folders (CONTRACT §13): each folder's profile, and the ledger that makes every
// file signed at most once (UNIQUE folder + content hash). Frozen in time: Kysely<any>.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('watched_folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** Absolute path of the watched folder. */
    .addColumn('path', 'text', (c) => c.notNull().unique())
    .addColumn('certificate_id', 'text', (c) => c.notNull())
    /** The certificate's environment, fixed when the folder is added (CONTRACT §3). */
    .addColumn('environment', 'text', (c) => c.notNull().check(sql`environment in ('test', 'live')`))
    /** A page number (`'1'`, `'2'`…) or `'last'`. */
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('x', 'real', (c) => c.notNull())
    .addColumn('y', 'real', (c) => c.notNull())
    .addColumn('size', 'text', (c) => c.notNull().check(sql`size in ('s', 'm', 'l')`))
    .addColumn('output_dir', 'text', (c) => c.notNull())
    .addColumn('error_dir', 'text', (c) => c.notNull())
    .addColumn('originals_dir', 'text', (c) => c.notNull())
    /** 1: stat polling instead of OS events (network shares). */
    .addColumn('poll', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('watch_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('folder_id', 'text', (c) => c.notNull().references('watched_folders.id').onDelete('cascade'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    /** The file's current name inside the folder (a rename while queued updates it). */
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('queued', 'waiting_pin', 'signing', 'done', 'failed')`))
    .addColumn('request_id', 'text')
    /** Chosen before the signed copy is written, so a retry after a crash rewrites the same name. */
    .addColumn('output_name', 'text')
    .addColumn('moved_name', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('watch_ledger_content', ['folder_id', 'sha256'])
    .execute();
  await db.schema.createIndex('watch_ledger_state').on('watch_ledger').columns(['state']).execute();
}
