/**
 * Signs every file of the real-world PDF corpus (/work/shared/pdf-corpus on dev machines;
 * pass its folder in SELLO_PDF_CORPUS). Each file either gets valid signatures — ours twice in
 * a row, earlier ones still valid per pdfsig — or a clear SelloError for what can't be signed.
 *
 *   SELLO_PDF_CORPUS=/work/shared/pdf-corpus npx vitest run --config vitest.corpus.config.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloError, type ErrorCode } from '../../core/errors/index.js';
import { inspectPdf, signPdf, stampDimensions, verifyPdfSignatures, type CmsSigner, type StampOptions, type TrustAnchor } from '../../core/pdf/index.js';
import { issuedSigner } from '../helpers/pdf-updates.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';
import { pdfsig, qpdfCheck, readQrCode } from '../helpers/pdf-tools.js';

const corpus = process.env.SELLO_PDF_CORPUS;

interface Row {
  file: string;
  encrypted: string;
  damaged: string;
  notes: string;
}

function readManifest(dir: string): Row[] {
  const [header, ...lines] = readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const cols = header!.split('\t');
  const at = (name: string): number => cols.indexOf(name);
  return lines.map((l) => {
    const c = l.split('\t');
    return { file: c[at('file')]!, encrypted: c[at('encrypted')]!, damaged: c[at('damaged')]!, notes: c[at('notes')]! };
  });
}

/**
 * What Sello must answer for files it can't sign: a DocMDP P=1 certification forbids changes
 * (even when the file is also encrypted); encrypted files are refused (owner-only included,
 * for now); a file truncated after an update is beyond repair.
 */
function expectedRefusal(row: Row): ErrorCode | null {
  if (/DocMDP certification P=1/.test(row.notes)) return 'pdf_changes_forbidden';
  if (row.encrypted !== 'none') return 'pdf_encrypted';
  if (row.damaged === 'yes' && /loses xref\/trailer|no trailer|truncat/i.test(row.notes)) return 'pdf_damaged';
  return null;
}

if (!corpus) {
  describe('PDF corpus', () => {
    it.skip('skipped: set SELLO_PDF_CORPUS to the corpus folder (e.g. /work/shared/pdf-corpus)', () => undefined);
  });
} else {
  const rows = readManifest(corpus);
  // Issued by a test CA, so that Sello's own signatures must verify trusted as well as valid.
  let pki: TestPki;
  let signer: CmsSigner;
  let trustAnchors: TrustAnchor[];
  beforeAll(async () => {
    pki = await createTestPki();
    signer = issuedSigner(pki.leaf);
    trustAnchors = [{ source: 'test_ca', certificate: pki.ca.certificate }];
  });
  afterAll(() => pki.cleanup());

  describe('PDF corpus', () => {
    it('has files to test', () => {
      expect(rows.length).toBeGreaterThan(10);
    });

    for (const row of rows) {
      const refusal = expectedRefusal(row);
      it(`${row.file}: ${refusal ? `refused with ${refusal}` : 'signed twice, every signature valid'}`, async () => {
        const original = readFileSync(path.join(corpus, row.file));
        const copy = Buffer.from(original);
        if (refusal) {
          const err = await signPdf(original, signer, {}).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(SelloError);
          expect((err as SelloError).code).toBe(refusal);
          expect(original.equals(copy)).toBe(true);
          return;
        }

        const before = await pdfsig(original);
        const qBefore = await qpdfCheck(original);
        const info = inspectPdf(original);
        const page = info.pages[info.pages.length - 1]!;
        const dim = stampDimensions('s');
        // A visible stamp on the last page where it fits, else an invisible signature.
        const fits = page.width >= dim.width + 20 && page.height >= dim.height + 20;
        const qrText = `https://sello.example/v/${row.file}`;
        const stamp: StampOptions | undefined = fits ? { page: 'last', x: 10, y: 10, size: 's', signerName: 'Núñez Peña, José', qrText } : undefined;

        const once = await signPdf(original, signer, stamp ? { stamp } : {});
        expect(original.equals(copy)).toBe(true);
        const twice = await signPdf(once, signer, {});

        const after = await pdfsig(twice);
        const n = before.validity.length;
        expect(after.validity.length, after.output).toBe(n + 2);
        // Earlier signatures that were valid stay valid; ours are valid; the last covers the file.
        before.validity.forEach((v, i) => {
          if (v === 'Signature is Valid.') expect(after.validity[i], after.output).toBe(v);
        });
        expect(after.validity.slice(n), after.output).toEqual(['Signature is Valid.', 'Signature is Valid.']);
        expect(after.lastCoversWholeDocument).toBe(true);

        const reports = verifyPdfSignatures(twice, { trustAnchors });
        const facts = (r: (typeof reports)[number]) => ({ intact: r.intact, valid: r.valid, trusted: r.trusted, modification: r.modification, problem: r.problem ?? r.modificationProblem ?? r.trust.problem });
        expect(reports.slice(-2).map(facts)).toEqual([
          { intact: true, valid: true, trusted: true, modification: 'signatures', problem: undefined },
          { intact: true, valid: true, trusted: true, modification: 'none', problem: undefined },
        ]);
        expect(reports[reports.length - 1]!.coversWholeFile).toBe(true);
        // Signatures already in the file: Sello's own later signatures are never "other" content.
        for (const earlier of verifyPdfSignatures(original, { trustAnchors })) {
          const now = reports.find((r) => r.fieldName === earlier.fieldName)!;
          expect({ field: now.fieldName, intact: now.intact }).toEqual({ field: earlier.fieldName, intact: earlier.intact });
          if (earlier.modification !== 'other') expect(facts(now)).toMatchObject({ valid: earlier.valid, modification: earlier.modification === 'none' ? 'signatures' : earlier.modification });
        }

        if (qBefore.ok) {
          const q = await qpdfCheck(twice);
          expect(q.ok, q.output).toBe(true);
        }
        if (stamp) {
          expect(await readQrCode(twice, info.pageCount, { x: 10, y: 10, width: dim.qr, height: dim.qr })).toBe(qrText);
        }
      });
    }
  });
}
