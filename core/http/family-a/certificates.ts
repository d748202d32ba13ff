import {
  certificateStatuses,
  certificateTypes,
  findCertificateForEnvironment,
  listCertificateObjects,
  toCertificateObject,
  type CertificateFilters,
} from '../../certificates/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import type { AppContext, Route } from '../context.js';

function environmentOf(ctx: AppContext): 'test' | 'live' {
  const caller = ctx.state.caller;
  if (!caller) throw new SelloError('unauthorized');
  return caller.environment;
}

/** A query filter that must be one of `allowed`; anything else is a 400 naming the parameter (CONTRACT §4). */
function queryFilter<T extends string>(ctx: AppContext, name: string, allowed: readonly T[]): T | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !(allowed as readonly string[]).includes(raw)) {
    const message = `"${name}" debe ser uno de ${allowed.join(', ')}; se recibió ${JSON.stringify(raw)}.`;
    throw new SelloError('invalid_query', {
      detail: message,
      detailEn: `"${name}" must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}.`,
      parameter: name,
      fields: { [name]: [message] },
    });
  }
  return raw as T;
}

/**
 * Family A certificates (spec, Endpoints; CONTRACT §10): `GET /certificates` →
 * `{data: [Certificate…]}` filtered by `status` and `type`, and `GET /certificates/{id}`.
 * A key sees only its environment's certificates; another environment's id is a 404.
 */
export function certificateRoutes(store: Store): Route[] {
  const base = { surface: 'family-a' as const, auth: 'family-a' as const };
  return [
    {
      ...base,
      method: 'GET',
      path: '/certificates',
      handler(ctx) {
        const filters: CertificateFilters = {};
        const status = queryFilter(ctx, 'status', certificateStatuses);
        const type = queryFilter(ctx, 'type', certificateTypes);
        if (status) filters.status = status;
        if (type) filters.type = type;
        ctx.body = { data: listCertificateObjects(store, environmentOf(ctx), filters) };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/certificates/:id',
      handler(ctx) {
        ctx.body = toCertificateObject(findCertificateForEnvironment(store, ctx.state.params.id ?? '', environmentOf(ctx)));
      },
    },
  ];
}
