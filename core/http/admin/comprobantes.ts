/**
 * The Comprobantes screen's side of the admin API (CONTRACT §14, §15): what Sello issued to the
 * SRI — invoices, notes, purchase settlements, remission guides, and any kind added later — per
 * book and environment, with their RIDE and their `autorizacion` XML.
 *
 * - `GET /admin/api/fiscal/comprobantes?book=&environment=live|test&status=&limit=&offset=`:
 *   newest first, `{data: [...], meta: {total, limit, offset}}`. `book` is a slug or id (all books
 *   when absent), `environment` `live` unless `test`, `status` one of the §6 document statuses.
 * - `GET /admin/api/fiscal/comprobantes/:id/ride`: the RIDE (PDF), rendered by the Invoices
 *   service as for Family A's `/d/{id}`.
 * - `GET /admin/api/fiscal/comprobantes/:id/xml`: the SRI's `autorizacion`; 404 `not_ready` before.
 *
 * The admin session is no book key: the book and environment of a comprobante are its row's.
 * A kind is read as a string (the kinds grow); the party's name is looked for in the shapes the
 * computed documents have, and is null for one this code does not know.
 */
import type { DocumentsTable, FiscalSubmissionsTable, Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import type { Invoices } from '../../fiscal/invoices/index.js';
import type { AppContext, Route } from '../context.js';
import { bookParam, environmentParam } from './book-param.js';

type DocumentStatus = DocumentsTable['status'];

export interface ComprobantesAdminDeps {
  store: Store;
  /** The Invoices service's RIDE (core/fiscal/invoices): rendered on its thread, cached. */
  rides: Pick<Invoices, 'ride'>;
}

const STATUSES = ['pending', 'signed', 'sent', 'authorized', 'rejected', 'failed'] as const satisfies readonly DocumentStatus[];
/** A list page of the admin API's fiscal screens: 50 rows unless `limit` (1–200) says otherwise. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** Who the comprobante is about, as its RIDE names them. */
export interface ComprobanteParty {
  /** `customer` (invoices, notes), `supplier` (purchase settlements), `subject` (withholdings), `recipient` or `carrier` (guides). */
  role: string;
  name: string;
  tax_id: string | null;
}

export interface ComprobanteItem {
  id: string;
  /** The submission's kind (`invoice`, `credit_note`…): a string, the list grows. */
  kind: string;
  doc_type: string;
  numero: string;
  access_key: string | null;
  issue_date: string;
  book: string;
  environment: 'test' | 'live';
  party: ComprobanteParty | null;
  currency: string;
  grand_total: string;
  status: DocumentStatus;
  authorization: { number: string; date: string | null } | null;
  failure_reason: string | null;
  sri: { state: string; attempts: number; next_attempt_at: string | null; unreachable_since: string | null; last_error: string | null };
  created_at: string;
  updated_at: string;
}

type ListRow = Pick<
  DocumentsTable,
  'id' | 'doc_type' | 'numero' | 'access_key' | 'issue_date' | 'environment' | 'currency' | 'grand_total' | 'status' | 'authorization_number' | 'authorization_date' | 'failure_reason' | 'created_at' | 'updated_at'
> &
  Pick<FiscalSubmissionsTable, 'kind' | 'computed' | 'attempts' | 'due_at' | 'unreachable_since' | 'last_error'> & { book: string; sri_state: string };

/** One comprobante Sello issued: what the downloads need. */
interface IssuedRow {
  id: string;
  doc_type: string;
  numero: string;
  environment: 'test' | 'live';
  xml: string | null;
}

export function comprobanteAdminRoutes(deps: ComprobantesAdminDeps): Route[] {
  const { store } = deps;
  const admin = { surface: 'admin', auth: 'admin' } as const;
  const issued = store.statement<[string], IssuedRow>(
    `select d.id, d.doc_type, d.numero, d.environment, d.xml
       from fiscal_submissions s join documents d on d.id = s.document_id
      where s.document_id = ?`,
  );
  const find = (ctx: AppContext): IssuedRow => {
    const id = ctx.state.params.id ?? '';
    const row = issued.get(id);
    if (!row) {
      throw new SelloError('not_found', {
        detail: `El documento ${id} no es un comprobante emitido por Sello.`,
        detailEn: `Document ${id} is not a comprobante issued by Sello.`,
      });
    }
    return row;
  };
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/fiscal/comprobantes',
      handler(ctx) {
        const query = readListQuery(ctx, store);
        ctx.body = { data: listComprobantes(store, query), meta: { total: countComprobantes(store, query), limit: query.limit, offset: query.offset } };
      },
    },
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/fiscal/comprobantes/:id/ride',
      async handler(ctx) {
        const row = find(ctx);
        const pdf = await deps.rides.ride(row.environment, row.id);
        if (!pdf) {
          throw new SelloError('not_found', {
            detail: `Sello no sabe imprimir el RIDE del comprobante ${row.id} (${row.doc_type}).`,
            detailEn: `Sello cannot print the RIDE of comprobante ${row.id} (${row.doc_type}).`,
          });
        }
        ctx.type = 'application/pdf';
        ctx.set('Content-Disposition', `attachment; filename="${fileName(row, 'pdf')}"`);
        ctx.body = pdf;
      },
    },
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/fiscal/comprobantes/:id/xml',
      handler(ctx) {
        const row = find(ctx);
        if (row.xml === null) {
          throw new SelloError('not_ready', {
            detail: `El comprobante ${row.numero} todavía no está autorizado por el SRI: su XML de autorización llega con la autorización.`,
            detailEn: `Comprobante ${row.numero} is not authorized by the SRI yet: its authorization XML comes with the authorization.`,
          });
        }
        ctx.type = 'application/xml; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${fileName(row, 'xml')}"`);
        ctx.body = row.xml;
      },
    },
  ];
}

/** `invoice-001-001-000000123.pdf`: nothing but letters, digits, `.`, `_` and `-` in a header. */
function fileName(row: Pick<IssuedRow, 'doc_type' | 'numero'>, extension: 'pdf' | 'xml'): string {
  return `${row.doc_type}-${row.numero}`.replace(/[^\w.-]+/g, '_') + `.${extension}`;
}

interface ListQuery {
  bookId: string | undefined;
  environment: 'test' | 'live';
  status: DocumentStatus | undefined;
  limit: number;
  offset: number;
}

function invalid(name: string, es: string, en: string): SelloError {
  return new SelloError('invalid_query', { detail: `"${name}" ${es}`, detailEn: `"${name}" ${en}`, fields: { [name]: [es.charAt(0).toUpperCase() + es.slice(1)] } });
}

/** A single text value of the query, or undefined; a repeated parameter is a 400. */
export function single(ctx: AppContext, name: string): string | undefined {
  const raw = ctx.query[name];
  if (Array.isArray(raw)) throw invalid(name, 'se indica una sola vez.', 'must be given once.');
  return raw === undefined || raw === '' ? undefined : raw;
}

/** An integer query parameter between `min` and `max`, `fallback` when absent; anything else is a 400 naming it. */
export function integer(ctx: AppContext, name: string, fallback: number, min: number, max: number): number {
  const raw = single(ctx, name);
  if (raw === undefined) return fallback;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) throw invalid(name, `debe ser un número entero entre ${min} y ${max}.`, `must be an integer between ${min} and ${max}.`);
  return value;
}

function readListQuery(ctx: AppContext, store: Store): ListQuery {
  const book = single(ctx, 'book');
  const status = single(ctx, 'status');
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw invalid('status', `debe ser uno de ${STATUSES.join(', ')}.`, `must be one of ${STATUSES.join(', ')}.`);
  }
  // Checked before the book: a 400 for the query as written, then the 404 of a book that is not there.
  const query = {
    environment: environmentParam(single(ctx, 'environment')),
    status: status as DocumentStatus | undefined,
    limit: integer(ctx, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
    offset: integer(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
  return { ...query, bookId: book === undefined ? undefined : bookParam(store, book).id };
}

function where(query: ListQuery): { sql: string; params: Array<string> } {
  const clauses = ['s.environment = ?'];
  const params: string[] = [query.environment];
  if (query.bookId !== undefined) {
    clauses.push('s.book_id = ?');
    params.push(query.bookId);
  }
  if (query.status !== undefined) {
    clauses.push('d.status = ?');
    params.push(query.status);
  }
  return { sql: clauses.join(' and '), params };
}

/**
 * Newest first is the order of insertion: the submission's rowid, which the table's b-tree is
 * ordered by. Sorting on `created_at` would read every row to its end, past the computed JSON
 * and the signed XML (overflow pages); walking the rowids backwards stops after the page, and
 * the filters read only the first columns.
 */
function listComprobantes(store: Store, query: ListQuery): ComprobanteItem[] {
  const w = where(query);
  const rows = store
    .statement<Array<string | number>, ListRow>(
      `select d.id, s.kind, d.doc_type, d.numero, d.access_key, d.issue_date, d.environment, b.slug as book, d.currency, d.grand_total,
              d.status, d.authorization_number, d.authorization_date, d.failure_reason, d.created_at, d.updated_at,
              s.computed, s.state as sri_state, s.attempts, s.due_at, s.unreachable_since, s.last_error
         from fiscal_submissions s
         join documents d on d.id = s.document_id
         join books b on b.id = s.book_id
        where ${w.sql}
        order by s.rowid desc
        limit ? offset ?`,
    )
    .all(...w.params, query.limit, query.offset);
  return rows.map(toItem);
}

function countComprobantes(store: Store, query: ListQuery): number {
  const w = where(query);
  const join = query.status !== undefined ? 'join documents d on d.id = s.document_id' : '';
  return store.statement<string[], { n: number }>(`select count(*) as n from fiscal_submissions s ${join} where ${w.sql}`).get(...w.params)?.n ?? 0;
}

function toItem(row: ListRow): ComprobanteItem {
  return {
    id: row.id,
    kind: row.kind,
    doc_type: row.doc_type,
    numero: row.numero,
    access_key: row.access_key,
    issue_date: row.issue_date,
    book: row.book,
    environment: row.environment,
    party: partyOf(row.computed),
    currency: row.currency,
    grand_total: row.grand_total,
    status: row.status,
    authorization: row.authorization_number ? { number: row.authorization_number, date: row.authorization_date } : null,
    failure_reason: row.failure_reason,
    sri: {
      state: row.sri_state,
      attempts: row.attempts,
      next_attempt_at: row.due_at !== null ? new Date(row.due_at).toISOString() : null,
      unreachable_since: row.unreachable_since,
      last_error: row.last_error || null,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Where each kind keeps its party, in the order looked for: the first with a name wins. */
const PARTY_PLACES: ReadonlyArray<{ role: string; at: (doc: Record<string, unknown>) => unknown }> = [
  { role: 'customer', at: (doc) => doc.customer },
  { role: 'supplier', at: (doc) => doc.supplier },
  { role: 'subject', at: (doc) => doc.subject },
  { role: 'recipient', at: (doc) => (Array.isArray(doc.recipients) ? (doc.recipients as unknown[])[0] : undefined) },
  { role: 'carrier', at: (doc) => doc.carrier },
];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The party of a stored computed document (JSON), or null when none is found. */
export function partyOf(computed: string): ComprobanteParty | null {
  let doc: unknown;
  try {
    doc = JSON.parse(computed);
  } catch {
    return null;
  }
  if (!isRecord(doc)) return null;
  for (const place of PARTY_PLACES) {
    const party = place.at(doc);
    if (isRecord(party) && typeof party.name === 'string' && party.name !== '') {
      return { role: place.role, name: party.name, tax_id: typeof party.taxId === 'string' ? party.taxId : null };
    }
  }
  return null;
}
