/**
 * Webhook endpoints in the admin API (CONTRACT §9, §14, the Webhooks screen), per book:
 * list with the last delivery status, create (the secret is shown once), pause/resume,
 * rotate the secret (shown once), delete. The UI never holds a Family B key: it acts on
 * the book through these routes, on the same store as the JSON:API resource.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import type { Store } from '../../db/index.js';
import { SelloError, fieldMessages } from '../../errors/index.js';
import { endpointProblems, type EndpointOwner, type EndpointSummary, type WebhookEndpoints } from '../../webhooks/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';
import { bookParam, environmentParam } from './book-param.js';

const createSchema = z.strictObject({
  environment: z.enum(['live', 'test'], { error: 'Elija live o test.' }).optional(),
  url: z.string({ error: 'Obligatorio.' }).trim().min(1, 'Obligatorio.'),
  secret: z.string().optional(),
  events: z.array(z.string()).optional(),
});

export function toEndpointJson(e: EndpointSummary) {
  return {
    id: e.id,
    book_id: e.bookId,
    environment: e.environment,
    url: e.url,
    active: e.active,
    events: e.events,
    last_delivered_at: e.lastDeliveredAt,
    last_status: e.lastStatus,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

/** A secret Sello makes when the user gives none: 256 bits, shown once. */
function newSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64url')}`;
}

export function webhookEndpointAdminRoutes(store: Store, endpoints: WebhookEndpoints): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  const find = (id: string | undefined): { endpoint: EndpointSummary; owner: EndpointOwner } => {
    const endpoint = id ? endpoints.list({ id })[0] : undefined;
    if (!endpoint) throw new SelloError('not_found', { detail: `No existe el destino de webhooks ${id ?? ''}.`, detailEn: `No webhook endpoint ${id ?? ''}.` });
    return { endpoint, owner: { book: { id: endpoint.bookId }, environment: endpoint.environment } };
  };
  const setActive = (active: boolean): Route['handler'] => (ctx) => {
    const { owner, endpoint } = find(ctx.state.params.id);
    endpoints.update(owner, endpoint.id, { active });
    ctx.body = { data: toEndpointJson(find(endpoint.id).endpoint) };
  };
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/books/:book/webhook-endpoints',
      handler(ctx) {
        const book = bookParam(store, ctx.state.params.book);
        ctx.body = { data: endpoints.list({ bookId: book.id, environment: environmentParam(ctx.query.environment) }).map(toEndpointJson) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/books/:book/webhook-endpoints',
      async handler(ctx) {
        const book = bookParam(store, ctx.state.params.book);
        const { input } = await readFiscalBody(ctx, createSchema, 16 * 1024);
        const secret = input.secret?.trim() ? input.secret : newSecret();
        const problems = endpointProblems({ url: input.url, secret, events: input.events });
        if (problems.length > 0) {
          const fields = fieldMessages();
          for (const p of problems) (fields[p.path.replace(/\/(\d+)$/, '[$1]')] ??= []).push(p.detail);
          throw new SelloError('validation_failed', { fields });
        }
        const owner = { book: { id: book.id }, environment: input.environment ?? 'live' } as const;
        const id = endpoints.create(owner, { url: input.url, secret, events: input.events ?? [] });
        ctx.status = 201;
        // The secret appears here once; afterwards only its sealed copy exists.
        ctx.body = { data: { ...toEndpointJson(find(id).endpoint), secret } };
      },
    },
    { ...admin, method: 'POST', path: '/admin/api/webhook-endpoints/:id/pause', handler: setActive(false) },
    { ...admin, method: 'POST', path: '/admin/api/webhook-endpoints/:id/resume', handler: setActive(true) },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/webhook-endpoints/:id/rotate-secret',
      handler(ctx) {
        const { owner, endpoint } = find(ctx.state.params.id);
        const secret = newSecret();
        endpoints.update(owner, endpoint.id, { secret });
        ctx.body = { data: { ...toEndpointJson(find(endpoint.id).endpoint), secret } };
      },
    },
    {
      ...admin,
      method: 'DELETE',
      path: '/admin/api/webhook-endpoints/:id',
      handler(ctx) {
        const { owner, endpoint } = find(ctx.state.params.id);
        endpoints.remove(owner, endpoint.id);
        ctx.status = 204;
      },
    },
  ];
}
