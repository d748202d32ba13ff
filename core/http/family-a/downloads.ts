import type { Documents } from '../../documents/index.js';
import { SelloError, isSelloError } from '../../errors/index.js';
import type { SignatureReport, TrustAnchor, VerifyOptions } from '../../pdf/index.js';
import { createVerificationCache } from '../../signing/pdf-thread/index.js';
import type { AppContext, Route } from '../context.js';

/** What `/v/{id}` needs to verify: the PDF thread (core/signing/pdf-thread) and the trust anchors of the moment. */
export interface VerificationDeps {
  /** The test CA appears when it is first created: read at each request, never cached from start-up. */
  trustAnchors(): Promise<TrustAnchor[]>;
}

/** The PDF thread's verification (untrusted bytes are parsed off the API's thread). */
export interface PdfVerifier {
  verify(pdf: Buffer, options?: VerifyOptions): Promise<SignatureReport[]>;
}

/** One signature as `/v/{id}` shows it: the first version's fields, then integrity, changes and trust. */
function signatureJson(s: SignatureReport): Record<string, unknown> {
  return {
    signer: s.signerName,
    signed_at: s.signingTime?.toISOString() ?? null,
    intact: s.intact,
    covers_whole_file: s.coversWholeFile,
    sub_filter: s.subFilter,
    ...(s.problem ? { problem: s.problem } : {}),
    modification: s.modification,
    ...(s.modificationProblem ? { modification_problem: s.modificationProblem } : {}),
    trusted: s.trusted,
    trust_anchor: s.trust.anchor,
    ...(s.trust.problem ? { trust_problem: s.trust.problem } : {}),
    valid: s.valid,
  };
}

function environmentOf(ctx: AppContext): 'test' | 'live' {
  const caller = ctx.state.caller;
  if (!caller) throw new SelloError('unauthorized');
  return caller.environment;
}

function notFound(id: string): SelloError {
  return new SelloError('not_found', { detail: `No existe el documento ${id}.`, detailEn: `There is no document ${id}.` });
}

/** The RIDE of a document Sello issued (CONTRACT §15): its PDF at `/d` and `/p`. Undefined for other documents. */
export interface RideSource {
  ride(environment: 'test' | 'live', id: string): Promise<Buffer | undefined>;
}

/**
 * Family A downloads (CONTRACT §6): `/d` and `/p` the PDF (an issued invoice's RIDE), `/v` a
 * verification of its signatures, `/ack` the receipt confirmation. A key sees its environment's
 * documents.
 */
export function downloadRoutes(documents: Documents, pdfs: PdfVerifier, verification: VerificationDeps, rides?: RideSource): Route[] {
  const base = { surface: 'family-a' as const, auth: 'family-a' as const };
  // A document's PDF never changes: verified once per content and trust anchors, not at every call.
  const verifications = createVerificationCache(pdfs);
  const find = (ctx: AppContext) => {
    const id = ctx.state.params.id!;
    const doc = documents.findForAccount(environmentOf(ctx), id);
    if (!doc) throw notFound(id);
    return doc;
  };
  const pdf = async (ctx: AppContext): Promise<void> => {
    const doc = find(ctx);
    const bytes = doc.pdf ?? (await rides?.ride(environmentOf(ctx), doc.id));
    if (!bytes) throw new SelloError('not_found', { detail: `El documento ${doc.id} no tiene PDF.`, detailEn: `Document ${doc.id} has no PDF.` });
    ctx.type = 'application/pdf';
    ctx.set('Content-Disposition', `inline; filename="${doc.numero.replace(/[^\w.-]+/g, '_')}.pdf"`);
    ctx.body = bytes;
  };
  return [
    { ...base, method: 'GET', path: '/d/:id', handler: pdf },
    { ...base, method: 'GET', path: '/p/:id', handler: pdf },
    {
      ...base,
      method: 'GET',
      path: '/v/:id',
      async handler(ctx) {
        const doc = find(ctx);
        let signatures: unknown[] = [];
        if (doc.pdf) {
          const trustAnchors = await verification.trustAnchors();
          try {
            signatures = (await verifications.verify(doc.id, doc.pdf, { trustAnchors })).map(signatureJson);
          } catch (err) {
            // A PDF that can't be read has no verifiable signature: say so, don't fail. A reader
            // that could not start is not the PDF's fault: that is a 500 (internal_error).
            if (!isSelloError(err) || err.status >= 500) throw err;
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
