import crypto from 'node:crypto';
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';

/** A book: the accounts of one client company of the office (CONTRACT §3). */
export interface Book {
  id: string;
  slug: string;
  tenantSlug: string;
  name: string;
  accountingApi: boolean;
  createdAt: string;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export interface CreateBookInput {
  slug: string;
  tenantSlug: string;
  name?: string;
  accountingApi?: boolean;
}

function assertSlug(value: string, field: string): void {
  if (!SLUG.test(value)) {
    throw new SelloError('validation_failed', {
      detail: `"${value}" no es un identificador válido para ${field}: use minúsculas, números y guiones (hasta 64 caracteres).`,
      fields: { [field]: ['Use minúsculas, números y guiones (hasta 64 caracteres).'] },
    });
  }
}

export function createBook(store: Store, input: CreateBookInput, now = new Date()): Book {
  assertSlug(input.slug, 'slug');
  assertSlug(input.tenantSlug, 'tenant');
  const book: Book = {
    id: crypto.randomUUID(),
    slug: input.slug,
    tenantSlug: input.tenantSlug,
    name: input.name?.trim() || input.slug,
    accountingApi: input.accountingApi ?? true,
    createdAt: now.toISOString(),
  };
  const existing = store.first(store.db.selectFrom('books').select('id').where('slug', '=', book.slug));
  if (existing) {
    throw new SelloError('validation_failed', {
      detail: `Ya existe un libro con el identificador "${book.slug}".`,
      fields: { slug: ['Ya existe un libro con este identificador.'] },
    });
  }
  store.run(
    store.db.insertInto('books').values({
      id: book.id,
      slug: book.slug,
      tenant_slug: book.tenantSlug,
      name: book.name,
      accounting_api: book.accountingApi ? 1 : 0,
      created_at: book.createdAt,
    }),
  );
  return book;
}

type BookRow = { id: string; slug: string; tenant_slug: string; name: string; accounting_api: number; created_at: string };

function toBook(row: BookRow): Book {
  return {
    id: row.id,
    slug: row.slug,
    tenantSlug: row.tenant_slug,
    name: row.name,
    accountingApi: row.accounting_api === 1,
    createdAt: row.created_at,
  };
}

export function listBooks(store: Store): Book[] {
  return store.all(store.db.selectFrom('books').selectAll().orderBy('slug')).map(toBook);
}

/** A book by slug or id; undefined when none. */
export function findBook(store: Store, slugOrId: string): Book | undefined {
  const row = store.first(
    store.db.selectFrom('books').selectAll().where((eb) => eb.or([eb('slug', '=', slugOrId), eb('id', '=', slugOrId)])),
  );
  return row ? toBook(row) : undefined;
}

export function getBookById(store: Store, id: string): Book | undefined {
  const row = store.first(store.db.selectFrom('books').selectAll().where('id', '=', id));
  return row ? toBook(row) : undefined;
}
