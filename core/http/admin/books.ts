/**
 * Books in the admin API (CONTRACT §3, §14, the Libros screen): the client companies of
 * the office, each with its tenant and the `accounting_api` capability.
 */
import { z } from 'zod';
import { createBook, listBooks, type Book } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const slugMessage = 'Use minúsculas, números y guiones (hasta 64 caracteres).';

const createSchema = z.strictObject({
  slug: z.string({ error: 'Obligatorio.' }).regex(SLUG, slugMessage),
  tenant: z.string({ error: 'Obligatorio.' }).regex(SLUG, slugMessage),
  name: z.string().max(200, 'Hasta 200 caracteres.').optional(),
  accounting_api: z.boolean({ error: 'Debe ser verdadero o falso.' }).optional(),
});

/** A book as the admin API shows it. */
export function toBookJson(book: Book) {
  return { id: book.id, slug: book.slug, tenant: book.tenantSlug, name: book.name, accounting_api: book.accountingApi, created_at: book.createdAt };
}

export function bookAdminRoutes(store: Store): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/books',
      handler(ctx) {
        ctx.body = { data: listBooks(store).map(toBookJson) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/books',
      async handler(ctx) {
        const { input } = await readFiscalBody(ctx, createSchema, 16 * 1024);
        const book = createBook(store, {
          slug: input.slug,
          tenantSlug: input.tenant,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.accounting_api !== undefined ? { accountingApi: input.accounting_api } : {}),
        });
        ctx.status = 201;
        ctx.body = { data: toBookJson(book) };
      },
    },
  ];
}
