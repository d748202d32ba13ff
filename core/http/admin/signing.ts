/**
 * The signing queue of the admin API (CONTRACT §11, §14): what waits for a token PIN,
 * grouped by token with the tries it reports left; approve with the PIN (kept in memory,
 * core/signing/requests/pin-cache.ts); reject. Approving waits for the signatures it
 * unblocks, so a wrong PIN comes back at once as `pin_incorrect`.
 */
import { z } from 'zod';
import type { SigningRequests } from '../../signing/requests/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';

const approveSchema = z.strictObject({
  pin: z.string().min(1).max(64).optional(),
  /** Opt-in: keep the PIN sealed in the data folder (never in clear). */
  remember: z.boolean().optional(),
});

export function signingAdminRoutes(requests: SigningRequests): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/signing/pending',
      async handler(ctx) {
        ctx.body = { data: await requests.pending() };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/signing/pending/:signatureId/approve',
      async handler(ctx) {
        const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
        const input = hasBody ? (await readFiscalBody(ctx, approveSchema, 4096)).input : {};
        ctx.body = { data: await requests.approve(ctx.state.params.signatureId ?? '', input) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/signing/pending/:signatureId/reject',
      handler(ctx) {
        const id = ctx.state.params.signatureId ?? '';
        requests.reject(id);
        ctx.body = { data: { signature_id: id, state: 'rejected', request_status: 'processing' } };
      },
    },
  ];
}
