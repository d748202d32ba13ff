/**
 * The invoice routes of CONTRACT §15 (fiscal style, Bearer, scope `accounting`, the key's book
 * and environment): issue, read, and the `autorizacion` XML. Everything that decides is in
 * core/fiscal/invoices; this file reads the body and writes the answer.
 */
import type { Invoices } from '../../fiscal/invoices/index.js';
import { invoiceBodySchema } from '../../fiscal/sri/index.js';
import type { Route } from '../context.js';
import { bookCaller, readFiscalBody, sendJson } from '../fiscal-body.js';



export function invoiceRoutes(invoices: Invoices): Route[] {
  const base = { surface: 'fiscal' as const, auth: 'family-b' as const, scope: 'accounting' as const };
  return [
    {
      ...base,
      method: 'POST',
      path: '/api/v1/invoices',
      async handler(ctx) {
        const caller = bookCaller(ctx);
        const { input, raw } = await readFiscalBody(ctx, invoiceBodySchema);
        const { replayed, answer } = await invoices.issue(caller, input, raw);
        for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
        if (replayed) ctx.set('Idempotent-Replayed', 'true');
        sendJson(ctx, answer.status, answer.body);
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/invoices/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: invoices.get(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/invoices/:id/xml',
      handler(ctx) {
        const xml = invoices.xml(bookCaller(ctx), ctx.state.params.id!);
        ctx.type = 'application/xml; charset=utf-8';
        ctx.body = xml;
      },
    },
  ];
}
