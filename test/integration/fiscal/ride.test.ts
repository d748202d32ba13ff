/**
 * The RIDE judged by real readers (issue 16, acceptance): poppler renders it and zbar reads the
 * Code 128 back as the 49-digit access key; pdftotext finds what the RIDE must print; qpdf finds
 * the file sound.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { COD_DOC } from '../../../core/fiscal/sri/access-key.js';
import type { ComputedCreditNote, ComputedDebitNote, DebitReason, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import type { ComputedRemissionGuide, GuideGood } from '../../../core/fiscal/sri/remission-guide-model.js';
import type { ComputedWithholding } from '../../../core/fiscal/sri/withholding-model.js';
import { renderRide, type RideData } from '../../../core/fiscal/sri/ride.js';
import { qpdfCheck } from '../../helpers/pdf-tools.js';
import { SAMPLE_CEDULA, SAMPLE_ISSUE_DATE, sampleAuthorization, sampleDescription, sampleInvoice, sampleIssuer, sampleNumbering } from '../../helpers/sri-invoices.js';

const run = promisify(execFile);

async function withPdf<T>(pdf: Buffer, fn: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sello-ride-'));
  try {
    const file = path.join(dir, 'ride.pdf');
    await writeFile(file, pdf);
    return await fn(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every Code 128 zbar finds on page `page` rendered at `dpi` (`pdftoppm -r dpi -png`). */
async function readBarcodes(pdf: Buffer, page = 1, dpi = 200, extra: string[] = []): Promise<string[]> {
  return withPdf(pdf, async (file, dir) => {
    const out = path.join(dir, 'page');
    await run('pdftoppm', ['-r', String(dpi), '-png', ...extra, '-f', String(page), '-l', String(page), '-singlefile', file, out]);
    try {
      const r = await run('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', `${out}.png`]);
      return r.stdout.split('\n').filter((l) => l !== '');
    } catch {
      return []; // zbarimg exits 4 when it finds nothing
    }
  });
}

/** `pdftotext -layout` (columns kept) or `-raw` (content-stream order), of one page or all. */
async function pdfText(pdf: Buffer, mode: 'layout' | 'raw' = 'layout', page?: number): Promise<string> {
  return withPdf(pdf, async (file) => {
    const pages = page ? ['-f', String(page), '-l', String(page)] : [];
    const r = await run('pdftotext', [`-${mode}`, '-enc', 'UTF-8', ...pages, file, '-']);
    return r.stdout;
  });
}

async function pageCount(pdf: Buffer): Promise<number> {
  return withPdf(pdf, async (file) => {
    const r = await run('pdfinfo', [file]);
    return Number(/^Pages:\s+(\d+)/m.exec(r.stdout)?.[1]);
  });
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ');
const occurrences = (text: string, needle: string): number => text.split(needle).length - 1;

function rideData(overrides: Partial<RideData> = {}): RideData {
  const numbering = sampleNumbering();
  return {
    kind: 'invoice',
    issuer: sampleIssuer(),
    document: sampleInvoice(3),
    numbering,
    authorization: sampleAuthorization(numbering),
    environment: 'PRUEBAS',
    emission: 'NORMAL',
    ...overrides,
  };
}

/** The sample invoice returned whole as a nota de crédito: no payments nor tip, plus the factura it modifies and why. */
function sampleCreditNote(lines = 3, reason = 'Devolución de la mercadería por defectos de fábrica'): ComputedCreditNote {
  const { payments: _payments, tip: _tip, ...rest } = sampleInvoice(lines);
  return { ...rest, modified: { codDoc: '01', numero: '001-001-000000012', issueDate: '2025-03-10', documentId: null }, reason };
}

/** A nota de crédito's numbering: codDoc 04 in its access key. */
const creditNoteNumbering = (): Numbering => sampleNumbering({ codDoc: COD_DOC.notaCredito, secuencial: '000000045' });

function creditNoteData(document: ComputedCreditNote = sampleCreditNote()): RideData {
  const numbering = creditNoteNumbering();
  return rideData({ kind: 'credit_note', document, numbering, authorization: sampleAuthorization(numbering) });
}

/** IVA 15 % and 0 % of a nota de débito's reasons and totals (codigo 2; codigoPorcentaje 4 and 0). */
const IVA_15 = { type: 'ec-iva-15', codigo: '2', codigoPorcentaje: '4', tarifa: '15' } as const;
const IVA_0 = { type: 'ec-iva-0', codigo: '2', codigoPorcentaje: '0', tarifa: '0' } as const;

/**
 * A nota de débito on the factura 001-001-000000012, written by hand: interest at 0 % and
 * collection costs at 15 % (2.3475 → 2.35), 16.31 + 2.35 = 18.66, paid in cash.
 */
function sampleDebitNote(): ComputedDebitNote {
  const { customer, additionalInfo } = sampleInvoice(1);
  return {
    issueDate: SAMPLE_ISSUE_DATE,
    establishment: '001',
    emissionPoint: '001',
    currency: 'USD',
    customer,
    reasons: [
      { reason: 'Intereses por mora', amount: '0.66', taxes: [{ ...IVA_0, baseImponible: '0.66', valor: '0.00' }] },
      { reason: 'Gastos de cobranza', amount: '15.65', taxes: [{ ...IVA_15, baseImponible: '15.65', valor: '2.35' }] },
    ],
    totalWithoutTaxes: '16.31',
    taxTotals: [
      { ...IVA_15, baseImponible: '15.65', valor: '2.35' },
      { ...IVA_0, baseImponible: '0.66', valor: '0.00' },
    ],
    grandTotal: '18.66',
    payments: [{ method: '01', amount: '18.66' }],
    additionalInfo,
    modified: { codDoc: '01', numero: '001-001-000000012', issueDate: '2025-03-10', documentId: null },
  };
}

const LONG_DEBIT_REASON =
  'Recargo por reposición de mercadería entregada fuera de plazo: transporte adicional desde la bodega de Guayaquil, ' +
  'seguro de la carga y maniobras de descarga, según la cláusula 7 del contrato de suministro firmado el 3 de enero de 2025';

/** Reason n (1-based) of a long nota de débito: every seventh one long enough to wrap. */
function debitReasonText(n: number): string {
  return n % 7 === 0 ? `${LONG_DEBIT_REASON} (razón ${n})` : `Intereses por mora de la cuota ${n}`;
}

/** A nota de débito of `count` reasons of 1.00 each at IVA 0 %, without payments. */
function longDebitNote(count: number): ComputedDebitNote {
  const reasons: DebitReason[] = Array.from({ length: count }, (_, i) => ({
    reason: debitReasonText(i + 1),
    amount: '1.00',
    taxes: [{ ...IVA_0, baseImponible: '1.00', valor: '0.00' }],
  }));
  const total = `${count}.00`;
  return { ...sampleDebitNote(), reasons, totalWithoutTaxes: total, taxTotals: [{ ...IVA_0, baseImponible: total, valor: '0.00' }], grandTotal: total, payments: [] };
}

/** A nota de débito's numbering: codDoc 05 in its access key. */
const debitNoteNumbering = (): Numbering => sampleNumbering({ codDoc: COD_DOC.notaDebito, secuencial: '000000078' });

function debitNoteData(document: ComputedDebitNote = sampleDebitNote()): RideData {
  const numbering = debitNoteNumbering();
  return rideData({ kind: 'debit_note', document, numbering, authorization: sampleAuthorization(numbering) });
}

/** A guía de remisión's numbering: codDoc 06 in its access key. */
const guideNumbering = (): Numbering => sampleNumbering({ codDoc: COD_DOC.guiaRemision, secuencial: '000000031' });

/** The factura that supports the first recipient's goods: 001-001-000000120 of 12/03/2025. */
const SUPPORT_INVOICE = sampleNumbering({ secuencial: '000000120', issueDate: '2025-03-12' });

const LONG_GOOD =
  'Varilla corrugada de acero de 12 mm por 12 m, norma INEN 2167, en atados de 50 unidades sujetos con alambre galvanizado ' +
  'y etiquetados con el número de colada';

/** Good n (1-based) of a guide, tagged "Bien n:" at its start: every fifth long enough to wrap, every other one with an additional code. */
function guideGood(n: number): GuideGood {
  return {
    code: `MAT-${String(n).padStart(4, '0')}`,
    additionalCode: n % 2 === 0 ? `AUX-${n}` : undefined,
    description: `Bien ${n}: ${n % 5 === 0 ? LONG_GOOD : 'Saco de cemento Portland tipo GU de 50 kg'}`,
    quantity: n === 1 ? '12.500000' : String((n % 7) + 1),
  };
}

const FIRST_RECIPIENT = 'María José Núñez Peñaherrera';
const SECOND_RECIPIENT = 'Ferretería El Constructor Cía. Ltda.';

/**
 * A guide to two recipients with `goods` goods each, numbered on from the first: the first buys
 * them with a factura and has a route and a destination establishment; the second receives them
 * in consignment, without a support document, with a customs document.
 */
function sampleGuide(goods: [number, number] = [3, 2]): ComputedRemissionGuide {
  let n = 0;
  const goodsOf = (count: number): GuideGood[] => Array.from({ length: count }, () => guideGood(++n));
  return {
    issueDate: SAMPLE_ISSUE_DATE,
    establishment: '001',
    emissionPoint: '001',
    departureAddress: 'Bodega central, Av. Maldonado S12-34, Quito',
    carrier: { name: 'Transportes del Sur S.A.', taxId: '1790011674001', idType: 'ec-ruc', idTypeCode: '04' },
    plate: 'PBA-1234',
    transportStart: '2025-03-14',
    transportEnd: '2025-03-17',
    recipients: [
      {
        name: FIRST_RECIPIENT,
        taxId: SAMPLE_CEDULA,
        idType: 'ec-cedula',
        idTypeCode: '05',
        address: 'Calle Sucre 1-23 y Bolívar, Cuenca',
        reason: 'Venta de mercadería',
        route: 'Quito - Riobamba - Cuenca',
        destinationEstablishment: '002',
        supportDocument: { codDoc: '01', numero: SUPPORT_INVOICE.numero, issueDate: '2025-03-12', authorizationNumber: SUPPORT_INVOICE.accessKey, documentId: null },
        goods: goodsOf(goods[0]),
      },
      {
        name: SECOND_RECIPIENT,
        taxId: '0190123456001',
        idType: 'ec-ruc',
        idTypeCode: '04',
        address: 'Av. de las Américas 4-56, Cuenca',
        reason: 'Entrega en consignación',
        customsDocument: '028-2025-10-00012345',
        goods: goodsOf(goods[1]),
      },
    ],
    additionalInfo: [{ name: 'Observación', value: 'Descargar en el andén 3, de 08h00 a 17h00' }],
  };
}

function guideData(document: ComputedRemissionGuide = sampleGuide()): RideData {
  const numbering = guideNumbering();
  return rideData({ kind: 'remission_guide', document, numbering, authorization: sampleAuthorization(numbering) });
}

const GOODS_HEADER = /Cantidad\s+Descripción\s+Código Principal\s+Código Auxiliar/g;

/** The numbers n of the goods whose "Bien n:" `text` shows. */
function goodsIn(text: string): number[] {
  return [...text.matchAll(/Bien (\d+):/g)].map((m) => Number(m[1]));
}

describe('renderRide: a three-line invoice', () => {
  const invoice = sampleInvoice(3);
  const data = rideData({ document: invoice });
  let pdf: Buffer;
  let text: string;
  beforeAll(async () => {
    pdf = await renderRide(data);
    text = await pdfText(pdf);
  });

  it('carries the access key as a Code 128 that zbar reads back exactly', async () => {
    expect(data.numbering.accessKey).toMatch(/^\d{49}$/);
    expect(await readBarcodes(pdf)).toEqual([data.numbering.accessKey]);
  });

  it('still reads at 150 dpi and without anti-aliasing (as a printer draws it)', async () => {
    expect(await readBarcodes(pdf, 1, 150)).toEqual([data.numbering.accessKey]);
    expect(await readBarcodes(pdf, 1, 200, ['-aa', 'no', '-aaVector', 'no'])).toEqual([data.numbering.accessKey]);
  });

  it('prints the issuer, with its accents', async () => {
    // Wrapped fields read whole in content order (-raw); -layout interleaves the two columns.
    const raw = collapse(await pdfText(pdf, 'raw'));
    expect(raw).toContain('Comercializadora Andina Pérez & Asociados S.A.');
    expect(text).toContain('Café Ñusta');
    expect(raw).toContain('Dirección Matriz: Av. Amazonas N34-451 y Atahualpa, Quito');
    expect(raw).toContain('Av. 9 de Octubre 1215 y Pedro Moncayo, Guayaquil');
    expect(text).toMatch(/Contribuyente\s.*5368/);
    expect(text).toMatch(/OBLIGADO A LLEVAR\s+SI/);
    expect(text).not.toContain('RIMPE');
  });

  it('prints the document block: RUC, FACTURA, number, authorization, ambiente, emisión, access key', () => {
    expect(text).toContain('R.U.C.: 1790012344001');
    expect(text).toContain('FACTURA');
    expect(text).toContain('No. 001-001-000000123');
    expect(text).toContain('NÚMERO DE AUTORIZACIÓN');
    expect(occurrences(text, data.numbering.accessKey)).toBe(2); // authorization number and the key under the bars
    expect(text).toContain('14/03/2025 10:15:30');
    expect(text).toMatch(/AMBIENTE:\s+PRUEBAS/);
    expect(text).toMatch(/EMISIÓN:\s+NORMAL/);
    expect(text).toContain('CLAVE DE ACCESO');
  });

  it('prints the buyer', () => {
    expect(text).toContain('María José Núñez Peñaherrera');
    expect(text).toMatch(/Identificación:\s+1712345675/);
    expect(text).toMatch(/Fecha de Emisión:\s+14\/03\/2025/);
    expect(text).toContain('Calle Sucre 1-23 y Bolívar, Cuenca');
  });

  it('prints every line with its amounts', () => {
    for (const line of invoice.lines) {
      expect(text).toContain(line.description);
      expect(text).toMatch(new RegExp(`${line.code}\\s+\\d+\\.\\d{2}\\s+.*${line.subtotal.replace('.', '\\.')}`));
    }
    expect(text).toMatch(/P0001\s+2\.00\s+Asesoría contable mensual \(línea 1\)\s+10\.37\s+0\.00\s+20\.74/);
  });

  it('prints the totals, payments and additional information', () => {
    for (const [label, value] of [
      ['SUBTOTAL 15%', '20.74'],
      ['SUBTOTAL 5%', '44.44'],
      ['SUBTOTAL 0%', '32.22'],
      ['SUBTOTAL NO OBJETO DE IVA', '0.00'],
      ['SUBTOTAL EXENTO DE IVA', '0.00'],
      ['SUBTOTAL SIN IMPUESTOS', '97.40'],
      ['TOTAL DESCUENTO', '0.00'],
      ['ICE', '0.00'],
      ['IVA 15%', '3.11'],
      ['IVA 5%', '2.22'],
      ['PROPINA', '0.00'],
      ['VALOR TOTAL', '102.73'],
    ]) {
      expect(text).toMatch(new RegExp(`${label}\\s+${value}`));
    }
    expect(text).toMatch(/01 - SIN UTILIZACIÓN DEL SISTEMA\s+10\.00/);
    expect(text).toMatch(/20 - OTROS CON UTILIZACIÓN DEL SISTEMA\s+92\.73\s+30 dias/);
    expect(text).toContain('Información Adicional');
    expect(text).toMatch(/Observación\s+Entrega en la bodega de Guayaquil/);
  });

  it('is one A4 page, numbered, that qpdf finds sound', async () => {
    expect(await pageCount(pdf)).toBe(1);
    expect(text).toContain('Página 1 de 1');
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
    const size = await withPdf(pdf, async (file) => (await run('pdfinfo', [file])).stdout);
    expect(size).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
  });

  it('gives the same bytes for the same data, dated by the authorization', async () => {
    const again = await renderRide(rideData());
    expect(again.equals(pdf)).toBe(true);
    expect(pdf.toString('latin1')).toContain('/CreationDate (D:20250314151530Z)');
  });
});

describe('renderRide: before authorization, in production, for a RIMPE issuer', () => {
  it('says PENDIENTE, PRODUCCIÓN and the RIMPE legend, and is dated by the issue date', async () => {
    const numbering = sampleNumbering({ ambiente: 2 });
    const data = rideData({
      numbering,
      authorization: undefined,
      environment: 'PRODUCCIÓN',
      issuer: sampleIssuer({ regimen: 'rimpe_negocio_popular', obligado_contabilidad: false, contribuyente_especial: undefined, agente_retencion: '1' }),
    });
    const pdf = await renderRide(data);
    const text = await pdfText(pdf);
    expect(text).toMatch(/NÚMERO DE AUTORIZACIÓN\n.*PENDIENTE/);
    expect(text).toMatch(/AUTORIZACIÓN:\s+PENDIENTE/);
    expect(text).toMatch(/AMBIENTE:\s+PRODUCCIÓN/);
    expect(text).toContain('CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE');
    expect(text).toMatch(/OBLIGADO A LLEVAR\s+NO/);
    expect(text).toMatch(/Agente de Retención\s+1/);
    expect(text).not.toContain('Contribuyente Especial');
    expect(occurrences(text, numbering.accessKey)).toBe(1);
    expect(await readBarcodes(pdf)).toEqual([numbering.accessKey]);
    expect(pdf.toString('latin1')).toContain('/CreationDate (D:20250314050000Z)');
  });
});

describe('renderRide: 120 lines', () => {
  const invoice = sampleInvoice(120);
  const data = rideData({ document: invoice });
  let pdf: Buffer;
  let pages: number;
  beforeAll(async () => {
    pdf = await renderRide(data);
    pages = await pageCount(pdf);
  });

  it('runs over several numbered pages, each with the table header while lines go on', async () => {
    expect(pages).toBeGreaterThanOrEqual(3);
    let linesSeen = 0;
    for (let p = 1; p <= pages; p++) {
      const text = await pdfText(pdf, 'layout', p);
      expect(text).toContain(`Página ${p} de ${pages}`);
      expect(text).toContain('001-001-000000123');
      const here = invoice.lines.filter((l) => text.includes(`(línea ${l.code.slice(1).replace(/^0+/, '')})`)).length;
      if (here > 0) expect(text).toMatch(/Cód\. Principal\s+Cant\.\s+Descripción\s+Precio Unitario\s+Descuento\s+Precio Total/);
      if (p > 1) expect(text).toContain(`Clave de acceso: ${data.numbering.accessKey}`);
      linesSeen += here;
    }
    expect(linesSeen).toBe(120);
  });

  it('prints each line once, in order, and the totals after the last one', async () => {
    const raw = collapse(await pdfText(pdf, 'raw'));
    let from = 0;
    for (let n = 1; n <= 120; n++) {
      const description = sampleDescription(n);
      expect(occurrences(raw, description), description).toBe(1);
      const at = raw.indexOf(description);
      expect(at).toBeGreaterThan(from);
      from = at;
    }
    expect(occurrences(raw, 'VALOR TOTAL')).toBe(1);
    expect(raw.indexOf('VALOR TOTAL')).toBeGreaterThan(from);
    const last = await pdfText(pdf, 'layout', pages);
    expect(last).toMatch(new RegExp(`VALOR TOTAL\\s+${invoice.grandTotal.replace('.', '\\.')}`));
  });

  it('keeps the barcode readable on page 1, and none elsewhere', async () => {
    expect(await readBarcodes(pdf, 1)).toEqual([data.numbering.accessKey]);
    expect(await readBarcodes(pdf, 2)).toEqual([]);
  });

  it('renders every page, and qpdf finds the file sound', async () => {
    for (let p = 1; p <= pages; p++) expect((await pdfText(pdf, 'raw', p)).length).toBeGreaterThan(100);
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });
});

describe('renderRide: hostile text', () => {
  it('prints characters outside WinAnsi as "?" instead of failing', async () => {
    const invoice = sampleInvoice(2);
    invoice.lines[0]!.description = 'Resistencia 10 Ω € ±5%';
    invoice.lines[1]!.description = 'Té verde 🍵 de Baños';
    invoice.customer.name = 'Иван Petrović';
    invoice.additionalInfo.push({ name: 'Nota ✓', value: 'ok\u0000\u200b' });
    const data = rideData({ document: invoice });
    const pdf = await renderRide(data);
    const text = await pdfText(pdf);
    expect(text).toContain('Resistencia 10 ? € ±5%');
    expect(text).toContain('Té verde ? de Baños');
    expect(text).toContain('???? Petrovi?');
    expect(text).toMatch(/Nota \?\s+ok\?\?/);
    expect(await readBarcodes(pdf)).toEqual([data.numbering.accessKey]);
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });

  it('cuts unbroken words and carries a line taller than a page across pages', async () => {
    const invoice = sampleInvoice(3);
    const word = `SKU${'0123456789'.repeat(30)}`;
    invoice.lines[0]!.code = 'CODIGO-MUY-LARGO-SIN-ESPACIOS-0001';
    invoice.lines[0]!.description = word;
    const words = Array.from({ length: 1500 }, (_, i) => `palabra${i}`);
    invoice.lines[1]!.description = words.join(' ');
    const data = rideData({ document: invoice });
    const pdf = await renderRide(data);
    expect(await pageCount(pdf)).toBeGreaterThanOrEqual(2);
    const raw = await pdfText(pdf, 'raw');
    expect(raw.replace(/\s+/g, '')).toContain(word);
    expect(raw.replace(/\s+/g, '')).toContain('CODIGO-MUY-LARGO-SIN-ESPACIOS-0001');
    const tokens = raw.split(/\s+/);
    for (const w of words) expect(tokens.filter((t) => t === w).length, w).toBe(1);
    expect(collapse(raw)).toContain(invoice.lines[2]!.description);
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });
});

describe('renderRide: a credit note', () => {
  const data = creditNoteData();
  let pdf: Buffer;
  let text: string;
  beforeAll(async () => {
    pdf = await renderRide(data);
    text = await pdfText(pdf);
  });

  it('is titled NOTA DE CRÉDITO with its number, in the document box, the footer and the metadata', async () => {
    expect(text).toContain('NOTA DE CRÉDITO');
    expect(text).toContain('No. 001-001-000000045');
    expect(text).toContain('NOTA DE CRÉDITO 001-001-000000045'); // the footer
    expect(occurrences(text, 'FACTURA')).toBe(1); // only the factura it modifies
    const info = await withPdf(pdf, async (file) => (await run('pdfinfo', [file])).stdout);
    expect(info).toMatch(/^Title:\s+NOTA DE CRÉDITO 001-001-000000045$/m);
  });

  it('carries its access key (codDoc 04) as a Code 128 that zbar reads back exactly', async () => {
    expect(data.numbering.accessKey).toMatch(/^\d{8}04\d{39}$/);
    expect(await readBarcodes(pdf)).toEqual([data.numbering.accessKey]);
  });

  it('names the factura it modifies, its date and the reason, after the buyer', async () => {
    expect(text).toMatch(/Comprobante que se modifica:\s+FACTURA 001-001-000000012/);
    expect(text).toMatch(/Fecha Emisión \(Comprobante a modificar\):\s+10\/03\/2025/);
    expect(text).toMatch(/Razón de Modificación:\s+Devolución de la mercadería por defectos de fábrica/);
    const raw = collapse(await pdfText(pdf, 'raw'));
    expect(raw.indexOf('Comprobante que se modifica')).toBeGreaterThan(raw.indexOf('Correo electrónico'));
    expect(raw.indexOf('Comprobante que se modifica')).toBeLessThan(raw.indexOf('Cód. Principal'));
  });

  it('prints the lines and totals ending in VALOR TOTAL, without PROPINA or payments', () => {
    expect(text).toMatch(/P0001\s+2\.00\s+Asesoría contable mensual \(línea 1\)\s+10\.37\s+0\.00\s+20\.74/);
    expect(text).toMatch(/SUBTOTAL SIN IMPUESTOS\s+97\.40/);
    expect(text).toMatch(/IVA 15%\s+3\.11/);
    expect(text).toMatch(/VALOR TOTAL\s+102\.73/);
    expect(text).not.toContain('PROPINA');
    expect(text).not.toContain('Forma de pago');
    expect(text).not.toContain('SIN UTILIZACIÓN DEL SISTEMA');
    expect(text).toContain('Información Adicional');
  });

  it('is one A4 page that qpdf finds sound', async () => {
    expect(await pageCount(pdf)).toBe(1);
    expect(text).toContain('Página 1 de 1');
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });

  it('wraps a long reason beside its label, whole and once', async () => {
    const reason =
      'Anulación parcial por devolución de mercadería: el cliente devolvió las unidades de la línea 2 por defectos de fábrica ' +
      'detectados en la recepción en la bodega de Guayaquil, según el acta de entrega firmada el 12 de marzo de 2025 por ambas partes.';
    const pdf = await renderRide(creditNoteData(sampleCreditNote(3, reason)));
    const layout = await pdfText(pdf);
    expect(layout).not.toContain(reason); // more than one line
    expect(layout).toMatch(/Razón de Modificación:\s+Anulación parcial/);
    const raw = collapse(await pdfText(pdf, 'raw'));
    expect(raw).toContain(`Razón de Modificación: ${reason}`);
    expect(occurrences(raw, 'por ambas partes.')).toBe(1);
    expect(await readBarcodes(pdf)).toEqual([creditNoteNumbering().accessKey]);
  });

  it('names itself on continuation pages', async () => {
    const pdf = await renderRide(creditNoteData(sampleCreditNote(120)));
    const pages = await pageCount(pdf);
    expect(pages).toBeGreaterThanOrEqual(3);
    for (let p = 2; p <= pages; p++) {
      const page = await pdfText(pdf, 'layout', p);
      expect(page).toContain('NOTA DE CRÉDITO No. 001-001-000000045');
      expect(page).toContain('NOTA DE CRÉDITO 001-001-000000045'); // the footer
    }
  });

  it('is refused when the kind and the document disagree', async () => {
    await expect(renderRide(rideData({ kind: 'credit_note' }))).rejects.toThrow('los datos no son los de la nota de crédito');
    await expect(renderRide({ ...creditNoteData(), kind: 'invoice' })).rejects.toThrow('los datos no son los de la factura');
  });

  it('leaves an invoice without any of it', async () => {
    const invoice = await pdfText(await renderRide(rideData()));
    expect(invoice).not.toContain('Comprobante que se modifica');
    expect(invoice).not.toContain('Razón de Modificación');
  });
});

describe('renderRide: a debit note', () => {
  const data = debitNoteData();
  let pdf: Buffer;
  let text: string;
  beforeAll(async () => {
    pdf = await renderRide(data);
    text = await pdfText(pdf);
  });

  it('is titled NOTA DE DÉBITO with its number, in the document box, the footer and the metadata', async () => {
    expect(text).toContain('NOTA DE DÉBITO');
    expect(text).toContain('No. 001-001-000000078');
    expect(text).toContain('NOTA DE DÉBITO 001-001-000000078'); // the footer
    expect(occurrences(text, 'FACTURA')).toBe(1); // only the factura it modifies
    expect(text).not.toContain('NOTA DE CRÉDITO');
    const info = await withPdf(pdf, async (file) => (await run('pdfinfo', [file])).stdout);
    expect(info).toMatch(/^Title:\s+NOTA DE DÉBITO 001-001-000000078$/m);
  });

  it('carries its access key (codDoc 05) as a Code 128 that zbar reads back exactly', async () => {
    expect(data.numbering.accessKey).toMatch(/^\d{8}05\d{39}$/);
    expect(await readBarcodes(pdf)).toEqual([data.numbering.accessKey]);
  });

  it('names the factura it modifies and its date after the buyer, without a single reason', async () => {
    expect(text).toMatch(/Comprobante que se modifica:\s+FACTURA 001-001-000000012/);
    expect(text).toMatch(/Fecha Emisión \(Comprobante a modificar\):\s+10\/03\/2025/);
    expect(text).not.toContain('Razón de Modificación');
    const raw = collapse(await pdfText(pdf, 'raw'));
    expect(raw.indexOf('Comprobante que se modifica')).toBeGreaterThan(raw.indexOf('Correo electrónico'));
    expect(raw.indexOf('Comprobante que se modifica')).toBeLessThan(raw.indexOf('RAZÓN DE LA MODIFICACIÓN'));
  });

  it('prints its reasons and their values instead of lines', () => {
    expect(text).toMatch(/RAZÓN DE LA MODIFICACIÓN\s+VALOR DE LA MODIFICACIÓN/);
    expect(text).toMatch(/Intereses por mora\s+0\.66/);
    expect(text).toMatch(/Gastos de cobranza\s+15\.65/);
    expect(text).not.toContain('Cód. Principal');
    expect(text).not.toContain('Precio Unitario');
  });

  it('prints the totals ending in VALOR TOTAL, without TOTAL DESCUENTO or PROPINA', async () => {
    for (const [label, value] of [
      ['SUBTOTAL 15%', '15.65'],
      ['SUBTOTAL 0%', '0.66'],
      ['SUBTOTAL NO OBJETO DE IVA', '0.00'],
      ['SUBTOTAL EXENTO DE IVA', '0.00'],
      ['SUBTOTAL SIN IMPUESTOS', '16.31'],
      ['ICE', '0.00'],
      ['IVA 15%', '2.35'],
      ['VALOR TOTAL', '18.66'],
    ]) {
      expect(text).toMatch(new RegExp(`${label}\\s+${value}`));
    }
    expect(text).not.toContain('PROPINA');
    expect(text).not.toContain('TOTAL DESCUENTO');
    const raw = collapse(await pdfText(pdf, 'raw'));
    expect(raw).toContain('SUBTOTAL SIN IMPUESTOS 16.31 ICE 0.00 IVA 15% 2.35 VALOR TOTAL 18.66');
  });

  it('prints its payments and additional information as an invoice does', () => {
    expect(text).toMatch(/Forma de pago\s+Valor\s+Plazo/);
    expect(text).toMatch(/01 - SIN UTILIZACIÓN DEL SISTEMA\s+18\.66/);
    expect(text).toContain('Información Adicional');
    expect(text).toMatch(/Observación\s+Entrega en la bodega de Guayaquil/);
  });

  it('is one A4 page that qpdf finds sound', async () => {
    expect(await pageCount(pdf)).toBe(1);
    expect(text).toContain('Página 1 de 1');
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });

  it('is refused when the kind and the document disagree', async () => {
    await expect(renderRide(rideData({ kind: 'debit_note' }))).rejects.toThrow('los datos no son los de la nota de débito');
    await expect(renderRide({ ...creditNoteData(), kind: 'debit_note' })).rejects.toThrow('los datos no son los de la nota de débito');
    await expect(renderRide({ ...debitNoteData(), kind: 'credit_note' })).rejects.toThrow('los datos no son los de la nota de crédito');
    await expect(renderRide({ ...debitNoteData(), kind: 'invoice' })).rejects.toThrow('los datos no son los de la factura');
  });
});

describe('renderRide: a debit note of 90 reasons', () => {
  const document = longDebitNote(90);
  const data = debitNoteData(document);
  let pdf: Buffer;
  let pages: number;
  beforeAll(async () => {
    pdf = await renderRide(data);
    pages = await pageCount(pdf);
  });

  it('runs over numbered pages, each with the reasons header while reasons go on, naming itself', async () => {
    expect(pages).toBeGreaterThanOrEqual(2);
    let reasonsSeen = 0;
    for (let p = 1; p <= pages; p++) {
      const text = await pdfText(pdf, 'layout', p);
      expect(text).toContain(`Página ${p} de ${pages}`);
      expect(text).toContain('NOTA DE DÉBITO 001-001-000000078'); // the footer
      const here = document.reasons.filter((_, i) => new RegExp(`(cuota|razón) ${i + 1}\\b`).test(text)).length;
      if (here > 0) expect(text).toMatch(/RAZÓN DE LA MODIFICACIÓN\s+VALOR DE LA MODIFICACIÓN/);
      if (p > 1) {
        expect(text).toContain('NOTA DE DÉBITO No. 001-001-000000078');
        expect(text).toContain(`Clave de acceso: ${data.numbering.accessKey}`);
      }
      reasonsSeen += here;
    }
    expect(reasonsSeen).toBe(90);
    expect(await readBarcodes(pdf, 1)).toEqual([data.numbering.accessKey]);
  });

  it('prints each reason once, in order, long ones wrapped, and the totals after the last one', async () => {
    const raw = collapse(await pdfText(pdf, 'raw'));
    let from = 0;
    for (let n = 1; n <= 90; n++) {
      const reason = `${debitReasonText(n)} 1.00`; // the value after it: "cuota 1" is also the start of "cuota 10"
      expect(occurrences(raw, reason), reason).toBe(1);
      const at = raw.indexOf(reason);
      expect(at).toBeGreaterThan(from);
      from = at;
    }
    expect(await pdfText(pdf)).not.toContain(LONG_DEBIT_REASON); // more than one line
    expect(raw.indexOf('VALOR TOTAL')).toBeGreaterThan(from);
    const last = await pdfText(pdf, 'layout', pages);
    expect(last).toMatch(/VALOR TOTAL\s+90\.00/);
  });

  it('prints no payments when it has none, and qpdf finds the file sound', async () => {
    expect(await pdfText(pdf)).not.toContain('Forma de pago');
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });
});

describe('renderRide: a guía de remisión', () => {
  const document = sampleGuide();
  const data = guideData(document);
  let pdf: Buffer;
  let text: string;
  let raw: string;
  beforeAll(async () => {
    pdf = await renderRide(data);
    text = await pdfText(pdf);
    raw = collapse(await pdfText(pdf, 'raw'));
  });

  it('is titled GUÍA DE REMISIÓN with its number, in the document box, the footer and the metadata', async () => {
    expect(text).toContain('GUÍA DE REMISIÓN');
    expect(text).toContain('No. 001-001-000000031');
    expect(text).toContain('GUÍA DE REMISIÓN 001-001-000000031'); // the footer
    expect(text).toMatch(/AMBIENTE:\s+PRUEBAS/);
    expect(text).toMatch(/EMISIÓN:\s+NORMAL/);
    expect(occurrences(text, data.numbering.accessKey)).toBe(2); // authorization number and the key under the bars
    const info = await withPdf(pdf, async (file) => (await run('pdfinfo', [file])).stdout);
    expect(info).toMatch(/^Title:\s+GUÍA DE REMISIÓN 001-001-000000031$/m);
  });

  it('carries its access key (codDoc 06) as a Code 128 that zbar reads back exactly', async () => {
    expect(data.numbering.accessKey).toMatch(/^\d{8}06\d{39}$/);
    expect(await readBarcodes(pdf)).toEqual([data.numbering.accessKey]);
  });

  it('prints the transport instead of a buyer', () => {
    expect(text).toMatch(/Identificación \(Transportista\):\s+1790011674001/);
    expect(text).toMatch(/Razón Social \/ Nombres y Apellidos:\s+Transportes del Sur S\.A\./);
    expect(text).toMatch(/Placa:\s+PBA-1234/);
    expect(text).toMatch(/Punto de Partida:\s+Bodega central, Av\. Maldonado S12-34, Quito/);
    expect(text).toMatch(/Fecha Inicio Transporte:\s+14\/03\/2025\s+Fecha Fin Transporte:\s+17\/03\/2025/);
    expect(text).not.toContain('Correo electrónico');
    expect(text).not.toMatch(/Identificación:/);
  });

  it('prints the first recipient with the factura that supports its goods', () => {
    expect(text).toMatch(/Comprobante de Venta:\s+FACTURA 001-001-000000120\s+Fecha de Emisión:\s+12\/03\/2025/);
    expect(text).toMatch(new RegExp(`Número de Autorización:\\s+${SUPPORT_INVOICE.accessKey}`));
    expect(text).toMatch(/Motivo Traslado:\s+Venta de mercadería/);
    expect(text).toMatch(/Destino \(Punto de llegada\):\s+Calle Sucre 1-23 y Bolívar, Cuenca/);
    expect(text).toMatch(/Identificación \(Destinatario\):\s+1712345675/);
    expect(text).toMatch(new RegExp(`Razón Social / Nombres Apellidos:\\s+${FIRST_RECIPIENT}`));
    expect(text).toMatch(/Código Establecimiento Destino:\s+002/);
    expect(text).toMatch(/Ruta:\s+Quito - Riobamba - Cuenca/);
  });

  it('prints the second recipient without the lines it has no value for', () => {
    expect(text).toMatch(/Motivo Traslado:\s+Entrega en consignación/);
    expect(text).toMatch(/Destino \(Punto de llegada\):\s+Av\. de las Américas 4-56, Cuenca/);
    expect(text).toMatch(/Identificación \(Destinatario\):\s+0190123456001/);
    expect(text).toMatch(new RegExp(`Razón Social / Nombres Apellidos:\\s+${SECOND_RECIPIENT}`));
    expect(text).toMatch(/Documento Aduanero:\s+028-2025-10-00012345/);
    // Each of these once: the recipient that has it, never an empty line for the other.
    for (const label of ['Comprobante de Venta:', 'Fecha de Emisión:', 'Número de Autorización:', 'Documento Aduanero:', 'Código Establecimiento Destino:', 'Ruta:']) {
      expect(occurrences(text, label), label).toBe(1);
    }
    for (const label of ['Motivo Traslado:', 'Destino (Punto de llegada):', 'Identificación (Destinatario):', 'Razón Social / Nombres Apellidos:']) {
      expect(occurrences(text, label), label).toBe(2);
    }
  });

  it('prints each recipient’s goods under its own box, headed Cantidad, Descripción, Código Principal, Código Auxiliar', () => {
    expect(text.match(GOODS_HEADER)).toHaveLength(2);
    expect(text).toMatch(/12\.50\s+Bien 1: Saco de cemento Portland tipo GU de 50 kg\s+MAT-0001\n/);
    expect(text).toMatch(/4\.00\s+Bien 3: Saco de cemento Portland tipo GU de 50 kg\s+MAT-0003\n/);
    expect(text).toMatch(/5\.00\s+Bien 4: Saco de cemento Portland tipo GU de 50 kg\s+MAT-0004\s+AUX-4/);
    expect(raw).toContain(`Bien 5: ${LONG_GOOD}`);
    // In order: the first box, its goods, the second box, its goods.
    const at = (s: string): number => raw.indexOf(s);
    expect(at('Venta de mercadería')).toBeLessThan(at('Bien 1:'));
    expect(at('Bien 3:')).toBeLessThan(at(SECOND_RECIPIENT));
    expect(at(SECOND_RECIPIENT)).toBeLessThan(at('Bien 4:'));
    expect(goodsIn(raw)).toEqual([1, 2, 3, 4, 5]);
  });

  it('has no totals and no payments, and its additional information at the end', () => {
    for (const absent of ['VALOR TOTAL', 'SUBTOTAL', 'PROPINA', 'Forma de pago', 'Precio Unitario', 'Cód. Principal']) expect(text).not.toContain(absent);
    expect(text).toContain('Información Adicional');
    expect(text).toMatch(/Observación\s+Descargar en el andén 3, de 08h00 a 17h00/);
    expect(raw.indexOf('Información Adicional')).toBeGreaterThan(raw.indexOf('Bien 5:'));
  });

  it('is one A4 page that qpdf finds sound, the same bytes for the same data', async () => {
    expect(await pageCount(pdf)).toBe(1);
    expect(text).toContain('Página 1 de 1');
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
    expect((await renderRide(guideData())).equals(pdf)).toBe(true);
  });

  it('names a support document of a type it does not know by its code', async () => {
    const guide = sampleGuide();
    guide.recipients[0]!.supportDocument = { codDoc: '12', numero: '002-010-000004567', issueDate: '2025-03-12', documentId: null };
    const layout = await pdfText(await renderRide(guideData(guide)));
    expect(layout).toMatch(/Comprobante de Venta:\s+Documento 12 002-010-000004567/);
    expect(layout).not.toContain('Número de Autorización:');
  });

  it('is refused when the kind and the document disagree', async () => {
    await expect(renderRide({ ...guideData(), kind: 'invoice' })).rejects.toThrow('los datos no son los de la factura');
    await expect(renderRide({ ...guideData(), kind: 'debit_note' })).rejects.toThrow('los datos no son los de la nota de débito');
    await expect(renderRide(rideData({ kind: 'remission_guide' }))).rejects.toThrow('los datos no son los de la guía de remisión');
    await expect(renderRide({ ...creditNoteData(), kind: 'remission_guide' })).rejects.toThrow('los datos no son los de la guía de remisión');
  });
});

describe('renderRide: a guía de remisión of 150 goods', () => {
  const document = sampleGuide([70, 80]);
  const data = guideData(document);
  let pdf: Buffer;
  let pages: number;
  beforeAll(async () => {
    pdf = await renderRide(data);
    pages = await pageCount(pdf);
  });

  it('runs over numbered pages, each with the goods header while goods go on, naming itself', async () => {
    expect(pages).toBeGreaterThanOrEqual(3);
    let goodsSeen = 0;
    for (let p = 1; p <= pages; p++) {
      const text = await pdfText(pdf, 'layout', p);
      expect(text).toContain(`Página ${p} de ${pages}`);
      expect(text).toContain('GUÍA DE REMISIÓN 001-001-000000031'); // the footer
      const here = goodsIn(text);
      if (here.length > 0) expect(text).toMatch(GOODS_HEADER);
      if (p > 1) {
        expect(text).toContain('GUÍA DE REMISIÓN No. 001-001-000000031');
        expect(text).toContain(`Clave de acceso: ${data.numbering.accessKey}`);
      }
      goodsSeen += here.length;
    }
    expect(goodsSeen).toBe(150);
    expect(await readBarcodes(pdf, 1)).toEqual([data.numbering.accessKey]);
    expect(await readBarcodes(pdf, 2)).toEqual([]);
  });

  it('says whose goods go on at the top of a page', async () => {
    const continued = new Set<string>();
    for (let p = 2; p <= pages; p++) {
      const raw = collapse(await pdfText(pdf, 'raw', p));
      const first = goodsIn(raw)[0];
      const box = raw.indexOf('Motivo Traslado:');
      if (first === undefined || (box >= 0 && box < raw.indexOf(`Bien ${first}:`))) continue;
      const [name, id] = first <= 70 ? [FIRST_RECIPIENT, SAMPLE_CEDULA] : [SECOND_RECIPIENT, '0190123456001'];
      expect(raw).toContain(`Destinatario: ${name} · ${id} (continuación) Cantidad Descripción Código Principal Código Auxiliar`);
      continued.add(name);
    }
    expect([...continued]).toEqual([FIRST_RECIPIENT, SECOND_RECIPIENT]); // both recipients' goods run over a page
  });

  it('prints each good once, in order, the second recipient between its goods and the first’s, and the additional information last', async () => {
    const raw = collapse(await pdfText(pdf, 'raw'));
    expect(goodsIn(raw)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(await pdfText(pdf)).not.toContain(LONG_GOOD); // more than one line
    expect(occurrences(raw, `Bien 5: ${LONG_GOOD}`)).toBe(1);
    const box = raw.indexOf(`Razón Social / Nombres Apellidos: ${SECOND_RECIPIENT}`);
    expect(box).toBeGreaterThan(raw.indexOf('Bien 70:'));
    expect(box).toBeLessThan(raw.indexOf('Bien 71:'));
    expect(raw.indexOf('Información Adicional')).toBeGreaterThan(raw.indexOf('Bien 150:'));
    expect(raw).not.toContain('VALOR TOTAL');
  });

  it('qpdf finds the file sound', async () => {
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
  });

  it('never leaves a recipient’s box or a goods header alone at a page’s foot, wherever the page ends', async () => {
    // The first recipient's goods push the second one's box down a little more each time, through
    // the foot of page 1 (page 1 holds 18 of these goods after the boxes).
    for (let count = 6; count <= 20; count++) {
      const guide = pdfText(await renderRide(guideData(sampleGuide([count, 3]))), 'raw');
      for (const page of (await guide).split('\f').map(collapse)) {
        const lastGood = page.lastIndexOf('Bien ');
        const lastBox = page.lastIndexOf('Motivo Traslado:');
        const lastHeader = page.lastIndexOf('Cantidad Descripción Código Principal Código Auxiliar');
        expect(lastBox, `${count} goods: a box at the foot`).toBeLessThan(Math.max(lastGood, 0));
        expect(lastHeader, `${count} goods: a header at the foot`).toBeLessThan(Math.max(lastGood, 0));
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The RIDE of a comprobante de retención, read back by poppler (pdftotext) and zbar (zbarimg), as the others above.

/** The supplier's factura 001-002-000004567 of 10/03/2025, whose access key is its authorization. */
const SUPPORT = sampleNumbering({ ruc: '1790011674001', establishment: '001', emissionPoint: '002', secuencial: '000004567', issueDate: '2025-03-10' });

/** Renta 312 at 1.75 % of 100.00 and IVA code 1 at 30 % of 15.00: 6.25 withheld from a factura of 115.00. */
function sampleWithholding(): ComputedWithholding {
  return {
    issueDate: SAMPLE_ISSUE_DATE,
    establishment: '001',
    emissionPoint: '001',
    currency: 'USD',
    fiscalPeriod: '03/2025',
    subject: { name: 'Ñandú & Compañía Constructora Cía. Ltda.', taxId: '1790011674001', idType: 'ec-ruc', idTypeCode: '04', relatedParty: false },
    support: {
      purchaseId: 'pur_01',
      supportCode: '01',
      codDoc: '01',
      numero: SUPPORT.numero,
      issueDate: '2025-03-10',
      authorizationNumber: SUPPORT.accessKey,
      paymentLocation: '01',
      totalWithoutTaxes: '100.00',
      grandTotal: '115.00',
      taxes: [{ codigo: '2', codigoPorcentaje: '4', baseImponible: '100.00', tarifa: '15', valor: '15.00' }],
      payments: [{ method: '20', amount: '115.00' }],
    },
    lines: [
      { tax: 'renta', code: '312', base: '100.00', rate: '1.75', amount: '1.75' },
      { tax: 'iva', code: '1', base: '15.00', rate: '30', amount: '4.50' },
    ],
    totalWithheld: '6.25',
    additionalInfo: [{ name: 'Observación', value: 'Compra de cemento y varillas' }],
  };
}

/** A comprobante de retención's numbering: codDoc 07 in its access key. */
const withholdingNumbering = (): Numbering => sampleNumbering({ codDoc: COD_DOC.comprobanteRetencion, secuencial: '000000017' });

function withholdingData(document: ComputedWithholding = sampleWithholding()): RideData {
  const numbering = withholdingNumbering();
  return { kind: 'withholding', issuer: sampleIssuer(), document, numbering, authorization: sampleAuthorization(numbering), environment: 'PRUEBAS', emission: 'NORMAL' };
}

describe('renderRide: a comprobante de retención', () => {
  const data = withholdingData();
  let pdf: Buffer;
  let text: string;
  let raw: string;
  beforeAll(async () => {
    pdf = await renderRide(data);
    text = await pdfText(pdf);
    raw = collapse(await pdfText(pdf, 'raw'));
  });

  it('carries its access key (codDoc 07) as a Code 128 that zbar reads back exactly', async () => {
    expect(data.numbering.accessKey).toMatch(/^\d{8}07\d{39}$/);
    expect(await readBarcodes(pdf)).toEqual([data.numbering.accessKey]);
  });

  it('prints the issuer and the document block: COMPROBANTE DE RETENCIÓN, number, authorization, ambiente, emisión, access key', () => {
    expect(raw).toContain('Comercializadora Andina Pérez & Asociados S.A.');
    expect(text).toContain('R.U.C.: 1790012344001');
    expect(text).toContain('COMPROBANTE DE RETENCIÓN');
    expect(text).toContain('No. 001-001-000000017');
    expect(text).toContain('COMPROBANTE DE RETENCIÓN 001-001-000000017'); // the footer
    expect(text).toContain('14/03/2025 10:15:30');
    expect(text).toMatch(/AMBIENTE:\s+PRUEBAS/);
    expect(text).toMatch(/EMISIÓN:\s+NORMAL/);
    expect(text.split(data.numbering.accessKey)).toHaveLength(3); // authorization number and the key under the bars
  });

  it('prints the withheld supplier, the fiscal period and the factura the withholdings apply to', () => {
    expect(text).toMatch(/Razón Social \/ Nombres y Apellidos:\s+Ñandú & Compañía Constructora Cía\. Ltda\.\s+Identificación:\s+1790011674001/);
    expect(text).toMatch(/Fecha de Emisión:\s+14\/03\/2025\s+Período Fiscal:\s+03\/2025/);
    expect(text).toMatch(/Comprobante de Sustento:\s+FACTURA 001-002-000004567\s+Fecha de Emisión:\s+10\/03\/2025/);
    expect(text).toMatch(new RegExp(`Número de Autorización:\\s+${SUPPORT.accessKey}`));
    expect(text).toMatch(/Subtotal sin Impuestos:\s+100\.00\s+Importe Total:\s+115\.00/);
  });

  it('prints a row per withholding under the SRI’s columns, and the total withheld', () => {
    expect(raw).toMatch(/Comprobante Número Fecha Emisión Ejercicio Fiscal Base Imponible para la Retención Impuesto Código Porcentaje Retención Valor Retenido/);
    expect(text).toMatch(/FACTURA\s+001-002-000004567\s+10\/03\/2025\s+03\/2025\s+100\.00\s+RENTA\s+312\s+1\.75\s+1\.75\n/);
    expect(text).toMatch(/FACTURA\s+001-002-000004567\s+10\/03\/2025\s+03\/2025\s+15\.00\s+IVA\s+1\s+30\s+4\.50\n/);
    expect(text).toMatch(/TOTAL RETENIDO\s+6\.25/);
    expect(raw.indexOf('TOTAL RETENIDO')).toBeGreaterThan(raw.indexOf('4.50'));
  });

  it('prints the additional information, and none of a sale’s totals or payments', () => {
    expect(text).toMatch(/Observación\s+Compra de cemento y varillas/);
    for (const absent of ['VALOR TOTAL', 'SUBTOTAL 15%', 'Forma de pago', 'Precio Unitario', 'PROPINA']) expect(text).not.toContain(absent);
  });

  it('is one A4 page that qpdf finds sound, the same bytes for the same data', async () => {
    expect(text).toContain('Página 1 de 1');
    const check = await qpdfCheck(pdf);
    expect(check.ok, check.output).toBe(true);
    expect((await renderRide(withholdingData())).equals(pdf)).toBe(true);
  });

  it('is refused when the kind and the document disagree', async () => {
    await expect(renderRide({ ...data, kind: 'invoice' })).rejects.toThrow('los datos no son los de la factura');
    const numbering = sampleNumbering();
    const invoice: RideData = { ...data, kind: 'withholding', document: sampleInvoice(1), numbering, authorization: sampleAuthorization(numbering) };
    await expect(renderRide(invoice)).rejects.toThrow('los datos no son los del comprobante de retención');
  });
});
