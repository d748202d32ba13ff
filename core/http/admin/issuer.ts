/**
 * The issuer of a book in one environment in the admin API (CONTRACT §14, §15, the Emisor
 * screen): the same checks and the same store as `GET`/`PUT /api/v1/issuer`, for a book and
 * environment the UI picks. Errors use the admin envelope, `errors` by field path.
 */
import { z } from 'zod';
import type { Store } from '../../db/index.js';
import { getIssuer, issuerWriteBody, putIssuer } from '../../fiscal/issuer.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';
import { bookParam, environmentParam } from './book-param.js';

export function issuerAdminRoutes(store: Store): Route[] {
  const admin = { surface: 'admin', auth: 'admin', path: '/admin/api/books/:book/issuer' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      handler(ctx) {
        const book = bookParam(store, ctx.state.params.book);
        ctx.body = { data: getIssuer(store, { book, environment: environmentParam(ctx.query.environment) }) };
      },
    },
    {
      ...admin,
      method: 'PUT',
      async handler(ctx) {
        const book = bookParam(store, ctx.state.params.book);
        const environment = environmentParam(ctx.query.environment);
        const { raw } = await readFiscalBody(ctx, z.unknown());
        ctx.body = issuerWriteBody(putIssuer(store, { book, environment }, raw));
      },
    },
  ];
}
