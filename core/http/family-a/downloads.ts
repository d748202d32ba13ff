import type { Documents } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import { verifyPdfSignatures } from '../../pdf/index.js';
import type { AppContext, Route } from '../context.js';

function environmentOf(ctx: AppContext): 'test' | 'live' {
  const caller = ctx.state.caller;
  if (!caller) throw new SelloError('unauthorized');
  return caller.environment;
}

function notFound(id: string): SelloError {
  return new SelloError('not_found', { detail: `No existe el documento ${id}.`, detailEn: `There is no document ${id}.` });
}

/**
 * Family A downloads (CONTRACT §6): `/d` and `/p` the PDF, `/v` a verification of its
 * signatures, `/ack` the receipt confirmation. A key sees its environment's documents.
 */
export function downloadRoutes(documents: Documents): Route[] {
  const base = { surface: 'family-a' as const, auth: 'family-a' as const };
  const find = (ctx: AppContext) => {
    const id = ctx.state.params.id!;
    const doc = documents.findForAccount(environmentOf(ctx), id);
    if (!doc) throw notFound(id);
    return doc;
  };
  const pdf = (ctx: AppContext): void => {
    const doc = find(ctx);
    if (!doc.pdf) throw new SelloError('not_found', { detail: `El documento ${doc.id} no tiene PDF.`, detailEn: `Document ${doc.id} has no PDF.` });
    ctx.type = 'application/pdf';
    ctx.set('Content-Disposition', `inline; filename="${doc.numero.replace(/[^\w.-]+/g, '_')}.pdf"`);
    ctx.body = doc.pdf;
  };
  return [
    { ...base, method: 'GET', path: '/d/:id', handler: pdf },
    { ...base, method: 'GET', path: '/p/:id', handler: pdf },
    {
      ...base,
      method: 'GET',
      path: '/v/:id',
      handler(ctx) {
        const doc = find(ctx);
        let signatures: unknown[] = [];
        if (doc.pdf) {
          try {
            signatures = verifyPdfSignatures(doc.pdf).map((s) => ({
              signer: s.signerName,
              signed_at: s.signingTime?.toISOString() ?? null,
              intact: s.intact,
              covers_whole_file: s.coversWholeFile,
              sub_filter: s.subFilter,
              ...(s.problem ? { problem: s.problem } : {}),
            }));
          } catch {
            // A PDF that can't be read has no verifiable signature: say so, don't fail.
            signatures = [];
          }
        }
        ctx.body = {
          id: doc.id,
          doc_type: doc.doc_type,
          numero: doc.numero,
          access_key: doc.access_key,
          status: doc.status,
          authorization: doc.authorization,
          signatures,
        };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/ack/:id',
      handler(ctx) {
        const doc = find(ctx);
        ctx.body = { id: doc.id, status: doc.status, authorization: doc.authorization, received_at: doc.created_at };
      },
    },
  ];
}
