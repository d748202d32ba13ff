import type Koa from 'koa';
import { SelloError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import type { State } from '../context.js';
import { JsonApiErrors, renderError, renderJsonApiErrors } from '../envelopes.js';
import { surfaceForPath } from '../router.js';

/**
 * Every failure leaves by this one door. A `SelloError` becomes its family's
 * envelope; anything else is logged with the request id and becomes a bare 500
 * (never a stack trace, never HTML).
 */
export function errorMiddleware(log: Logger): Koa.Middleware<State> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      let err: SelloError;
      if (thrown instanceof SelloError) {
        err = thrown;
      } else {
        log.error('unhandled error', { requestId: ctx.state.requestId, path: ctx.path, err: thrown });
        // The id is what ties the person's report to the log line with the stack.
        const id = ctx.state.requestId;
        err = new SelloError('internal_error', {
          detail: `Error interno del servidor (solicitud ${id}). El equipo de Sello puede consultar el registro con ese id.`,
          detailEn: `Internal server error (request ${id}). The request id identifies it in the log.`,
        });
      }
      const surface = ctx.state.surface ?? surfaceForPath(ctx.path);
      const rendered =
        err instanceof JsonApiErrors && surface === 'jsonapi'
          ? renderJsonApiErrors(err.all, ctx.state.lang)
          : renderError(err, surface, ctx.state.lang);
      for (const [name, value] of Object.entries(err.details.headers ?? {})) ctx.set(name, value);
      ctx.status = rendered.status;
      ctx.type = rendered.contentType;
      ctx.body = JSON.stringify(rendered.body);
    }
  };
}
