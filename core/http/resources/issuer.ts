import { z } from 'zod';
import type { Caller } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import { getIssuer, issuerWriteBody, putIssuer, type IssuerOwner } from '../../fiscal/issuer.js';
import type { AppContext, Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';

function owner(ctx: AppContext): IssuerOwner {
  const caller: Caller | undefined = ctx.state.caller;
  if (caller?.family !== 'b') throw new SelloError('unauthorized');
  return caller;
}

/**
 * The issuer of the calling key's book and environment (CONTRACT §15): Bearer, scope
 * `accounting`, the fiscal envelope with Spanish messages by field path.
 */
export function issuerRoutes(store: Store): Route[] {
  const base = { surface: 'fiscal' as const, auth: 'family-b' as const, scope: 'accounting' as const, path: '/api/v1/issuer' };
  return [
    {
      ...base,
      method: 'GET',
      handler(ctx) {
        ctx.body = { data: getIssuer(store, owner(ctx)) };
      },
    },
    {
      ...base,
      method: 'PUT',
      async handler(ctx) {
        const who = owner(ctx);
        // Every check is putIssuer's, shared with the admin UI's Emisor screen.
        const { raw } = await readFiscalBody(ctx, z.unknown());
        ctx.body = issuerWriteBody(putIssuer(store, who, raw));
      },
    },
  ];
}
