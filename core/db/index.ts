/**
 * The store: one SQLite file in the data folder, opened by `openStore(file)`.
 *
 * @example
 *   const store = await openStore(path.join(dataDir, 'sello.db'));
 *   const book = store.first(store.db.selectFrom('books').selectAll().where('slug', '=', 'acme'));
 *   // select * from "books" where "slug" = ?
 */
export { openStore, isStorageFault, type Store, type Compilable } from './store.js';
export type * from './schema.js';
