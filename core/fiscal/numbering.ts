/**
 * Sequential numbers of issued documents (CONTRACT §15 "Numbering"): per book, environment,
 * document type and series (establishment, emission point), taken inside the transaction that
 * creates the document. SQLite runs one write transaction at a time, so the upsert below is
 * atomic: a number is never given twice, and a refused body (whose transaction rolls back)
 * takes none, so accepted documents have no gaps.
 */
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';

export interface Series {
  bookId: string;
  environment: 'test' | 'live';
  /** SRI codDoc ("01" factura). */
  docCode: string;
  establishment: string;
  emissionPoint: string;
}

/** The secuencial has nine digits. */
export const MAX_SECUENCIAL = 999_999_999;

/**
 * Inside the caller's transaction: raises the series' counter and returns the new number (1 for
 * a new series). Throws 422 when the series has used all nine digits.
 *
 * @example
 *   store.transaction(() => takeSecuencial(store, { bookId, environment: 'test', docCode: '01', establishment: '001', emissionPoint: '001' })); // 1, then 2…
 */
export function takeSecuencial(store: Store, series: Series): number {
  const row = store
    .statement<[string, string, string, string, string], { last: number }>(
      `insert into fiscal_sequences (book_id, environment, doc_code, establishment, emission_point, last) values (?, ?, ?, ?, ?, 1)
       on conflict (book_id, environment, doc_code, establishment, emission_point) do update set last = last + 1
       returning last`,
    )
    .get(series.bookId, series.environment, series.docCode, series.establishment, series.emissionPoint);
  if (!row || row.last > MAX_SECUENCIAL) {
    throw new SelloError('validation_failed', {
      fields: { emission_point: [`la serie ${series.establishment}-${series.emissionPoint} agotó sus ${MAX_SECUENCIAL} números; use otro punto de emisión`] },
    });
  }
  return row.last;
}

/** The nine-digit secuencial text. @example secuencialText(123) // '000000123' */
export function secuencialText(n: number): string {
  return String(n).padStart(9, '0');
}
