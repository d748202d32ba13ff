/**
 * The stored issuer of a book in one environment (table `issuers`, CONTRACT §15): what a
 * fiscal write needs before it takes a number. Writing it (`PUT /api/v1/issuer`, with every
 * check) belongs to ./issuer.ts; reading it is shared by every fiscal write.
 */
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';
import type { Issuer } from './sri/invoice-model.js';

export interface StoredIssuer {
  issuer: Issuer;
  certificateId: string;
  updatedAt: string;
}

/** The issuer of `bookId` in `environment`, or undefined when none was configured. */
export function readIssuer(store: Store, bookId: string, environment: 'test' | 'live'): StoredIssuer | undefined {
  const row = store.first(store.db.selectFrom('issuers').selectAll().where('book_id', '=', bookId).where('environment', '=', environment));
  if (!row) return undefined;
  return { issuer: JSON.parse(row.body) as Issuer, certificateId: row.certificate_id, updatedAt: row.updated_at };
}

/**
 * The issuer of `bookId` in `environment`; throws 422 `emisor_not_configured` when there is
 * none (a fiscal write must not take a number without one).
 */
export function requireIssuer(store: Store, bookId: string, environment: 'test' | 'live'): StoredIssuer {
  const found = readIssuer(store, bookId, environment);
  if (!found) {
    throw new SelloError('emisor_not_configured', {
      detail: `Este libro no tiene emisor configurado en el ambiente de ${environment === 'live' ? 'producción' : 'pruebas'}. Configúrelo con PUT /api/v1/issuer o en la pantalla Emisor.`,
      detailEn: `This book has no issuer configured in its ${environment} environment. Configure it with PUT /api/v1/issuer or on the Emisor screen.`,
    });
  }
  return found;
}
