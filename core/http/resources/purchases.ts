/**
 * Received purchases and their withholdings (CONTRACT §15), Bearer with scope `accounting`, the
 * key's book and environment:
 * - `POST /api/v1/purchases` `{access_key}` or `{xml}` (fiscal envelope): 201 `{data: purchase}`
 *   when recorded, 200 with the same purchase when the book already had it;
 * - `GET /api/v1/purchases` and `GET /api/v1/purchases/:id`: the JSON:API resource `purchase`,
 *   with the filters, sorting and paging of §7;
 * - `POST /api/v1/purchases/:id/withhold`: the comprobante de retención 2.0.0 (fiscal envelope,
 *   201 `{data: document}`; 422 `withholding_failed` with the reasons);
 * - `GET /api/v1/withholdings/:id` and `…/:id/xml`, as every issued comprobante.
 * Everything that decides is in core/fiscal/purchases and core/fiscal/invoices/withholding.ts.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { Caller } from '../../auth/index.js';
import { SelloError } from '../../errors/index.js';
import type { Invoices, IssueResult } from '../../fiscal/invoices/index.js';
import { PURCHASE_COLUMNS, purchaseJson, type PurchaseRow, type Purchases } from '../../fiscal/purchases/index.js';
import { comprobanteDefinition, purchaseBodySchema, withholdingBodySchema } from '../../fiscal/sri/index.js';
import type { AppContext, Route } from '../context.js';
import { bookCaller, readFiscalBody, sendJson } from '../fiscal-body.js';
import { defineResource } from '../jsonapi/resource.js';

const base = { surface: 'fiscal' as const, auth: 'family-b' as const, scope: 'accounting' as const };

/** A received factura's XML is larger than any other fiscal body: up to 2 MB of text, escaped in JSON. */
const PURCHASE_BODY_LIMIT = 5 * 1024 * 1024;

function sendIssued(ctx: AppContext, { replayed, answer }: IssueResult): void {
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
  sendJson(ctx, answer.status, answer.body);
}

export function purchaseRoutes(purchases: Purchases, invoices: Invoices): Route[] {
  return [
    {
      ...base,
      method: 'POST',
      path: '/api/v1/purchases',
      async handler(ctx) {
        const { input } = await readFiscalBody(ctx, purchaseBodySchema, PURCHASE_BODY_LIMIT);
        const { created, purchase } = await purchases.record(bookCaller(ctx), input);
        ctx.set('Location', `/api/v1/purchases/${purchase.id}`);
        sendJson(ctx, created ? 201 : 200, JSON.stringify({ data: purchase }));
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/api/v1/purchases/:id/withhold',
      async handler(ctx) {
        const { input, raw } = await readFiscalBody(ctx, withholdingBodySchema);
        sendIssued(ctx, await invoices.issueWithholding(bookCaller(ctx), ctx.state.params.id!, input, raw));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/withholdings/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: invoices.getWithholding(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    {
      ...base,
      method: 'GET',
      path: `${comprobanteDefinition('withholding').path}/:id/xml`,
      handler(ctx) {
        ctx.type = 'application/xml; charset=utf-8';
        ctx.body = invoices.xml(bookCaller(ctx), ctx.state.params.id!, 'withholding');
      },
    },
  ];
}

const money = z.string().meta({ description: 'Decimal amount as text, two decimals.' });
const tax = z.object({ code: z.string(), rate_code: z.string(), rate: z.string(), base: money, amount: money });

function familyB(caller: Caller): Extract<Caller, { family: 'b' }> {
  if (caller.family !== 'b') throw new SelloError('unauthorized');
  return caller;
}

/** The JSON:API `purchase` resource: read-only (purchases are recorded with `POST /api/v1/purchases`). */
export function purchaseResource() {
  return defineResource({
    type: 'purchase',
    path: '/api/v1/purchases',
    description: 'Purchases (facturas received) recorded in the calling key’s book, each checked against the SRI’s authorized XML.',
    scope: 'accounting',
    attributes: {
      access_key: { schema: z.string(), column: 'p.access_key', filter: 'string', sortable: true },
      source: { schema: z.enum(['sri', 'xml']), column: 'p.source', filter: 'string', sortable: true },
      doc_type: { schema: z.literal('invoice') },
      numero: { schema: z.string(), column: 'p.numero', filter: 'string', sortable: true },
      issue_date: { schema: z.string().meta({ description: 'YYYY-MM-DD.' }), column: 'p.issue_date', filter: 'string', sortable: true },
      supplier: { schema: z.object({ ruc: z.string(), name: z.string(), trade_name: z.string().nullable(), address: z.string() }) },
      supplier_ruc: { schema: z.string(), column: 'p.supplier_ruc', filter: 'string', sortable: true },
      buyer: { schema: z.object({ tax_id: z.string(), tax_id_type_code: z.string(), name: z.string() }) },
      currency: { schema: z.string(), column: 'p.currency', filter: 'string', sortable: true },
      subtotal: { schema: money },
      total_discount: { schema: money },
      taxes: { schema: z.array(tax) },
      grand_total: { schema: money },
      payments: { schema: z.array(z.object({ method: z.string(), amount: money })) },
      authorization: { schema: z.object({ number: z.string(), date: z.string().nullable() }).nullable() },
      signer_name: { schema: z.string().nullable() },
      created_at: { schema: z.iso.datetime(), column: 'p.created_at', filter: 'datetime', sortable: true },
    },
    from: sql`purchases as p`,
    idColumn: 'p.id',
    idFilter: 'uuid',
    // Not p.*: a page of 25 would read 25 signed XMLs of up to 2 MB that no attribute shows.
    select: sql.raw(PURCHASE_COLUMNS.map((c) => `p.${c}`).join(', ')),
    visibleTo(caller) {
      const b = familyB(caller);
      return sql`p.book_id = ${b.book.id} and p.environment = ${b.environment}`;
    },
    toAttributes(row) {
      const { id: _id, ...attributes } = purchaseJson(row as unknown as PurchaseRow);
      return { ...attributes, supplier_ruc: row.supplier_ruc };
    },
  });
}
