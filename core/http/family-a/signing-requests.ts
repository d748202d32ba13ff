/**
 * Family A signing requests (spec "Endpoints", CONTRACT §11): create (64 MiB body,
 * CONTRACT §2; `Idempotency-Key`, CONTRACT §5), read, send, and the downloads of the
 * original and signed files at the URLs the object gives. A key sees only its
 * environment's requests (CONTRACT §3).
 */
import { claimIdempotencyKey, completeIdempotencyKey, requestHash } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { SelloError, isSelloError, issueMessages } from '../../errors/index.js';
import {
  createSigningRequestSchema,
  toSigningRequestObject,
  validationError,
  type FullRequest,
  type SigningRequests,
} from '../../signing/requests/index.js';
import { parseJson, readBody } from '../body.js';
import { MiB, type AppContext, type Route } from '../context.js';
import { requestOrigin } from '../middleware/host-check.js';

/** CONTRACT §2: signing requests carry whole PDFs in base64. */
export const SIGNING_REQUEST_BODY_LIMIT = 64 * MiB;
const IDEMPOTENCY_FIELD = 'Idempotency-Key';

function environmentOf(ctx: AppContext): 'test' | 'live' {
  const caller = ctx.state.caller;
  if (!caller) throw new SelloError('unauthorized');
  return caller.environment;
}

/** Links point at the origin of the checked Host header (middleware/host-check.ts), never at the raw one. */
function baseUrl(ctx: AppContext): string {
  return requestOrigin(ctx);
}

async function readCreateBody(ctx: AppContext) {
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'application/json') {
    throw new SelloError('unsupported_media_type', {
      detail: 'Envíe el cuerpo como JSON con Content-Type: application/json.',
      detailEn: 'Send the body as JSON with Content-Type: application/json.',
    });
  }
  const raw = parseJson(await readBody(ctx.req, SIGNING_REQUEST_BODY_LIMIT));
  const parsed = createSigningRequestSchema.safeParse(raw);
  if (!parsed.success) throw validationError(issueMessages(parsed.error.issues));
  return { input: parsed.data, raw };
}

/** The Idempotency-Key header, checked: printable, at most 255 characters. */
function idempotencyKey(ctx: AppContext): string | undefined {
  const key = ctx.get(IDEMPOTENCY_FIELD);
  if (key === '') return undefined;
  if (key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw validationError({ [IDEMPOTENCY_FIELD]: ['debe tener entre 1 y 255 caracteres visibles, sin espacios'] });
  }
  return key;
}

export function signingRequestRoutes(store: Store, requests: SigningRequests): Route[] {
  const base = { surface: 'family-a' as const, auth: 'family-a' as const };
  const respond = (ctx: AppContext, full: FullRequest) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(toSigningRequestObject(store, full, baseUrl(ctx)));
  };
  const download = (which: 'original' | 'signed') => (ctx: AppContext) => {
    const { id = '', documentId = '' } = ctx.state.params;
    const bytes = requests.file(environmentOf(ctx), id, documentId, which);
    if (bytes === undefined) throw new SelloError('not_found', { detail: `La solicitud ${id} no tiene el documento ${documentId}.`, detailEn: `Request ${id} has no document ${documentId}.` });
    if (bytes === null) {
      throw new SelloError('not_ready', {
        detail: `El documento ${documentId} todavía no está firmado; su solicitud no está en estado signed.`,
        detailEn: `Document ${documentId} is not signed yet; its request is not signed.`,
      });
    }
    ctx.type = 'application/pdf';
    ctx.set('Content-Disposition', `attachment; filename="${documentId}-${which}.pdf"`);
    ctx.body = bytes;
  };
  return [
    {
      ...base,
      method: 'POST',
      path: '/digital-signatures/signing-requests',
      bodyLimit: SIGNING_REQUEST_BODY_LIMIT,
      async handler(ctx) {
        const environment = environmentOf(ctx);
        const key = idempotencyKey(ctx);
        const { input, raw } = await readCreateBody(ctx);
        // The PDFs are read on the PDF thread first, outside the transaction (it holds the store
        // for no longer than the checks and the inserts). A replay reads them again for nothing:
        // rare, and bounded like any read.
        const readings = await requests.readDocuments(input);
        // CONTRACT §5: scoped to the account (one per installation) and the key's environment.
        const scope = `account:${environment}:signing-requests.create`;
        // The claim, the request and its stored answer in one commit: a crash or a full disk
        // leaves either all of them or none, never a request that a retry with the same key
        // creates (and signs) a second time, nor a claim stuck "in progress".
        store.transaction(() => {
          if (key !== undefined) {
            let claim;
            try {
              claim = claimIdempotencyKey(store, scope, key, requestHash(raw), IDEMPOTENCY_FIELD);
            } catch (err) {
              // Family A has no 422 (CONTRACT §4): the same conflict, as a 400 naming the header.
              if (isSelloError(err) && err.code === 'validation_failed') throw new SelloError('validation_failed', { ...err.details, status: 400 });
              throw err;
            }
            if (claim.kind === 'replay') {
              for (const [name, value] of Object.entries(claim.response.headers)) ctx.set(name, value);
              ctx.set('Idempotent-Replayed', 'true');
              ctx.status = claim.response.status;
              ctx.type = 'application/json; charset=utf-8';
              ctx.body = claim.response.body;
              return;
            }
          }
          respond(ctx, requests.create(environment, input, readings));
          if (key !== undefined) completeIdempotencyKey(store, scope, key, { status: 200, body: String(ctx.body), headers: {} });
        });
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/digital-signatures/signing-requests/:id',
      handler(ctx) {
        respond(ctx, requests.get(environmentOf(ctx), ctx.state.params.id ?? ''));
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/digital-signatures/signing-requests/:id/send',
      handler(ctx) {
        respond(ctx, requests.send(environmentOf(ctx), ctx.state.params.id ?? ''));
      },
    },
    { ...base, method: 'GET', path: '/digital-signatures/signing-requests/:id/documents/:documentId/original', handler: download('original') },
    { ...base, method: 'GET', path: '/digital-signatures/signing-requests/:id/documents/:documentId/signed', handler: download('signed') },
  ];
}
