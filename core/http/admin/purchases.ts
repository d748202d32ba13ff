/**
 * The Compras recibidas screen's side of the admin API (CONTRACT §14, §15): the purchases
 * (facturas received) recorded in a book and environment, with the withholdings Sello issued for
 * each, and recording one more as `POST /api/v1/purchases` does.
 *
 * - `GET /admin/api/fiscal/purchases?book=&environment=live|test&limit=&offset=`: newest first,
 *   `{data: [...], meta: {total, limit, offset}}`; each the API's purchase view plus `book` (slug),
 *   `environment` and `withholdings: [{id, numero, status, grand_total}]`. The query is read as
 *   the Comprobantes screen's (`book` a slug or id, all books when absent; `environment` `live`
 *   unless `test`).
 * - `POST /admin/api/fiscal/purchases {book, environment, access_key} | {book, environment, xml}`:
 *   `Purchases.record` for that book and environment; 201 `{data}` when recorded, 200 with the
 *   purchase already recorded, and the API's errors (422 `validation_failed` with `errors`, 422
 *   `book_not_configured`, 503 `sri_unavailable`), in the admin envelope.
 *
 * The admin session is no book key: the POST acts for the book it names, through a Family B
 * caller made here (see `adminBookCaller`).
 */
import { z } from 'zod';
import type { Book } from '../../auth/index.js';
import type { DocumentsTable, Store } from '../../db/index.js';
import type { BookCaller } from '../../documents/index.js';
import { issueMessages, SelloError } from '../../errors/index.js';
import { PURCHASE_COLUMNS, purchaseJson, type PurchaseJson, type PurchaseRow, type Purchases } from '../../fiscal/purchases/index.js';
import { purchaseBodySchema } from '../../fiscal/sri/index.js';
import type { AppContext, Route } from '../context.js';
import { MiB } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';
import { bookParam, environmentParam } from './book-param.js';
import { DEFAULT_LIMIT, integer, MAX_LIMIT, single } from './comprobantes.js';

export interface PurchasesAdminDeps {
  store: Store;
  purchases: Pick<Purchases, 'record'>;
}

/** The same limit as `POST /api/v1/purchases`: a received factura's XML is up to 2 MB of text, escaped in JSON. */
const PURCHASE_BODY_LIMIT = 5 * MiB;

/** A comprobante de retención Sello issued for a purchase. */
export interface PurchaseWithholding {
  id: string;
  numero: string;
  status: DocumentsTable['status'];
  grand_total: string;
}

export type PurchaseItem = PurchaseJson & { book: string; environment: 'test' | 'live'; withholdings: PurchaseWithholding[] };

/** Who the book and environment of a recording are: the rest of the body is the API's purchase body. */
const targetSchema = z.object({
  book: z.string({ error: 'es obligatorio: el identificador (slug) o el id del libro' }).trim().min(1, 'es obligatorio: el identificador (slug) o el id del libro'),
  environment: z.enum(['live', 'test'], { error: 'debe ser live o test' }),
});

/** A purchase row as listed: everything but its signed XML (up to 2 MB, which the view does not read), with the book's slug. */
type ListRow = PurchaseRow & { book: string };

/**
 * The Family B caller `Purchases.record` acts for. No admin route before this one acted for a
 * book as its key would (the issuer routes take the book and environment apart), so it is made
 * here from the book row: what `record` reads is `book.id` and `environment`; `scopes` is what
 * the API route requires (`accounting`), and `keyId` names the session, there being no key.
 * The book's `accounting_api` capability is not asked for: it opens the book's keys to the API,
 * and the office acts here through its own window, as on the Emisor screen.
 */
export function adminBookCaller(book: Book, environment: 'test' | 'live'): BookCaller {
  return { family: 'b', keyId: 'admin-session', environment, book, scopes: ['accounting'] };
}

export function purchaseAdminRoutes(deps: PurchasesAdminDeps): Route[] {
  const { store } = deps;
  const admin = { surface: 'admin', auth: 'admin', path: '/admin/api/fiscal/purchases' } as const;
  const withholdingsOf = withholdingReader(store);
  return [
    {
      ...admin,
      method: 'GET',
      handler(ctx) {
        const query = readListQuery(ctx, store);
        const rows = listPurchases(store, query);
        const byPurchase = withholdingsOf(rows.map((r) => r.id));
        ctx.body = {
          data: rows.map((row) => toItem(purchaseJson(row), row.book, row.environment, byPurchase.get(row.id) ?? [])),
          meta: { total: countPurchases(store, query), limit: query.limit, offset: query.offset },
        };
      },
    },
    {
      ...admin,
      method: 'POST',
      async handler(ctx) {
        const { raw } = await readFiscalBody(ctx, z.unknown(), PURCHASE_BODY_LIMIT);
        const { target, body } = readRecordBody(raw);
        const book = bookParam(store, target.book);
        const { created, purchase } = await deps.purchases.record(adminBookCaller(book, target.environment), body);
        ctx.status = created ? 201 : 200;
        ctx.body = { data: toItem(purchase, book.slug, target.environment, withholdingsOf([purchase.id]).get(purchase.id) ?? []) };
      },
    },
  ];
}

function toItem(purchase: PurchaseJson, book: string, environment: 'test' | 'live', withholdings: PurchaseWithholding[]): PurchaseItem {
  return { ...purchase, book, environment, withholdings };
}

/**
 * `{book, environment, …the API's body}`: the two checked here, the rest by the API's own schema
 * (so `access_key` and `xml` are refused with the API's messages); every problem in one 422.
 */
function readRecordBody(raw: unknown): { target: z.infer<typeof targetSchema>; body: z.infer<typeof purchaseBodySchema> } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SelloError('validation_failed', { fields: { body: ['debe ser un objeto {book, environment, access_key} o {book, environment, xml}'] } });
  }
  const { book, environment, ...rest } = raw as Record<string, unknown>;
  const target = targetSchema.safeParse({ book, environment });
  const body = purchaseBodySchema.safeParse(rest);
  if (!target.success || !body.success) {
    throw new SelloError('validation_failed', { fields: issueMessages([...(target.error?.issues ?? []), ...(body.error?.issues ?? [])]) });
  }
  return { target: target.data, body: body.data };
}

interface ListQuery {
  bookId: string | undefined;
  environment: 'test' | 'live';
  limit: number;
  offset: number;
}

function readListQuery(ctx: AppContext, store: Store): ListQuery {
  const book = single(ctx, 'book');
  // Checked before the book: a 400 for the query as written, then the 404 of a book that is not there.
  const query = {
    environment: environmentParam(single(ctx, 'environment')),
    limit: integer(ctx, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
    offset: integer(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
  return { ...query, bookId: book === undefined ? undefined : bookParam(store, book).id };
}

function where(query: ListQuery): { sql: string; params: string[] } {
  return query.bookId === undefined
    ? { sql: 'p.environment = ?', params: [query.environment] }
    : { sql: 'p.book_id = ? and p.environment = ?', params: [query.bookId, query.environment] };
}

/**
 * Newest first: the order of insertion, the table's rowid (as the Comprobantes list). The page's
 * rowids are chosen first from the index alone (book, environment); only then are those rows
 * read — each carries its facts, and its signed XML lies before its last columns.
 */
function listPurchases(store: Store, query: ListQuery): ListRow[] {
  const w = where(query);
  return store
    .statement<Array<string | number>, ListRow>(
      `select ${PURCHASE_COLUMNS.map((c) => `p.${c}`).join(', ')}, b.slug as book
         from purchases p
         join books b on b.id = p.book_id
        where p.rowid in (select p.rowid from purchases p where ${w.sql} order by p.rowid desc limit ? offset ?)
        order by p.rowid desc`,
    )
    .all(...w.params, query.limit, query.offset);
}

function countPurchases(store: Store, query: ListQuery): number {
  const w = where(query);
  return store.statement<string[], { n: number }>(`select count(*) as n from purchases p where ${w.sql}`).get(...w.params)?.n ?? 0;
}

/**
 * The withholdings issued for some purchases, oldest first, by purchase id: one query for a
 * page, through the jobs' `purchase_id` index (a JSON array of ids as its one parameter).
 */
function withholdingReader(store: Store): (purchaseIds: string[]) => Map<string, PurchaseWithholding[]> {
  const statement = store.statement<[string], PurchaseWithholding & { purchase_id: string }>(
    `select s.purchase_id, d.id, d.numero, d.status, d.grand_total
       from fiscal_submissions s
       join documents d on d.id = s.document_id
      where s.purchase_id in (select value from json_each(?))
      order by s.rowid`,
  );
  return (purchaseIds) => {
    const byPurchase = new Map<string, PurchaseWithholding[]>();
    if (purchaseIds.length === 0) return byPurchase;
    for (const { purchase_id, ...withholding } of statement.all(JSON.stringify(purchaseIds))) {
      const list = byPurchase.get(purchase_id) ?? [];
      list.push(withholding);
      byPurchase.set(purchase_id, list);
    }
    return byPurchase;
  };
}
