import { sql } from 'kysely';
import { z } from 'zod';
import type { Caller } from '../../auth/index.js';
import { SelloError } from '../../errors/index.js';
import { endpointProblems, webhookEvents, type WebhookEndpoints } from '../../webhooks/index.js';
import { defineResource } from '../jsonapi/resource.js';

const createSchema = z
  .strictObject({
    url: z.string().meta({ description: 'HTTPS destination.', format: 'uri' }),
    secret: z.string().meta({ description: 'HMAC-SHA256 key of the deliveries (at least 8 characters). Write-only.', writeOnly: true }),
    active: z.boolean().optional().meta({ description: '`false` pauses deliveries. Default `true`.' }),
    events: z
      .array(z.string())
      .optional()
      .meta({ description: `Subscribed events among ${webhookEvents.join(', ')}; empty or absent = all.` }),
  });

const updateSchema = createSchema.partial();

function familyB(caller: Caller): Extract<Caller, { family: 'b' }> {
  if (caller.family !== 'b') throw new SelloError('unauthorized');
  return caller;
}

/** The spec's `webhook_endpoint` resource, with the contract's PATCH (CONTRACT §9). */
export function webhookEndpointResource(endpoints: WebhookEndpoints) {
  return defineResource<z.infer<typeof createSchema>, z.infer<typeof updateSchema>>({
    type: 'webhook_endpoint',
    path: '/api/v1/webhook-endpoints',
    description: 'Destinations of the document webhooks of the calling key’s book.',
    scope: 'accounting',
    attributes: {
      active: { schema: z.boolean(), column: 'w.active', filter: 'boolean', sortable: true },
      events: { schema: z.array(z.enum(webhookEvents)) },
      tenant_slug: { schema: z.string(), column: 'b.tenant_slug', filter: 'string', sortable: true },
      url: { schema: z.string(), column: 'w.url', filter: 'string', sortable: true },
      book_id: { schema: z.uuid(), column: 'w.book_id', filter: 'uuid', sortable: true },
      last_delivered_at: { schema: z.iso.datetime().nullable(), column: 'w.last_delivered_at', filter: 'datetime', sortable: true },
      last_status: { schema: z.string().nullable(), column: 'w.last_status', filter: 'string', sortable: true },
    },
    from: sql`webhook_endpoints as w inner join books as b on b.id = w.book_id`,
    idColumn: 'w.id',
    idFilter: 'uuid',
    select: sql`w.id, w.active, w.events, b.tenant_slug, w.url, w.book_id, w.last_delivered_at, w.last_status`,
    visibleTo(caller) {
      const b = familyB(caller);
      return sql`w.book_id = ${b.book.id} and w.environment = ${b.environment} and w.deleted_at is null`;
    },
    toAttributes(row) {
      return {
        active: row.active === 1,
        events: JSON.parse(String(row.events)) as string[],
        tenant_slug: row.tenant_slug,
        url: row.url,
        book_id: row.book_id,
        last_delivered_at: row.last_delivered_at ?? null,
        last_status: row.last_status ?? null,
      };
    },
    create: {
      schema: createSchema,
      validate: endpointProblems,
      run: (caller, input) => endpoints.create(familyB(caller), input),
    },
    update: {
      schema: updateSchema,
      validate: endpointProblems,
      run: (caller, id, input) => endpoints.update(familyB(caller), id, input),
    },
    remove: (caller, id) => endpoints.remove(familyB(caller), id),
  });
}
