import crypto from 'node:crypto';
import type { Caller } from '../auth/index.js';
import type { Store } from '../db/index.js';
import type { SecretBox } from '../secrets/index.js';

/** The spec's three document events (spec, Events). */
export const webhookEvents = ['document.authorized', 'document.rejected', 'document.failed'] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

export interface EndpointInput {
  url: string;
  secret: string;
  active?: boolean | undefined;
  events?: string[] | undefined;
}

export type EndpointPatch = Partial<EndpointInput>;

export interface Problem {
  path: string;
  detail: string;
  detailEn: string;
}

const MAX_URL_LENGTH = 2048;
const MIN_SECRET_LENGTH = 8;

/**
 * The rules beyond types for an endpoint's attributes. `url` must be an absolute
 * HTTPS URL without credentials (spec rule 1); `events` only the three names.
 */
export function endpointProblems(input: EndpointPatch): Problem[] {
  const problems: Problem[] = [];
  if (input.url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(input.url);
    } catch {
      problems.push({ path: 'url', detail: `"${input.url}" no es una URL válida.`, detailEn: `"${input.url}" is not a valid URL.` });
    }
    if (url) {
      if (url.protocol !== 'https:') {
        problems.push({ path: 'url', detail: 'La URL debe usar HTTPS (https://…).', detailEn: 'The URL must use HTTPS (https://…).' });
      } else if (url.username || url.password) {
        problems.push({ path: 'url', detail: 'La URL no debe incluir usuario ni contraseña.', detailEn: 'The URL must not include a user name or password.' });
      } else if (input.url.length > MAX_URL_LENGTH) {
        problems.push({ path: 'url', detail: `La URL supera ${MAX_URL_LENGTH} caracteres.`, detailEn: `The URL is longer than ${MAX_URL_LENGTH} characters.` });
      }
    }
  }
  if (input.secret !== undefined && input.secret.length < MIN_SECRET_LENGTH) {
    problems.push({
      path: 'secret',
      detail: `El secreto debe tener al menos ${MIN_SECRET_LENGTH} caracteres.`,
      detailEn: `The secret must have at least ${MIN_SECRET_LENGTH} characters.`,
    });
  }
  input.events?.forEach((event, i) => {
    if (!(webhookEvents as readonly string[]).includes(event)) {
      problems.push({
        path: `events/${i}`,
        detail: `Evento desconocido "${event}". Eventos: ${webhookEvents.join(', ')} (una lista vacía los incluye todos).`,
        detailEn: `Unknown event "${event}". Events: ${webhookEvents.join(', ')} (an empty list means all).`,
      });
    }
  });
  return problems;
}

/**
 * Whose endpoints: a Family B caller, or the admin API acting on a book and environment
 * (CONTRACT §14), which passes `{ book: { id }, environment }`.
 */
export type EndpointOwner = Pick<Extract<Caller, { family: 'b' }>, 'environment'> & { book: { id: string } };

/** An endpoint as the admin API lists it: never its secret. */
export interface EndpointSummary {
  id: string;
  bookId: string;
  environment: 'test' | 'live';
  url: string;
  active: boolean;
  events: string[];
  lastDeliveredAt: string | null;
  lastStatus: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookEndpoints {
  create(caller: EndpointOwner, input: EndpointInput): string;
  update(caller: EndpointOwner, id: string, patch: EndpointPatch): boolean;
  remove(caller: EndpointOwner, id: string): boolean;
  /** The live (not deleted) endpoints of a book, or one by id when `id` is given. */
  list(filter: { bookId?: string; environment?: 'test' | 'live'; id?: string }): EndpointSummary[];
}

/**
 * The owner of `webhook_endpoints`. Endpoints belong to the caller's book and
 * environment. Delete is a tombstone: the row stays for the delivery history, but
 * the API no longer sees it and nothing more is sent to it.
 */
export function createWebhookEndpoints(store: Store, secrets: SecretBox): WebhookEndpoints {
  const mine = (caller: EndpointOwner, id: string) =>
    store.db
      .updateTable('webhook_endpoints')
      .where('id', '=', id)
      .where('book_id', '=', caller.book.id)
      .where('environment', '=', caller.environment)
      .where('deleted_at', 'is', null);

  return {
    create(caller, input) {
      const id = crypto.randomUUID();
      const now = new Date().toISOString();
      store.run(
        store.db.insertInto('webhook_endpoints').values({
          id,
          book_id: caller.book.id,
          environment: caller.environment,
          url: input.url,
          secret_sealed: secrets.seal(input.secret),
          active: input.active === false ? 0 : 1,
          events: JSON.stringify([...new Set(input.events ?? [])]),
          created_at: now,
          updated_at: now,
        }),
      );
      return id;
    },
    update(caller, id, patch) {
      const set: Record<string, string | number> = { updated_at: new Date().toISOString() };
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.secret !== undefined) set.secret_sealed = secrets.seal(patch.secret);
      if (patch.active !== undefined) set.active = patch.active ? 1 : 0;
      if (patch.events !== undefined) set.events = JSON.stringify([...new Set(patch.events)]);
      return store.run(mine(caller, id).set(set)).changes === 1;
    },
    remove(caller, id) {
      const now = new Date().toISOString();
      return store.run(mine(caller, id).set({ deleted_at: now, updated_at: now, active: 0 })).changes === 1;
    },
    list(filter) {
      let query = store.db.selectFrom('webhook_endpoints').selectAll().where('deleted_at', 'is', null).orderBy('created_at').orderBy('id');
      if (filter.bookId) query = query.where('book_id', '=', filter.bookId);
      if (filter.environment) query = query.where('environment', '=', filter.environment);
      if (filter.id) query = query.where('id', '=', filter.id);
      return store.all(query).map((r) => ({
        id: r.id,
        bookId: r.book_id,
        environment: r.environment,
        url: r.url,
        active: r.active === 1,
        events: JSON.parse(r.events) as string[],
        lastDeliveredAt: r.last_delivered_at,
        lastStatus: r.last_status,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      }));
    },
  };
}
