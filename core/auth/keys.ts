import crypto from 'node:crypto';
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';
import type { Book } from './books.js';

/**
 * API keys (CONTRACT §3). Family A (`X-Api-Key`) keys are per account and
 * environment: `sk_test_…`, `sk_live_…`. Family B (`Authorization: Bearer`) keys
 * belong to one book: `sello_test_…`, `sello_live_…`, with a name and scopes.
 * Only the SHA-256 of a key is stored; the key itself is shown once.
 */
export type Family = 'a' | 'b';
export type Environment = 'test' | 'live';
export const scopes = ['accounting', 'signing'] as const;
export type Scope = (typeof scopes)[number];

export interface ApiKey {
  id: string;
  family: Family;
  environment: Environment;
  name: string | null;
  bookId: string | null;
  scopes: Scope[];
  hint: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface CreateKeyInput {
  family: Family;
  environment: Environment;
  name?: string;
  bookId?: string;
  scopes?: Scope[];
}

/** Who is calling, once a key has been checked. */
export type Caller =
  | { family: 'a'; keyId: string; environment: Environment }
  | { family: 'b'; keyId: string; environment: Environment; book: Book; scopes: Scope[] };

// 32 bytes of randomness in base62: ~190 bits.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function randomToken(length: number): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // 248 = 4 × 62: reject the tail so every character is equally likely.
      if (byte < 248 && out.length < length) out.push(ALPHABET[byte % 62]!);
    }
  }
  return out.join('');
}

export function keyPrefix(family: Family, environment: Environment): string {
  return family === 'a' ? `sk_${environment}_` : `sello_${environment}_`;
}

export function hashKey(key: string): string {
  // The one-shot form: a third of createHash's cost, and it runs on every request.
  return crypto.hash('sha256', key, 'hex');
}

export function createKey(store: Store, input: CreateKeyInput, now = new Date()): { key: string; record: ApiKey } {
  if (input.family === 'b' && !input.bookId) {
    throw new SelloError('validation_failed', {
      detail: 'Las claves de la familia B pertenecen a un libro: indique --book.',
      fields: { book: ['Obligatorio para claves de la familia B.'] },
    });
  }
  if (input.family === 'a' && input.bookId) {
    throw new SelloError('validation_failed', {
      detail: 'Las claves de la familia A son de la cuenta, no de un libro: no indique --book.',
      fields: { book: ['No se admite en claves de la familia A.'] },
    });
  }
  const keyScopes = input.family === 'b' ? [...new Set(input.scopes ?? scopes)] : [];
  if (input.family === 'b' && keyScopes.length === 0) {
    throw new SelloError('validation_failed', {
      detail: `Indique al menos un ámbito: ${scopes.join(', ')}.`,
      fields: { scope: ['Indique al menos un ámbito.'] },
    });
  }
  const key = keyPrefix(input.family, input.environment) + randomToken(43);
  const record: ApiKey = {
    id: crypto.randomUUID(),
    family: input.family,
    environment: input.environment,
    name: input.name?.trim() || null,
    bookId: input.bookId ?? null,
    scopes: keyScopes,
    hint: `${keyPrefix(input.family, input.environment)}…${key.slice(-4)}`,
    createdAt: now.toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  store.run(
    store.db.insertInto('api_keys').values({
      id: record.id,
      family: record.family,
      environment: record.environment,
      name: record.name,
      book_id: record.bookId,
      scopes: JSON.stringify(record.scopes),
      key_hash: hashKey(key),
      key_hint: record.hint,
      created_at: record.createdAt,
    }),
  );
  return { key, record };
}

type KeyRow = {
  id: string;
  family: Family;
  environment: Environment;
  name: string | null;
  book_id: string | null;
  scopes: string;
  key_hint: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
};

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    family: row.family,
    environment: row.environment,
    name: row.name,
    bookId: row.book_id,
    scopes: JSON.parse(row.scopes) as Scope[],
    hint: row.key_hint,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

const keyColumns = [
  'id',
  'family',
  'environment',
  'name',
  'book_id',
  'scopes',
  'key_hint',
  'created_at',
  'revoked_at',
  'last_used_at',
] as const;

export function listKeys(store: Store, filter: { bookId?: string } = {}): ApiKey[] {
  let query = store.db.selectFrom('api_keys').select(keyColumns).orderBy('created_at');
  if (filter.bookId) query = query.where('book_id', '=', filter.bookId);
  return store.all(query).map(toApiKey);
}

/** Revokes a key for good. Revoking twice is harmless; an unknown id is an error. */
export function revokeKey(store: Store, id: string, now = new Date()): ApiKey {
  const row = store.first(store.db.selectFrom('api_keys').select(keyColumns).where('id', '=', id));
  if (!row) throw new SelloError('not_found', { detail: `No existe una clave con id ${id}.` });
  if (!row.revoked_at) {
    store.run(
      store.db.updateTable('api_keys').set({ revoked_at: now.toISOString() }).where('id', '=', id).where('revoked_at', 'is', null),
    );
  }
  return toApiKey({ ...row, revoked_at: row.revoked_at ?? now.toISOString() });
}

/**
 * Checks a presented key for a family. Any failure (unknown, revoked, other family,
 * malformed) is the same 401 `unauthorized`, so a caller learns nothing about keys.
 * The lookup goes by hash; the final comparison is constant-time.
 */
export function authenticate(store: Store, family: Family, presented: string | undefined): Caller {
  if (!presented || presented.length > 200) throw new SelloError('unauthorized');
  const hash = hashKey(presented);
  // The hottest query of the API: one prepared statement, key and book together.
  const row = store
    .statement<[string], AuthRow>(
      `select k.id, k.family, k.environment, k.scopes, k.key_hash, k.revoked_at,
              b.id as book_id, b.slug, b.tenant_slug, b.name, b.accounting_api, b.created_at
         from api_keys k left join books b on b.id = k.book_id
        where k.key_hash = ?`,
    )
    .get(hash);
  const expected = Buffer.from(row?.key_hash ?? '0'.repeat(64), 'hex');
  const matches = crypto.timingSafeEqual(expected, Buffer.from(hash, 'hex'));
  if (!row || !matches || row.revoked_at || row.family !== family) throw new SelloError('unauthorized');
  if (row.family === 'a') return { family: 'a', keyId: row.id, environment: row.environment };
  if (!row.book_id) throw new SelloError('unauthorized');
  const book: Book = {
    id: row.book_id,
    slug: row.slug!,
    tenantSlug: row.tenant_slug!,
    name: row.name!,
    accountingApi: row.accounting_api === 1,
    createdAt: row.created_at!,
  };
  return { family: 'b', keyId: row.id, environment: row.environment, book, scopes: JSON.parse(row.scopes) as Scope[] };
}

interface AuthRow {
  id: string;
  family: Family;
  environment: Environment;
  scopes: string;
  key_hash: string;
  revoked_at: string | null;
  book_id: string | null;
  slug: string | null;
  tenant_slug: string | null;
  name: string | null;
  accounting_api: number | null;
  created_at: string | null;
}

export interface Authenticator {
  /** `marker`: the store's change marker when the caller already read it for this request. */
  authenticate(family: Family, presented: string | undefined, marker?: string): Caller;
  /**
   * The caller of a key checked earlier while the store was at `marker`, or undefined:
   * never reads the store, never throws. For answers that skip the full pipeline.
   */
  remembered(family: Family, presented: string | undefined, marker: string): Caller | undefined;
}

/**
 * `authenticate` with a memory of recent keys, valid while the store is unchanged
 * (`Store.changeMarker`): revoking a key, from this process or from the CLI, is a
 * write, so the next request looks the key up again. Unknown keys are never kept.
 */
export function createAuthenticator(store: Store, maxKeys = 1000): Authenticator {
  const known = new Map<string, { marker: string; family: Family; caller: Caller }>();
  return {
    authenticate(family, presented, knownMarker) {
      if (!presented || presented.length > 200) throw new SelloError('unauthorized');
      const marker = knownMarker ?? store.changeMarker();
      const hash = hashKey(presented);
      const hit = known.get(hash);
      if (hit && hit.marker === marker) {
        if (hit.family !== family) throw new SelloError('unauthorized');
        return hit.caller;
      }
      const caller = authenticate(store, family, presented);
      if (known.size >= maxKeys) known.delete(known.keys().next().value!);
      known.set(hash, { marker, family, caller });
      return caller;
    },
    remembered(family, presented, marker) {
      if (!presented || presented.length > 200) return undefined;
      const hit = known.get(hashKey(presented));
      return hit && hit.marker === marker && hit.family === family ? hit.caller : undefined;
    },
  };
}
