/**
 * The admin API's side of issued documents (CONTRACT §14, §15): the PIN of a token that holds an
 * issuer's certificate. Comprobantes of such an issuer wait in `pending` until the PIN is at
 * hand; it goes into the same PIN cache as signing requests' approvals (kept in memory for
 * SELLO_PIN_CACHE_SECONDS, sealed on disk only with `remember`), and the submission job is woken.
 * A wrong PIN is found at the next signature, forgotten, and never tried again by itself.
 */
import { z } from 'zod';
import type { PinCache } from '../../signing/requests/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';

const tokenPinSchema = z.strictObject({
  token_serial: z.string().min(1, 'es obligatorio').max(64),
  pin: z.string().min(1, 'es obligatorio').max(64),
  /** Opt-in: keep the PIN sealed in the data folder (never in clear). */
  remember: z.boolean().optional(),
});

export function fiscalAdminRoutes(deps: { pins: PinCache; wake(): void }): Route[] {
  return [
    {
      surface: 'admin',
      auth: 'admin',
      method: 'POST',
      path: '/admin/api/fiscal/token-pin',
      async handler(ctx) {
        const { input } = await readFiscalBody(ctx, tokenPinSchema, 4096);
        deps.pins.set(input.token_serial, input.pin, { remember: input.remember ?? false });
        deps.wake();
        ctx.body = { data: { token_serial: input.token_serial, pin_cached: true } };
      },
    },
  ];
}
