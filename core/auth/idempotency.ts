import crypto from 'node:crypto';
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';

/**
 * Idempotent writes (CONTRACT §5): `external_ref` on fiscal writes, the
 * `Idempotency-Key` header on Family A signing requests. The first request claims
 * the key with a `running` row and stores its successful result, all in the
 * transaction that creates the thing; a repeat returns it. A failed first attempt
 * rolls its claim back with everything else, so a corrected request can run.
 */
export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type IdempotencyClaim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

export function requestHash(body: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** JSON with object keys sorted, so two equal bodies hash alike whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Claims `key` in `scope` for a request whose body hashes to `hash`.
 * @param field the request field that carries the key, named in the 422.
 */
export function claimIdempotencyKey(store: Store, scope: string, key: string, hash: string, field: string): IdempotencyClaim {
  return store.transaction(() => {
    const row = store.first(
      store.db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key),
    );
    if (!row) {
      store.run(
        store.db.insertInto('idempotency_keys').values({
          scope,
          key,
          request_hash: hash,
          state: 'running',
          created_at: new Date().toISOString(),
        }),
      );
      return { kind: 'claimed' as const };
    }
    if (row.request_hash !== hash) {
      throw new SelloError('validation_failed', {
        detail: `Ya se usó ${field} "${key}" con otro contenido.`,
        detailEn: `${field} "${key}" was already used with a different body.`,
        fields: { [field]: [`Ya se usó "${key}" con otro contenido; use un valor nuevo.`] },
      });
    }
    if (row.state === 'running') throw new SelloError('in_progress');
    return {
      kind: 'replay' as const,
      response: {
        status: row.response_status ?? 200,
        body: row.response_body ?? '',
        headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
      },
    };
  });
}

export function completeIdempotencyKey(store: Store, scope: string, key: string, response: StoredResponse): void {
  store.run(
    store.db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        response_status: response.status,
        response_body: response.body,
        response_headers: JSON.stringify(response.headers),
        completed_at: new Date().toISOString(),
      })
      .where('scope', '=', scope)
      .where('key', '=', key),
  );
}

/** At start: keys left `running` belong to a process that died; free them. */
export function releaseAbandonedIdempotencyKeys(store: Store): number {
  return store.run(store.db.deleteFrom('idempotency_keys').where('state', '=', 'running')).changes;
}
