import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { inspectPdf, preparePdfSignature, signPdf, stampDimensions, verifyPdfSignatures, type StampOptions } from '../../../core/pdf/index.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';
import { pdfsig, qpdfCheck, readQrCode, renderGray } from '../../helpers/pdf-tools.js';

const run = promisify(execFile);
const signer = testPdfSigner();
const NAME = 'María José Peña Núñez Ülloa';

function stamp(over: Partial<StampOptions> = {}): StampOptions {
  return { page: 1, x: 40, y: 40, size: 's', signerName: NAME, qrText: 'https://sello.example/v/ñ-123?firmante=María', ...over };
}

async function expectSelloError(fn: () => unknown, code: string): Promise<SelloError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SelloError);
    expect((err as SelloError).code).toBe(code);
    expect((err as SelloError).message.length).toBeGreaterThan(20);
    return err as SelloError;
  }
  throw new Error(`se esperaba SelloError ${code}`);
}

async function pdftotext(pdf: Buffer, page: number): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sello-txt-'));
  try {
    await writeFile(path.join(dir, 'a.pdf'), pdf);
    const r = await run('pdftotext', ['-f', String(page), '-l', String(page), '-enc', 'UTF-8', path.join(dir, 'a.pdf'), '-']);
    return r.stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Fraction of dark pixels in a region of the displayed page (72 dpi: 1 px = 1 pt). */
function darkness(img: { width: number; pixels: Buffer }, x: number, y: number, w: number, h: number): number {
  let dark = 0;
  let all = 0;
  for (let j = Math.round(y); j < Math.round(y + h); j++) {
    for (let i = Math.round(x); i < Math.round(x + w); i++) {
      all++;
      if (img.pixels[j * img.width + i]! < 128) dark++;
    }
  }
  return dark / Math.max(1, all);
}

describe('signPdf', () => {
  for (const objectStreams of [true, false]) {
    it(`signs a PDF three times in a row, all valid (${objectStreams ? 'xref stream + object streams' : 'classic xref table'})`, async () => {
      const original = await makePdf({ objectStreams, pages: [{}, {}] });
      let pdf = original;
      const texts = ['primera', 'segunda ñandú', 'tercera'];
      for (let i = 0; i < 3; i++) {
        pdf = await signPdf(pdf, signer, { stamp: stamp({ page: i === 1 ? 2 : 1, y: 40 + (i === 2 ? 200 : 0), qrText: texts[i]! }) });
      }
      expect(pdf.subarray(0, original.length).equals(original)).toBe(true);
      const sig = await pdfsig(pdf);
      expect(sig.validity).toEqual(['Signature is Valid.', 'Signature is Valid.', 'Signature is Valid.']);
      expect(sig.lastCoversWholeDocument).toBe(true);
      const q = await qpdfCheck(pdf);
      expect(q.ok, q.output).toBe(true);
      // The new section follows the file's own style (§7.5.8.4).
      const tail = pdf.subarray(pdf.length - 400).toString('latin1');
      expect(tail.includes('/Type /XRef') || tail.includes('/Type/XRef')).toBe(objectStreams);

      const reports = verifyPdfSignatures(pdf);
      expect(reports.map((r) => [r.intact, r.coversWholeFile, r.signerName, r.subFilter])).toEqual([
        [true, false, signer.commonName, 'ETSI.CAdES.detached'],
        [true, false, signer.commonName, 'ETSI.CAdES.detached'],
        [true, true, signer.commonName, 'ETSI.CAdES.detached'],
      ]);
      expect(reports.map((r) => r.fieldName)).toEqual(['Firma1', 'Firma2', 'Firma3']);

      const dim = stampDimensions('s');
      expect(await readQrCode(pdf, 1, { x: 40, y: 40, width: dim.qr, height: dim.qr })).toBe('primera');
      expect(await readQrCode(pdf, 2, { x: 40, y: 40, width: dim.qr, height: dim.qr })).toBe('segunda ñandú');
      expect(await readQrCode(pdf, 1, { x: 40, y: 240, width: dim.qr, height: dim.qr })).toBe('tercera');
      expect(inspectPdf(pdf).signatureCount).toBe(3);
    });
  }

  it('writes the heading and the name with accents in WinAnsi (pdftotext reads them back)', async () => {
    const pdf = await signPdf(await makePdf(), signer, { stamp: stamp({ size: 'm', signerName: 'José Ñúñez Güemes' }) });
    const text = (await pdftotext(pdf, 1)).replace(/\s+/g, ' ');
    expect(text).toContain('Firmado electrónicamente por:');
    expect(text).toContain('José Ñúñez Güemes');
  });

  const rotations = [0, 90, 180, 270] as const;
  for (const rotate of rotations) {
    it(`places an upright stamp at x/y from the top-left of the displayed crop box (/Rotate ${rotate})`, async () => {
      const original = await makePdf({ pages: [{ size: [612, 792], rotate, cropBox: [30, 50, 580, 760] }] });
      const { pages } = inspectPdf(original);
      expect(pages[0]!.rotate).toBe(rotate);
      const x = 60;
      const y = 90;
      const pdf = await signPdf(original, signer, { stamp: stamp({ x, y, qrText: `rot-${rotate}` }) });
      expect((await pdfsig(pdf)).validity).toEqual(['Signature is Valid.']);
      const dim = stampDimensions('s');
      // pdftoppm renders the crop box as displayed: the QR is exactly where it was asked for…
      expect(await readQrCode(pdf, 1, { x, y, width: dim.qr, height: dim.qr })).toBe(`rot-${rotate}`);
      // …and upright: the text column is to its right, nothing below or left of it.
      const img = await renderGray(pdf, 1, 72);
      expect(img.width).toBe(Math.round(pages[0]!.width));
      expect(darkness(img, x + dim.qr + dim.gap, y, dim.textWidth, 40)).toBeGreaterThan(0.02);
      expect(darkness(img, x, y + dim.height + 2, dim.width, 60)).toBe(0);
      expect(darkness(img, 0, y, x - 2, dim.height)).toBe(0);
    });
  }

  it('signs invisibly when no stamp is given', async () => {
    const pdf = await signPdf(await makePdf(), signer, {});
    expect((await pdfsig(pdf)).validity).toEqual(['Signature is Valid.']);
    expect(verifyPdfSignatures(pdf)[0]).toMatchObject({ intact: true, coversWholeFile: true });
  });

  it('keeps a signature made by pdfsig -add-signature valid and adds its own', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sello-nss-'));
    try {
      const other = testPdfSigner('Poppler Tester');
      await writeFile(path.join(dir, 'k.pem'), other.keyPem);
      await writeFile(path.join(dir, 'c.pem'), other.certPem);
      await run('openssl', ['pkcs12', '-export', '-inkey', path.join(dir, 'k.pem'), '-in', path.join(dir, 'c.pem'), '-name', 'poppler', '-passout', 'pass:x', '-out', path.join(dir, 'p.p12')]);
      const db = path.join(dir, 'db');
      await run('mkdir', [db]);
      await run('certutil', ['-N', '-d', `sql:${db}`, '--empty-password']);
      await run('pk12util', ['-i', path.join(dir, 'p.p12'), '-d', `sql:${db}`, '-W', 'x']);
      await writeFile(path.join(dir, 'in.pdf'), await makePdf({ objectStreams: false }));
      await run('pdfsig', ['-nssdir', `sql:${db}`, '-add-signature', '-nick', 'poppler', path.join(dir, 'in.pdf'), path.join(dir, 'out.pdf')]).catch(() => undefined);
      const first = await readFile(path.join(dir, 'out.pdf'));
      expect((await pdfsig(first)).validity).toEqual(['Signature is Valid.']);
      const pdf = await signPdf(first, signer, { stamp: stamp() });
      const sig = await pdfsig(pdf);
      expect(sig.validity).toEqual(['Signature is Valid.', 'Signature is Valid.']);
      expect(sig.lastCoversWholeDocument).toBe(true);
      expect(verifyPdfSignatures(pdf).map((r) => [r.signerName, r.intact])).toEqual([
        ['Poppler Tester', true],
        [signer.commonName, true],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('repairs shifted xref offsets with a complete section and signs', async () => {
    const good = await makePdf({ objectStreams: false });
    // One byte removed after the header line: every offset is now off by one.
    const nl = good.indexOf(0x0a);
    const damaged = Buffer.concat([good.subarray(0, nl + 1), good.subarray(nl + 2)]);
    const pdf = await signPdf(damaged, signer, { stamp: stamp() });
    expect((await pdfsig(pdf)).validity).toEqual(['Signature is Valid.']);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
  });
});

describe('signPdf refuses bad inputs without touching them', () => {
  let plain: Buffer;
  beforeAll(async () => {
    plain = await makePdf({ pages: [{}, {}, {}] });
  });

  async function refuses(input: Buffer, code: string, opts: Parameters<typeof signPdf>[2] = { stamp: stamp() }): Promise<SelloError> {
    const copy = Buffer.from(input);
    const err = await expectSelloError(() => signPdf(input, signer, opts), code);
    expect(input.equals(copy)).toBe(true);
    return err;
  }

  it('pdf_invalid for something that is not a PDF', async () => {
    await refuses(Buffer.from('<html><body>no soy un PDF</body></html>'), 'pdf_invalid');
    await refuses(Buffer.alloc(0), 'pdf_invalid');
  });

  it('pdf_damaged for a file truncated after an incremental update', async () => {
    const signed = await signPdf(await makePdf({ objectStreams: false }), signer, {});
    const cut = signed.subarray(0, signed.lastIndexOf('xref'));
    await refuses(cut, 'pdf_damaged');
  });

  it('pdf_damaged for a file cut in half', async () => {
    await refuses(plain.subarray(0, Math.floor(plain.length / 2)), 'pdf_damaged');
  });

  it('pdf_damaged for a file whose catalog and xref are overwritten with junk', async () => {
    const junk = Buffer.from(plain);
    junk.fill(0x41, 20);
    junk.write('\nstartxref\n12\n%%EOF\n', junk.length - 25, 'latin1');
    await refuses(junk, 'pdf_damaged');
  });

  it('pdf_encrypted for a user password and for owner-only protection (qpdf --encrypt)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sello-enc-'));
    try {
      await writeFile(path.join(dir, 'in.pdf'), plain);
      await run('qpdf', ['--encrypt', 'usuario', 'propietario', '256', '--', path.join(dir, 'in.pdf'), path.join(dir, 'user.pdf')]);
      await run('qpdf', ['--encrypt', '', 'propietario', '128', '--use-aes=y', '--', path.join(dir, 'in.pdf'), path.join(dir, 'owner.pdf')]);
      await run('qpdf', ['--allow-weak-crypto', '--object-streams=disable', '--encrypt', '', 'propietario', '128', '--use-aes=n', '--', path.join(dir, 'in.pdf'), path.join(dir, 'owner-rc4.pdf')]);
      const user = await readFile(path.join(dir, 'user.pdf'));
      const owner = await readFile(path.join(dir, 'owner.pdf'));
      const ownerRc4 = await readFile(path.join(dir, 'owner-rc4.pdf'));
      const e1 = await refuses(user, 'pdf_encrypted');
      expect(e1.details.meta).toEqual({ encryption: 'user' });
      const e2 = await refuses(owner, 'pdf_encrypted');
      expect(e2.details.meta).toEqual({ encryption: 'owner' });
      await refuses(ownerRc4, 'pdf_encrypted');
      expect(inspectPdf(ownerRc4).encryption).toBe('owner');
      expect(() => inspectPdf(user)).toThrow(SelloError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('page_out_of_range for page 0 and past the last page', async () => {
    await refuses(plain, 'page_out_of_range', { stamp: stamp({ page: 0 }) });
    const err = await refuses(plain, 'page_out_of_range', { stamp: stamp({ page: 4 }) });
    expect(err.message).toContain('3 páginas');
  });

  it('stamp_outside_page when the stamp leaves the crop box', async () => {
    const cropped = await makePdf({ pages: [{ size: [612, 792], cropBox: [100, 100, 500, 700] }] });
    await refuses(cropped, 'stamp_outside_page', { stamp: stamp({ x: 200, y: 10 }) }); // 200 + 280.5 > 400
    await refuses(cropped, 'stamp_outside_page', { stamp: stamp({ x: 10, y: 500 }) }); // 500 + 150 > 600
    await refuses(cropped, 'stamp_outside_page', { stamp: stamp({ x: -1, y: 10 }) });
    await refuses(plain, 'stamp_outside_page', { stamp: stamp({ size: 'l' }) }); // 450 + text > 595
  });

  it('invalid_stamp_size for a size other than s, m, l', async () => {
    await refuses(plain, 'invalid_stamp_size', { stamp: stamp({ size: 'xl' as 's' }) });
  });
});

describe('preparePdfSignature', () => {
  let pdf: Buffer;
  afterAll(() => undefined);
  beforeAll(async () => {
    pdf = await makePdf();
  });

  it('reserves the placeholder, fills /ByteRange and refuses a CMS that does not fit', () => {
    const prepared = preparePdfSignature(pdf, { signingTime: new Date('2026-01-02T03:04:05Z'), contentsSize: 100 });
    const [zero, len1, start2, len2] = prepared.byteRange;
    expect(zero).toBe(0);
    expect(start2 - len1).toBe(202);
    const out = prepared.embed(Buffer.alloc(100, 0xab));
    expect(out.length).toBe(start2 + len2);
    expect(out.toString('latin1', len1, start2)).toBe('<' + 'ab'.repeat(100) + '>');
    expect(out.toString('latin1')).toContain("/M(D:20260102030405+00'00')");
    expect(() => prepared.embed(Buffer.alloc(101))).toThrow(/no cabe/);
    expect(pdf.equals(out.subarray(0, pdf.length))).toBe(true);
  });
});
