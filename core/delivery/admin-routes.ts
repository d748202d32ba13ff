import { SelloError } from '../errors/index.js';
import type { Store } from '../db/index.js';
import type { AppContext, Route } from '../http/context.js';
import type { DeliveryEngine } from './engine.js';
import type { DeliveryState } from './schedule.js';
import {
  attemptsOf,
  endpointExists,
  getDelivery,
  listDeliveries,
  resendFailed,
  type AttemptRow,
  type DeliveryRow,
} from './store.js';

const states: readonly DeliveryState[] = ['pending', 'sending', 'delivered', 'failed', 'cancelled'];
const MAX_LIMIT = 250;

/** A delivery as the admin API shows it: no body, no secret, no lease token. */
export function toDeliveryJson(row: DeliveryRow, attempts: readonly AttemptRow[]) {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    document_id: row.document_id,
    event: row.event_type,
    webhook_id: row.message_id,
    attempt_count: row.attempts,
    max_attempts: row.max_attempts,
    next_attempt_at: row.state === 'pending' ? new Date(row.due_at).toISOString() : null,
    last_attempt_at: row.last_attempt_at,
    last_status: row.last_status,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    attempts: attempts.map((a) => ({
      number: a.number,
      attempted_at: a.attempted_at,
      url: a.url,
      status: a.status,
      duration_ms: a.duration_ms,
      response_body: a.response_body,
      error: a.error,
    })),
  };
}

function page(ctx: AppContext): { limit: number; offset: number } {
  const read = (name: string, fallback: number, max: number) => {
    const raw = ctx.query[name];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value > max) {
      throw new SelloError('invalid_query', {
        detail: `"${name}" debe ser un entero entre 0 y ${max}.`,
        detailEn: `"${name}" must be an integer between 0 and ${max}.`,
      });
    }
    return value;
  };
  return { limit: Math.max(1, read('limit', 50, MAX_LIMIT)), offset: read('offset', 0, Number.MAX_SAFE_INTEGER) };
}

function stateFilter(ctx: AppContext): DeliveryState | undefined {
  const raw = ctx.query.state;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !(states as readonly string[]).includes(raw)) {
    throw new SelloError('invalid_query', {
      detail: `"state" debe ser uno de ${states.join(', ')}.`,
      detailEn: `"state" must be one of ${states.join(', ')}.`,
    });
  }
  return raw as DeliveryState;
}

function withAttempts(store: Store, rows: DeliveryRow[]) {
  const attempts = attemptsOf(store, rows.map((r) => r.id));
  return rows.map((r) => toDeliveryJson(r, attempts.get(r.id) ?? []));
}

function deliveryNotFound(id: string): SelloError {
  return new SelloError('not_found', { detail: `No existe la entrega ${id}.`, detailEn: `No delivery ${id}.` });
}

function endpointNotFound(id: string): SelloError {
  return new SelloError('not_found', { detail: `No existe el destino de webhooks ${id}.`, detailEn: `No webhook endpoint ${id}.` });
}

/**
 * The admin API of deliveries (CONTRACT §9, §14): lists with their attempts, one
 * delivery, and re-sends of failed ones. Bodies are `{data: …}`; errors use the admin
 * envelope. Deleted endpoints keep their history here.
 */
export function deliveryAdminRoutes(store: Store, engine: DeliveryEngine): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/webhook-endpoints/:id/deliveries',
      handler(ctx) {
        const id = ctx.state.params.id ?? '';
        if (!endpointExists(store, id)) throw endpointNotFound(id);
        const rows = listDeliveries(store, { endpointId: id, ...optional(stateFilter(ctx)) }, page(ctx));
        ctx.body = { data: withAttempts(store, rows) };
      },
    },
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/deliveries',
      handler(ctx) {
        const rows = listDeliveries(store, optional(stateFilter(ctx)), page(ctx));
        ctx.body = { data: withAttempts(store, rows) };
      },
    },
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/deliveries/:id',
      handler(ctx) {
        const id = ctx.state.params.id ?? '';
        const row = getDelivery(store, id);
        if (!row) throw deliveryNotFound(id);
        ctx.body = { data: withAttempts(store, [row])[0] };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/deliveries/:id/resend',
      handler(ctx) {
        const id = ctx.state.params.id ?? '';
        const row = getDelivery(store, id);
        if (!row) throw deliveryNotFound(id);
        if (resendFailed(store, { id }, Date.now()).length !== 1) {
          throw new SelloError('delivery_not_resendable', {
            detail: `La entrega ${id} está en estado "${row.state}"; solo se reenvían las fallidas de destinos existentes.`,
            detailEn: `Delivery ${id} is "${row.state}"; only failed deliveries of existing endpoints can be sent again.`,
          });
        }
        engine.wake();
        ctx.body = { data: withAttempts(store, [getDelivery(store, id)!])[0] };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/webhook-endpoints/:id/resend-failed',
      handler(ctx) {
        const id = ctx.state.params.id ?? '';
        if (!endpointExists(store, id)) throw endpointNotFound(id);
        const ids = resendFailed(store, { endpointId: id }, Date.now());
        if (ids.length > 0) engine.wake();
        ctx.body = { data: { resent: ids.length, ids } };
      },
    },
  ];
}

function optional(state: DeliveryState | undefined): { state?: DeliveryState } {
  return state === undefined ? {} : { state };
}
