import { findBook, type Book } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';

/** The book a per-book admin call names, by id or slug; 404 in the admin envelope otherwise. */
export function bookParam(store: Store, slugOrId: string | undefined): Book {
  const book = slugOrId ? findBook(store, slugOrId) : undefined;
  if (!book) {
    throw new SelloError('not_found', { detail: `No existe el libro ${slugOrId ?? ''}.`, detailEn: `No book ${slugOrId ?? ''}.` });
  }
  return book;
}

/** `?environment=` of an admin call: `live` unless `test` is asked for. */
export function environmentParam(raw: unknown): 'live' | 'test' {
  if (raw === undefined || raw === 'live') return 'live';
  if (raw === 'test') return 'test';
  throw new SelloError('invalid_query', {
    detail: '"environment" debe ser live o test.',
    detailEn: '"environment" must be live or test.',
    fields: { environment: ['Debe ser live o test.'] },
  });
}
