/**
 * API keys in the admin API (CONTRACT §3, §14, the Claves API screen): Family B keys of
 * a book (`?book=`) or Family A keys of the account (no `book`); create, with the key in
 * the response once (only its hash is kept); revoke.
 */
import { z } from 'zod';
import { createKey, listKeys, revokeKey, scopes, type ApiKey } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';
import { bookParam } from './book-param.js';

const createSchema = z.strictObject({
  book: z.string().min(1, 'Elija un libro.').optional(),
  environment: z.enum(['live', 'test'], { error: 'Elija live o test.' }),
  name: z.string().trim().min(1, 'Obligatorio.').max(100, 'Hasta 100 caracteres.'),
  scopes: z.array(z.enum(scopes, { error: `Ámbitos: ${scopes.join(', ')}.` })).min(1, 'Elija al menos un ámbito.').optional(),
});

export function toKeyJson(key: ApiKey) {
  return {
    id: key.id,
    family: key.family,
    environment: key.environment,
    name: key.name,
    book_id: key.bookId,
    scopes: key.scopes,
    hint: key.hint,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
    last_used_at: key.lastUsedAt,
  };
}

export function apiKeyAdminRoutes(store: Store): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/api-keys',
      handler(ctx) {
        const raw = ctx.query.book;
        const keys =
          typeof raw === 'string' && raw
            ? listKeys(store, { bookId: bookParam(store, raw).id })
            : listKeys(store).filter((k) => k.family === 'a');
        ctx.body = { data: keys.map(toKeyJson) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/api-keys',
      async handler(ctx) {
        const { input } = await readFiscalBody(ctx, createSchema, 16 * 1024);
        const book = input.book !== undefined ? bookParam(store, input.book) : undefined;
        const { key, record } = createKey(store, {
          family: book ? 'b' : 'a',
          environment: input.environment,
          name: input.name,
          ...(book ? { bookId: book.id } : {}),
          ...(book && input.scopes ? { scopes: input.scopes } : {}),
        });
        ctx.status = 201;
        // The key itself appears here and nowhere else, ever.
        ctx.body = { data: { ...toKeyJson(record), key } };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/api-keys/:id/revoke',
      handler(ctx) {
        ctx.body = { data: toKeyJson(revokeKey(store, ctx.state.params.id ?? '')) };
      },
    },
  ];
}
