/**
 * What revisions after a signature changed (issue 15 point 4, pyHanko's diff analysis): another
 * signature, a form filled, an annotation added are allowed (within a certification's DocMDP);
 * page content replaced, pages rewritten, or a dangling reference filled in are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, PDFRef, StandardFonts } from 'pdf-lib';
import { signPdf, verifyPdfSignatures, type CmsSigner, type TrustAnchor } from '../../../core/pdf/index.js';
import type { PdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import { PdfDict, PdfRef, PdfString, decodeTextString, name, textString } from '../../../core/pdf/syntax/pdf-objects.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { appearance, appendRevision, issuedSigner, page, stream } from '../../helpers/pdf-updates.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let signer: CmsSigner;
let anchors: TrustAnchor[];

beforeAll(async () => {
  pki = await createTestPki();
  signer = issuedSigner(pki.leaf);
  anchors = [{ source: 'test_ca', certificate: pki.ca.certificate }];
});
afterAll(() => pki.cleanup());

const verify = (pdf: Buffer) => verifyPdfSignatures(pdf, { trustAnchors: anchors });

/** The first content stream of page 1. */
function contentRef(doc: PdfDocument): PdfRef {
  const c = page(doc).dict.get('Contents');
  const first = Array.isArray(c) ? c[0] : c;
  if (!(first instanceof PdfRef)) throw new Error('sin /Contents');
  return first;
}

/** A form with a text field and a check box, made with pdf-lib. */
async function makeForm(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const p = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  p.drawText('Formulario', { x: 50, y: 800, size: 14, font });
  const form = doc.getForm();
  form.createTextField('nombre').addToPage(p, { x: 50, y: 700, width: 200, height: 20 });
  form.createCheckBox('acepta').addToPage(p, { x: 50, y: 650, width: 15, height: 15 });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The field named `t` among the top-level /Fields. */
function field(doc: PdfDocument, t: string): { ref: PdfRef; dict: PdfDict } {
  const acro = doc.dict(doc.catalog().dict.get('AcroForm'))!;
  for (const f of doc.array(acro.get('Fields')) ?? []) {
    const d = doc.dict(f);
    const title = d?.get('T');
    if (f instanceof PdfRef && d && title instanceof PdfString && decodeTextString(title) === t) return { ref: f, dict: d };
  }
  throw new Error(`sin campo ${t}`);
}

describe('changes after signing that are not allowed', () => {
  it('reports page content replaced by a later update as "other": intact, but not valid', async () => {
    const signed = await signPdf(await makePdf(), signer, {});
    const changed = appendRevision(signed, (doc) => [{ num: contentRef(doc).num, gen: 0, value: stream('BT /F1 24 Tf 72 700 Td (TOTAL A PAGAR: 9.999.999) Tj ET') }]);
    const [r] = verify(changed);
    expect(r).toMatchObject({ intact: true, trusted: true, coversWholeFile: false, modification: 'other', valid: false });
    expect(r!.modificationProblem).toMatch(/ninguna regla permite.*objeto \d+ \(stream\)/);
  });

  it('reports a page pointed at new content as "other"', async () => {
    const signed = await signPdf(await makePdf({ objectStreams: false }), signer, {});
    const changed = appendRevision(signed, (doc, alloc) => {
      const p = page(doc);
      const content = alloc();
      return [
        { num: content.num, gen: 0, value: stream('BT /F1 24 Tf 72 700 Td (OTRO TEXTO) Tj ET') },
        { num: p.ref.num, gen: 0, value: p.dict.clone().set('Contents', [content]) },
      ];
    });
    const [r] = verify(changed);
    expect(r).toMatchObject({ intact: true, modification: 'other', valid: false });
    expect(r!.modificationProblem).toMatch(/contenido de una página \(\/Contents\)/);
  });

  it('reports a page added after signing as "other"', async () => {
    const signed = await signPdf(await makePdf({ objectStreams: false }), signer, {});
    const changed = appendRevision(signed, (doc, alloc) => {
      const pagesRef = doc.catalog().dict.get('Pages') as PdfRef;
      const pages = doc.dict(pagesRef)!;
      const newPage = alloc();
      return [
        { num: newPage.num, gen: 0, value: new PdfDict([['Type', name('Page')], ['Parent', pagesRef], ['MediaBox', [0, 0, 595, 842]]]) },
        { num: pagesRef.num, gen: 0, value: pages.clone().set('Kids', [...doc.array(pages.get('Kids'))!, newPage]).set('Count', 2) },
      ];
    });
    expect(verify(changed)[0]).toMatchObject({ modification: 'other', valid: false });
  });

  it('reports a reference the signed revision left dangling, defined later, as "other"', async () => {
    // The signed page draws object 50, which does not exist yet (a null, §7.3.10): defining it
    // later changes the page without rewriting any signed object.
    const lib = await PDFDocument.load(await makePdf({ objectStreams: false }));
    const p = lib.getPage(0).node;
    p.set(lib.context.obj('Contents') as never, lib.context.obj([...(p.Contents() as unknown as { asArray(): PDFRef[] }).asArray(), PDFRef.of(50)]));
    const signed = await signPdf(Buffer.from(await lib.save({ useObjectStreams: false })), signer, {});
    expect(verify(signed)[0]).toMatchObject({ intact: true, valid: true });
    const filled = appendRevision(signed, () => [{ num: 50, gen: 0, value: stream('BT /F1 24 Tf 72 600 Td (AGREGADO) Tj ET') }]);
    const [r] = verify(filled);
    expect(r).toMatchObject({ intact: true, modification: 'other', valid: false });
    expect(r!.modificationProblem).toMatch(/referenciaba sin definir/);
  });

  it('reports a signature already made that a later revision rewrites as "other"', async () => {
    const once = await signPdf(await makePdf(), signer, {});
    const twice = await signPdf(once, signer, {});
    const changed = appendRevision(twice, (doc) => {
      const f = field(doc, 'Firma1');
      return [{ num: f.ref.num, gen: 0, value: f.dict.clone().set('TU', textString('otro')) }];
    });
    const [first, second] = verify(changed);
    expect(first).toMatchObject({ modification: 'other', valid: false });
    expect(second).toMatchObject({ modification: 'other', valid: false });
  });
});

describe('changes after signing that are allowed', () => {
  it('accepts a second signature by Sello: "signatures", still valid', async () => {
    const once = await signPdf(await makePdf(), signer, {});
    const twice = await signPdf(once, signer, { stamp: { page: 1, x: 36, y: 36, size: 's', signerName: 'Otra Persona', qrText: 'https://sello.example/v/2' } });
    const [first, second] = verify(twice);
    expect(first).toMatchObject({ intact: true, coversWholeFile: false, modification: 'signatures', valid: true, trusted: true });
    expect(first!.modificationProblem).toBeUndefined();
    expect(second).toMatchObject({ intact: true, coversWholeFile: true, modification: 'none', valid: true });
  });

  it('accepts a form filled after signing: "form_fill", valid', async () => {
    const signed = await signPdf(await makeForm(), signer, {});
    const filled = appendRevision(signed, (doc, alloc) => {
      const f = field(doc, 'nombre');
      const widgetRef = doc.array(f.dict.get('Kids'))![0] as PdfRef;
      const widget = doc.dict(widgetRef)!;
      const ap = alloc();
      return [
        { num: f.ref.num, gen: 0, value: f.dict.clone().set('V', textString('Ana Pérez')) },
        { num: ap.num, gen: 0, value: appearance('/Tx BMC BT /Helv 12 Tf 2 6 Td (Ana Perez) Tj ET EMC', 200, 20) },
        { num: widgetRef.num, gen: 0, value: widget.clone().set('AP', new PdfDict([['N', ap]])) },
      ];
    });
    const [r] = verify(filled);
    expect(r).toMatchObject({ intact: true, modification: 'form_fill', valid: true });
  });

  it('accepts a check box ticked in place (its appearance state) as "form_fill"', async () => {
    const signed = await signPdf(await makeForm(), signer, {});
    const ticked = appendRevision(signed, (doc) => {
      const f = field(doc, 'acepta');
      const widgetRef = doc.array(f.dict.get('Kids'))![0] as PdfRef;
      const widget = doc.dict(widgetRef)!;
      return [
        { num: f.ref.num, gen: 0, value: f.dict.clone().set('V', name('Yes')) },
        { num: widgetRef.num, gen: 0, value: widget.clone().set('AS', name('Yes')) },
      ];
    });
    expect(verify(ticked)[0]).toMatchObject({ modification: 'form_fill', valid: true });
  });

  it('rejects a new field that is not a signature field', async () => {
    const signed = await signPdf(await makeForm(), signer, {});
    const added = appendRevision(signed, (doc, alloc) => {
      const acroRef = doc.catalog().dict.get('AcroForm');
      const acro = doc.dict(acroRef)!;
      const f = alloc();
      return [
        { num: f.num, gen: 0, value: new PdfDict([['FT', name('Tx')], ['T', textString('nuevo')], ['Type', name('Annot')], ['Subtype', name('Widget')], ['Rect', [0, 0, 10, 10]]]) },
        acroRef instanceof PdfRef
          ? { num: acroRef.num, gen: 0, value: acro.clone().set('Fields', [...doc.array(acro.get('Fields'))!, f]) }
          : { num: doc.catalog().ref.num, gen: 0, value: doc.catalog().dict.clone().set('AcroForm', acro.clone().set('Fields', [...doc.array(acro.get('Fields'))!, f])) },
      ];
    });
    const [r] = verify(added);
    expect(r).toMatchObject({ modification: 'other', valid: false });
    expect(r!.modificationProblem).toMatch(/no es de firma/);
  });

  it('accepts a comment added after signing: "annotations", valid', async () => {
    const signed = await signPdf(await makePdf({ objectStreams: false }), signer, {});
    const annotated = appendRevision(signed, (doc, alloc) => {
      const p = page(doc);
      const note = alloc();
      const annots = doc.array(p.dict.get('Annots')) ?? [];
      return [
        { num: note.num, gen: 0, value: new PdfDict([['Type', name('Annot')], ['Subtype', name('Text')], ['Rect', [100, 100, 120, 120]], ['Contents', textString('Revisado')], ['P', p.ref]]) },
        { num: p.ref.num, gen: 0, value: p.dict.clone().set('Annots', [...annots, note]) },
      ];
    });
    const [r] = verify(annotated);
    expect(r).toMatchObject({ intact: true, modification: 'annotations', valid: true, docMdp: null });
  });

  it('rejects a link with an action added after signing: not a comment', async () => {
    const signed = await signPdf(await makePdf({ objectStreams: false }), signer, {});
    const linked = appendRevision(signed, (doc, alloc) => {
      const p = page(doc);
      const link = alloc();
      const action = new PdfDict([['S', name('URI')], ['URI', new PdfString(Buffer.from('https://evil.example/pagar'))]]);
      return [
        { num: link.num, gen: 0, value: new PdfDict([['Type', name('Annot')], ['Subtype', name('Link')], ['Rect', [0, 0, 595, 842]], ['A', action]]) },
        { num: p.ref.num, gen: 0, value: p.dict.clone().set('Annots', [...(doc.array(p.dict.get('Annots')) ?? []), link]) },
      ];
    });
    const [r] = verify(linked);
    expect(r).toMatchObject({ modification: 'other', valid: false });
    expect(r!.modificationProblem).toMatch(/no es un comentario/);
  });

  it('accepts a document information update as no change', async () => {
    const signed = await signPdf(await makePdf({ objectStreams: false }), signer, {});
    const touched = appendRevision(signed, (doc) => {
      const info = doc.trailer.get('Info') as PdfRef;
      return [{ num: info.num, gen: 0, value: doc.dict(info)!.clone().set('ModDate', new PdfString(Buffer.from("D:20260101000000+00'00'"))) }];
    });
    expect(verify(touched)[0]).toMatchObject({ modification: 'none', valid: true, coversWholeFile: false });
  });

  it('holds a certification’s DocMDP: P=2 allows a signature but not an annotation', async () => {
    // A certified document (§12.8.2.2): /Perms /DocMDP names the certification signature's
    // dictionary; with no /TransformParams its /P is 2 (form filling and signing). Sello does
    // not certify, so the revision names in advance the number its signature dictionary will
    // take: /Size, the first number after the file's (§7.5.5). The name sits in a separate
    // /Perms object: Sello never gives a new object a number that an object it rewrites (here
    // the catalog) refers to.
    const base = await makePdf({ objectStreams: false });
    const certifiable = appendRevision(base, (doc, alloc) => {
      const perms = alloc();
      return [
        { num: perms.num, gen: 0, value: new PdfDict([['DocMDP', new PdfRef(perms.num + 1, 0)]]) },
        { num: doc.catalog().ref.num, gen: 0, value: doc.catalog().dict.clone().set('Perms', perms) },
      ];
    });
    const certified = await signPdf(certifiable, signer, {});
    const [cert] = verify(certified);
    expect(cert).toMatchObject({ docMdp: 2, valid: true });

    const signedAgain = await signPdf(certified, signer, {});
    expect(verify(signedAgain)[0]).toMatchObject({ modification: 'signatures', valid: true });

    const annotated = appendRevision(certified, (doc, alloc) => {
      const p = page(doc);
      const note = alloc();
      return [
        { num: note.num, gen: 0, value: new PdfDict([['Type', name('Annot')], ['Subtype', name('Text')], ['Rect', [100, 100, 120, 120]]]) },
        { num: p.ref.num, gen: 0, value: p.dict.clone().set('Annots', [...(doc.array(p.dict.get('Annots')) ?? []), note]) },
      ];
    });
    const [r] = verify(annotated);
    expect(r).toMatchObject({ intact: true, modification: 'annotations', valid: false });
    expect(r!.modificationProblem).toMatch(/DocMDP P=2.*anotaciones/);
  });
});
