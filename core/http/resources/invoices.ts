/**
 * The routes of the comprobantes of CONTRACT §15 Sello issues to the SRI (fiscal style, Bearer,
 * scope `accounting`, the key's book and environment): for invoices, credit and debit notes,
 * purchase settlements and remission guides, issue, read, and the `autorizacion` XML. Everything
 * that decides is in core/fiscal/invoices; this file reads the body and writes the answer.
 */
import type { Invoices, IssueResult } from '../../fiscal/invoices/index.js';
import { comprobanteDefinition, creditNoteBodySchema, debitNoteBodySchema, invoiceBodySchema, purchaseSettlementBodySchema, remissionGuideBodySchema, type ComprobanteKind } from '../../fiscal/sri/index.js';
import type { AppContext, Route } from '../context.js';
import { bookCaller, readFiscalBody, sendJson } from '../fiscal-body.js';

const base = { surface: 'fiscal' as const, auth: 'family-b' as const, scope: 'accounting' as const };

function sendIssued(ctx: AppContext, { replayed, answer }: IssueResult): void {
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
  sendJson(ctx, answer.status, answer.body);
}

/** `GET {path}/:id/xml` of a comprobante kind. */
function xmlRoute(invoices: Invoices, kind: ComprobanteKind): Route {
  return {
    ...base,
    method: 'GET',
    path: `${comprobanteDefinition(kind).path}/:id/xml`,
    handler(ctx) {
      const xml = invoices.xml(bookCaller(ctx), ctx.state.params.id!, kind);
      ctx.type = 'application/xml; charset=utf-8';
      ctx.body = xml;
    },
  };
}

export function invoiceRoutes(invoices: Invoices): Route[] {
  return [
    {
      ...base,
      method: 'POST',
      path: '/api/v1/invoices',
      async handler(ctx) {
        const { input, raw } = await readFiscalBody(ctx, invoiceBodySchema);
        sendIssued(ctx, await invoices.issue(bookCaller(ctx), input, raw));
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
    xmlRoute(invoices, 'invoice'),
    {
      ...base,
      method: 'POST',
      path: '/api/v1/credit-notes',
      async handler(ctx) {
        const { input, raw } = await readFiscalBody(ctx, creditNoteBodySchema);
        sendIssued(ctx, await invoices.issueCreditNote(bookCaller(ctx), input, raw));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/credit-notes/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: invoices.getCreditNote(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    xmlRoute(invoices, 'credit_note'),
    {
      ...base,
      method: 'POST',
      path: '/api/v1/debit-notes',
      async handler(ctx) {
        const { input, raw } = await readFiscalBody(ctx, debitNoteBodySchema);
        sendIssued(ctx, await invoices.issueDebitNote(bookCaller(ctx), input, raw));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/debit-notes/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: invoices.getDebitNote(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    xmlRoute(invoices, 'debit_note'),
    {
      ...base,
      method: 'POST',
      path: '/api/v1/purchase-settlements',
      async handler(ctx) {
        const { input, raw } = await readFiscalBody(ctx, purchaseSettlementBodySchema);
        sendIssued(ctx, await invoices.issuePurchaseSettlement(bookCaller(ctx), input, raw));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/purchase-settlements/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: invoices.getPurchaseSettlement(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    xmlRoute(invoices, 'purchase_settlement'),
    {
      ...base,
      method: 'POST',
      path: '/api/v1/remission-guides',
      async handler(ctx) {
        const { input, raw } = await readFiscalBody(ctx, remissionGuideBodySchema);
        sendIssued(ctx, await invoices.issueRemissionGuide(bookCaller(ctx), input, raw));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/remission-guides/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: invoices.getRemissionGuide(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    xmlRoute(invoices, 'remission_guide'),
  ];
}
