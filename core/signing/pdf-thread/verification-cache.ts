/**
 * Verifications of PDFs that never change once stored (a tax document's RIDE), kept by the
 * document's id, the PDF's SHA-256 and the options it was verified with: `GET /v/{id}` asked
 * again answers from here instead of parsing the file again. A refusal that is the file's
 * (`pdf_damaged`, `pdf_too_complex`…) is kept too: a hostile file costs the PDF thread once.
 * Anything else (the thread could not start) is not kept.
 */
import crypto from 'node:crypto';
import v8 from 'node:v8';
import { isSelloError } from '../../errors/index.js';
import type { SignatureReport } from '../../pdf/index.js';
import type { PdfThread } from './pdf-thread.js';
import type { VerifyExtras } from './protocol.js';

export interface VerificationCache {
  verify(id: string, pdf: Buffer, ...extras: VerifyExtras): Promise<SignatureReport[]>;
}

const sha256 = (bytes: Uint8Array): string => crypto.createHash('sha256').update(bytes).digest('hex');

/** @example const verifications = createVerificationCache(pdfs); await verifications.verify(doc.id, doc.pdf, { trustAnchors }); */
export function createVerificationCache(pdfs: Pick<PdfThread, 'verify'>, maxEntries = 1000): VerificationCache {
  /** Oldest first: a Map keeps insertion order, and a hit is moved to the end. */
  const entries = new Map<string, Promise<SignatureReport[]>>();
  return {
    verify(id, pdf, ...extras) {
      // The options may change (a test CA created since): they are part of the key, by content.
      const key = `${id}\n${sha256(pdf)}\n${sha256(v8.serialize(extras))}`;
      let entry = entries.get(key);
      if (entry) {
        entries.delete(key);
        entries.set(key, entry);
        return entry;
      }
      entry = pdfs.verify(pdf, ...extras);
      entries.set(key, entry);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      entry.catch((err: unknown) => {
        if (!isSelloError(err) || err.status >= 500) entries.delete(key);
      });
      return entry;
    },
  };
}
