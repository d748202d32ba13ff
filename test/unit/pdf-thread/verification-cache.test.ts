/**
 * `/v/{id}` verifies a document's PDF once per content and options (core/signing/pdf-thread/
 * verification-cache.ts): asked again, the same answer without parsing again; a refusal that is
 * the file's is kept too, a fault of the thread is not.
 */
import { describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import type { SignatureReport } from '../../../core/pdf/index.js';
import { createVerificationCache } from '../../../core/signing/pdf-thread/index.js';

function counting(answer: (pdf: Buffer) => Promise<SignatureReport[]>) {
  const calls: Buffer[] = [];
  return { calls, pdfs: { verify: (pdf: Buffer) => (calls.push(pdf), answer(pdf)) } };
}

describe('verification cache', () => {
  it('verifies a document once per content and options', async () => {
    const { calls, pdfs } = counting(async () => []);
    const cache = createVerificationCache(pdfs);
    const pdf = Buffer.from('%PDF-1.7 uno');
    await Promise.all([cache.verify('d1', pdf), cache.verify('d1', pdf)]);
    await cache.verify('d1', Buffer.from(pdf));
    expect(calls).toHaveLength(1);
    await cache.verify('d1', Buffer.from('%PDF-1.7 otro'));
    await cache.verify('d2', pdf);
    await cache.verify('d1', pdf, { now: new Date(0) });
    expect(calls).toHaveLength(4);
  });

  it("keeps a refusal that is the file's, and forgets a fault of the thread", async () => {
    let fault = true;
    const { calls, pdfs } = counting(async (pdf) => {
      if (pdf.includes('roto')) throw new SelloError('pdf_too_complex');
      if (fault) throw new SelloError('internal_error');
      return [];
    });
    const cache = createVerificationCache(pdfs);
    const broken = Buffer.from('%PDF roto');
    await expect(cache.verify('d1', broken)).rejects.toMatchObject({ code: 'pdf_too_complex' });
    await expect(cache.verify('d1', broken)).rejects.toMatchObject({ code: 'pdf_too_complex' });
    expect(calls).toHaveLength(1);
    const fine = Buffer.from('%PDF bien');
    await expect(cache.verify('d2', fine)).rejects.toMatchObject({ code: 'internal_error' });
    fault = false;
    await expect(cache.verify('d2', fine)).resolves.toEqual([]);
    expect(calls).toHaveLength(3);
  });

  it('forgets the oldest beyond its size', async () => {
    const { calls, pdfs } = counting(async () => []);
    const cache = createVerificationCache(pdfs, 2);
    const pdf = Buffer.from('%PDF');
    for (const id of ['a', 'b', 'a', 'c', 'a', 'b']) await cache.verify(id, pdf);
    expect(calls).toHaveLength(4); // a, b, c, then b again (a was kept by its use)
  });
});
