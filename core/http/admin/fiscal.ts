/**
 * The admin API's side of issued documents (CONTRACT §11, §14, §15): comprobantes whose issuer's
 * certificate is on a token wait in `pending` until its PIN is at hand, "like signing requests".
 *
 * - `GET /admin/api/fiscal/pending`: those documents, grouped by token, with what the token says
 *   about itself (present, PIN tries) — the "Firmas pendientes" screen and the tray read it.
 * - `POST /admin/api/fiscal/token-pin`: the person's PIN. It is tried on the token at once (one
 *   C_Login), so a wrong one comes back now as `pin_incorrect` with the tries left and is never
 *   kept; a right one goes into the same PIN cache as signing requests' approvals (in memory for
 *   SELLO_PIN_CACHE_SECONDS, sealed on disk only with `remember`), and the token's documents are
 *   made due at once (the submission engine listens to the cache).
 */
import { z } from 'zod';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import { waitingOnTokens, type WaitingOnToken } from '../../fiscal/submissions/index.js';
import { checkTokenPin, tokenStatus, type PinCache } from '../../signing/requests/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';

const tokenPinSchema = z.strictObject({
  token_serial: z.string().min(1, 'es obligatorio').max(64),
  pin: z.string().min(1, 'es obligatorio').max(64),
  /** Opt-in: keep the PIN sealed in the data folder (never in clear). */
  remember: z.boolean().optional(),
});

export interface FiscalAdminDeps {
  store: Store;
  pins: PinCache;
  /** Tries a PIN on a token (tests may count the tries). */
  checkPin?: typeof checkTokenPin;
}

export interface WaitingTokenGroup {
  token: { serial: string | null; label: string | null; present: boolean; pin_tries: string; pin_cached: boolean };
  invoices: Array<Omit<WaitingOnToken, 'token_module' | 'token_serial' | 'token_label'>>;
}

export function fiscalAdminRoutes(deps: FiscalAdminDeps): Route[] {
  const checkPin = deps.checkPin ?? checkTokenPin;
  const admin = { surface: 'admin', auth: 'admin' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/fiscal/pending',
      async handler(ctx) {
        ctx.body = { data: await pendingByToken(deps.store, deps.pins) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/fiscal/token-pin',
      async handler(ctx) {
        const { input } = await readFiscalBody(ctx, tokenPinSchema, 4096);
        const token = deps.store
          .statement<[string], { token_module: string }>(
            "select token_module from certificates where source = 'token' and token_serial = ? and token_module is not null limit 1",
          )
          .get(input.token_serial);
        if (!token) {
          throw new SelloError('not_found', {
            detail: `Sello no tiene certificados del token de serie ${input.token_serial}. Revise la serie (la muestra «sello tokens» y la pantalla Certificados).`,
            detailEn: `Sello has no certificate of a token with serial ${input.token_serial}.`,
          });
        }
        await checkPin(token.token_module, input.token_serial, input.pin);
        deps.pins.set(input.token_serial, input.pin, { remember: input.remember ?? false });
        const waiting = waitingOnTokens(deps.store).filter((w) => w.token_serial === input.token_serial).length;
        ctx.body = { data: { token_serial: input.token_serial, pin_cached: true, waiting_invoices: waiting } };
      },
    },
  ];
}

/** The waiting documents per token, in the order they were issued. */
async function pendingByToken(store: Store, pins: PinCache): Promise<WaitingTokenGroup[]> {
  const groups = new Map<string, WaitingTokenGroup>();
  for (const row of waitingOnTokens(store)) {
    const { token_module, token_serial, token_label, ...invoice } = row;
    const key = token_serial ?? `certificate:${row.certificate_id}`;
    let group = groups.get(key);
    if (!group) {
      const state = token_module && token_serial ? await tokenStatus(token_module, token_serial) : undefined;
      group = {
        token: {
          serial: token_serial,
          label: token_label,
          present: state?.present ?? false,
          pin_tries: state?.pinTries ?? 'unknown',
          pin_cached: token_serial ? pins.has(token_serial) : false,
        },
        invoices: [],
      };
      groups.set(key, group);
    }
    group.invoices.push(invoice);
  }
  return [...groups.values()];
}
