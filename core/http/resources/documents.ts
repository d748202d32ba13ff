import { claimIdempotencyKey, completeIdempotencyKey, requestHash } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { checkDocumentInput, type Documents } from '../../documents/index.js';
import { changeStatusSchema, createDocumentSchema } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import type { Route } from '../context.js';
import { bookCaller, readFiscalBody, sendJson } from '../fiscal-body.js';



/**
 * The fiscal-style document routes (CONTRACT §6): Bearer, scope `accounting`, the
 * fiscal envelope with Spanish messages by field path. `issuedBySello(id)`: the document is one
 * Sello issued to the tax authority (CONTRACT §15), whose status only the authority's answers
 * change; the ERP's status changes are refused for it.
 */
export function documentRoutes(store: Store, documents: Documents, issuedBySello: (id: string) => boolean = () => false): Route[] {
  const base = { surface: 'fiscal' as const, auth: 'family-b' as const, scope: 'accounting' as const };
  return [
    {
      ...base,
      method: 'POST',
      path: '/api/v1/documents',
      async handler(ctx) {
        const caller = bookCaller(ctx);
        const { input, raw } = await readFiscalBody(ctx, createDocumentSchema);
        const pdf = checkDocumentInput(input, caller.environment);
        // CONTRACT §5: idempotent per book (and environment) by external_ref.
        const scope = `book:${caller.book.id}:${caller.environment}:documents.create`;
        // The claim, the document and its stored answer in one commit: a crash or a full disk
        // leaves either all of them or none, never a document that cannot be replayed or
        // created again, nor a claim that stays "in progress" because releasing it failed.
        const outcome = store.transaction(() => {
          const claim = claimIdempotencyKey(store, scope, input.external_ref, requestHash(raw), 'external_ref');
          if (claim.kind === 'replay') return { replayed: true, answer: claim.response };
          const view = documents.create(caller, input, pdf);
          const answer = { status: 201, body: JSON.stringify({ data: view }), headers: { Location: `/api/v1/documents/${view.id}` } };
          completeIdempotencyKey(store, scope, input.external_ref, answer);
          return { replayed: false, answer };
        });
        for (const [name, value] of Object.entries(outcome.answer.headers)) ctx.set(name, value);
        if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
        sendJson(ctx, outcome.answer.status, outcome.answer.body);
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/api/v1/documents/:id/status',
      async handler(ctx) {
        const caller = bookCaller(ctx);
        const id = ctx.state.params.id!;
        // An unknown id is a 404 whatever the body says.
        documents.get(caller, id);
        const { input } = await readFiscalBody(ctx, changeStatusSchema);
        if (issuedBySello(id)) {
          throw new SelloError('validation_failed', {
            fields: { status: ['este documento lo emitió Sello: su estado lo da el SRI y no se cambia a mano (consulte su recurso: GET /api/v1/invoices/{id}, /api/v1/credit-notes/{id}, /api/v1/debit-notes/{id} o /api/v1/purchase-settlements/{id})'] },
          });
        }
        sendJson(ctx, 200, JSON.stringify({ data: documents.changeStatus(caller, id, input) }));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/documents/:id',
      handler(ctx) {
        sendJson(ctx, 200, JSON.stringify({ data: documents.get(bookCaller(ctx), ctx.state.params.id!) }));
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/api/v1/documents/:id/xml',
      handler(ctx) {
        ctx.type = 'application/xml; charset=utf-8';
        ctx.body = documents.xml(bookCaller(ctx), ctx.state.params.id!);
      },
    },
  ];
}
