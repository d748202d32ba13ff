import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { COD_DOC, accessKeyFor } from '../../../core/fiscal/sri/access-key.js';
import type { Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import { renderRide, type RideData } from '../../../core/fiscal/sri/ride.js';
import { code128Widths } from '../../../core/fiscal/sri/ride-barcode.js';
import { documentTitle, paymentMethodName, rimpeLegend, supportDocumentName, totalsRows, withheldTaxName } from '../../../core/fiscal/sri/ride-labels.js';
import {
  fittingSize,
  formatDate,
  formatDateTime,
  formatDecimal,
  formatRate,
  startOfDayInEcuador,
  sumDecimals,
  toPrintable,
  wrapText,
} from '../../../core/fiscal/sri/ride-text.js';
import type { ComputedWithholding } from '../../../core/fiscal/sri/withholding-model.js';
import { qpdfCheck } from '../../helpers/pdf-tools.js';
import { SAMPLE_ISSUE_DATE, SAMPLE_RUC, sampleAuthorization, sampleInvoice, sampleIssuer, sampleNumbering } from '../../helpers/sri-invoices.js';

let helvetica: PDFFont;
beforeAll(async () => {
  const doc = await PDFDocument.create();
  helvetica = await doc.embedFont(StandardFonts.Helvetica);
});

describe('toPrintable', () => {
  it('keeps the Spanish letters WinAnsi has', () => {
    expect(toPrintable('¿Año? ¡Sí! Pingüino ÁÉÍÓÚ ÑÜ € — “c”', helvetica)).toBe('¿Año? ¡Sí! Pingüino ÁÉÍÓÚ ÑÜ € — “c”');
  });

  it('composes decomposed accents before looking them up', () => {
    expect(toPrintable('Pen\u0303a Jose\u0301', helvetica)).toBe('Peña José');
  });

  it('replaces what WinAnsi lacks with a visible "?", one per character', () => {
    expect(toPrintable('Ω € 😀 ć\u0000', helvetica)).toBe('? € ? ??');
  });

  it('turns every whitespace into a plain space', () => {
    expect(toPrintable('a\tb\nc\u00a0d', helvetica)).toBe('a b c d');
  });
});

describe('wrapText', () => {
  it('breaks between words within the width', () => {
    const lines = wrapText('uno dos tres cuatro cinco seis siete ocho nueve diez', helvetica, 10, 80);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(helvetica.widthOfTextAtSize(l, 10)).toBeLessThanOrEqual(80);
    expect(lines.join(' ')).toBe('uno dos tres cuatro cinco seis siete ocho nueve diez');
  });

  it('cuts a word longer than a line between characters', () => {
    const word = 'x'.repeat(200);
    const lines = wrapText(word, helvetica, 10, 50);
    expect(lines.join('')).toBe(word);
    for (const l of lines) expect(helvetica.widthOfTextAtSize(l, 10)).toBeLessThanOrEqual(50);
  });

  it('keeps the text’s own line breaks and gives one empty line for empty text', () => {
    expect(wrapText('a\nb', helvetica, 10, 500)).toEqual(['a', 'b']);
    expect(wrapText('', helvetica, 10, 500)).toEqual(['']);
  });

  it('never throws on characters outside WinAnsi', () => {
    expect(wrapText('Ω€ 😀', helvetica, 10, 500)).toEqual(['?€ ?']);
  });
});

describe('fittingSize', () => {
  it('shrinks a line until it fits, down to the minimum', () => {
    const text = '1403202501179001234400110010010000001231234567812';
    const size = fittingSize(text, helvetica, 12, 200, 6);
    expect(size).toBeLessThan(12);
    expect(helvetica.widthOfTextAtSize(text, size)).toBeLessThanOrEqual(200);
    expect(fittingSize(text, helvetica, 12, 10, 6)).toBe(6);
  });
});

describe('formatDecimal / formatRate / sumDecimals', () => {
  it('prints at least two decimals without extra zeros', () => {
    expect(formatDecimal('3')).toBe('3.00');
    expect(formatDecimal('1.500000')).toBe('1.50');
    expect(formatDecimal('0.123400')).toBe('0.1234');
    expect(formatDecimal('12.5')).toBe('12.50');
    expect(formatDecimal('abc')).toBe('abc');
  });

  it('prints rates without useless decimals', () => {
    expect(formatRate('15')).toBe('15');
    expect(formatRate('15.00')).toBe('15');
    expect(formatRate('12.50')).toBe('12.5');
  });

  it('adds exactly, never through floats', () => {
    expect(sumDecimals(['0.10', '0.20'])).toBe('0.30');
    expect(sumDecimals(['1.10', '2.255'])).toBe('3.355');
    expect(sumDecimals([])).toBe('0.00');
    expect(sumDecimals(['-1.00', '0.25'])).toBe('-0.75');
  });
});

describe('formatDate / formatDateTime', () => {
  it('writes issue dates as the SRI does', () => {
    expect(formatDate('2025-03-14')).toBe('14/03/2025');
  });

  it('prints an authorization time in Ecuador’s time whatever its offset', () => {
    expect(formatDateTime('2025-03-14T10:15:30-05:00').text).toBe('14/03/2025 10:15:30');
    expect(formatDateTime('2025-03-14T15:15:30Z').text).toBe('14/03/2025 10:15:30');
    expect(formatDateTime('2025-03-15T02:00:00.123+01:00').text).toBe('14/03/2025 20:00:00');
    expect(formatDateTime('2025-03-14T15:15:30Z').instant?.toISOString()).toBe('2025-03-14T15:15:30.000Z');
  });

  it('reads a date-time without offset as Ecuador’s time, and leaves garbage as it came', () => {
    expect(formatDateTime('2025-03-14T10:15:30')).toEqual({ text: '14/03/2025 10:15:30', instant: new Date('2025-03-14T15:15:30Z') });
    expect(formatDateTime('ayer')).toEqual({ text: 'ayer' });
  });

  it('gives midnight in Ecuador of an issue date', () => {
    expect(startOfDayInEcuador('2025-03-14')?.toISOString()).toBe('2025-03-14T05:00:00.000Z');
    expect(startOfDayInEcuador('14/03/2025')).toBeNull();
  });
});

describe('paymentMethodName / rimpeLegend', () => {
  it('names the SRI’s formas de pago', () => {
    expect(paymentMethodName('01')).toBe('01 - SIN UTILIZACIÓN DEL SISTEMA FINANCIERO');
    expect(paymentMethodName('19')).toBe('19 - TARJETA DE CRÉDITO');
    expect(paymentMethodName('99')).toBe('99');
  });

  it('gives the RIMPE legends and none for the general regime', () => {
    expect(rimpeLegend('rimpe_emprendedor')).toBe('CONTRIBUYENTE RÉGIMEN RIMPE');
    expect(rimpeLegend('rimpe_negocio_popular')).toBe('CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE');
    expect(rimpeLegend('general')).toBeNull();
    expect(rimpeLegend(undefined)).toBeNull();
  });
});

describe('supportDocumentName', () => {
  it('names a guide’s support document by the title of its type, as the document’s own RIDE does', () => {
    expect(supportDocumentName('01', '001-001-000000123')).toBe('FACTURA 001-001-000000123');
    expect(supportDocumentName('03', '001-002-000000007')).toBe('LIQUIDACIÓN DE COMPRA DE BIENES Y PRESTACIÓN DE SERVICIOS 001-002-000000007');
    expect(supportDocumentName('04', '001-001-000000045')).toBe('NOTA DE CRÉDITO 001-001-000000045');
    expect(supportDocumentName('02', '002-001-000000310')).toBe('NOTA DE VENTA 002-001-000000310');
  });

  it('names a type it does not know by its code', () => {
    expect(supportDocumentName('12', '001-001-000000001')).toBe('Documento 12 001-001-000000001');
    expect(documentTitle('12')).toBe('Documento 12');
  });

  it('knows the comprobante de retención and names the withheld taxes', () => {
    expect(documentTitle('01')).toBe('FACTURA');
    expect(documentTitle('07')).toBe('COMPROBANTE DE RETENCIÓN');
    expect([withheldTaxName('renta'), withheldTaxName('iva'), withheldTaxName('isd')]).toEqual(['RENTA', 'IVA', 'ISD']);
  });
});

describe('totalsRows', () => {
  it('lists subtotals and IVA per rate, the zero-rate subtotals, and the total', () => {
    const rows = totalsRows(sampleInvoice(3));
    expect(rows.map((r) => `${r.label}=${r.value}`)).toEqual([
      'SUBTOTAL 15%=20.74',
      'SUBTOTAL 5%=44.44',
      'SUBTOTAL 0%=32.22',
      'SUBTOTAL NO OBJETO DE IVA=0.00',
      'SUBTOTAL EXENTO DE IVA=0.00',
      'SUBTOTAL SIN IMPUESTOS=97.40',
      'TOTAL DESCUENTO=0.00',
      'ICE=0.00',
      'IVA 15%=3.11',
      'IVA 5%=2.22',
      'PROPINA=0.00',
      'VALOR TOTAL=102.73',
    ]);
    expect(rows.at(-1)?.strong).toBe(true);
  });

  it('adds ICE, no objeto, exento and IRBPNR where the invoice has them', () => {
    const invoice = sampleInvoice(1);
    invoice.taxTotals = [
      { type: 'ec-ice-bebidas-alcoholicas', codigo: '3', codigoPorcentaje: '3031', tarifa: '75', baseImponible: '10.00', valor: '7.50' },
      { type: 'ec-iva-15', codigo: '2', codigoPorcentaje: '4', tarifa: '15', baseImponible: '17.50', valor: '2.63' },
      { type: 'ec-no-objeto-iva', codigo: '2', codigoPorcentaje: '6', tarifa: '0', baseImponible: '4.00', valor: '0.00' },
      { type: 'ec-exento-iva', codigo: '2', codigoPorcentaje: '7', tarifa: '0', baseImponible: '3.00', valor: '0.00' },
      { type: 'ec-irbpnr', codigo: '5', codigoPorcentaje: '5001', tarifa: '0.02', baseImponible: '0.00', valor: '0.04' },
    ];
    const byLabel = Object.fromEntries(totalsRows(invoice).map((r) => [r.label, r.value]));
    expect(byLabel).toMatchObject({
      'SUBTOTAL 15%': '17.50',
      'SUBTOTAL 0%': '0.00',
      'SUBTOTAL NO OBJETO DE IVA': '4.00',
      'SUBTOTAL EXENTO DE IVA': '3.00',
      ICE: '7.50',
      'IVA 15%': '2.63',
      IRBPNR: '0.04',
    });
  });
});

describe('totalsRows of a nota de débito', () => {
  it('has neither TOTAL DESCUENTO nor PROPINA, and closes with its valorTotal', () => {
    const { lines: _lines, totalDiscount: _discount, tip: _tip, ...invoice } = sampleInvoice(1);
    const rows = totalsRows({
      ...invoice,
      reasons: [{ reason: 'Intereses por mora', amount: '20.74', taxes: invoice.taxTotals }],
      modified: { codDoc: '01', numero: '001-001-000000012', issueDate: '2025-03-10', documentId: null },
    });
    expect(rows.map((r) => `${r.label}=${r.value}`)).toEqual([
      'SUBTOTAL 15%=20.74',
      'SUBTOTAL 0%=0.00',
      'SUBTOTAL NO OBJETO DE IVA=0.00',
      'SUBTOTAL EXENTO DE IVA=0.00',
      'SUBTOTAL SIN IMPUESTOS=20.74',
      'ICE=0.00',
      'IVA 15%=3.11',
      'VALOR TOTAL=23.85',
    ]);
  });
});

describe('code128Widths', () => {
  it('encodes a 49-digit key as start, 24 digit pairs in set C, a switch for the last digit, check and stop', () => {
    const widths = code128Widths(sampleNumbering().accessKey);
    // 11 modules per symbol × (start + 24 pairs + code B + 1 digit + check) + 13 for stop.
    expect(widths.reduce((a, b) => a + b, 0)).toBe(11 * 28 + 13);
    expect(widths.length % 2).toBe(1); // starts and ends with a bar
  });
});

describe('sampleInvoice', () => {
  it('has totals that add up', () => {
    for (const n of [1, 3, 7, 120]) {
      const inv = sampleInvoice(n);
      expect(sumDecimals(inv.lines.map((l) => l.subtotal))).toBe(inv.totalWithoutTaxes);
      expect(sumDecimals(inv.taxTotals.map((t) => t.baseImponible))).toBe(inv.totalWithoutTaxes);
      expect(sumDecimals([inv.totalWithoutTaxes, ...inv.taxTotals.map((t) => t.valor), inv.tip])).toBe(inv.grandTotal);
      expect(sumDecimals(inv.payments.map((p) => p.amount))).toBe(inv.grandTotal);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The RIDE of a comprobante de retención, read back by poppler (pdftotext) and zbar (zbarimg).

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

/** Every Code 128 zbar finds on page 1 rendered at 200 dpi. */
async function readBarcodes(pdf: Buffer): Promise<string[]> {
  return withPdf(pdf, async (file, dir) => {
    const out = path.join(dir, 'page');
    await run('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', '-singlefile', file, out]);
    try {
      const r = await run('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', `${out}.png`]);
      return r.stdout.split('\n').filter((l) => l !== '');
    } catch {
      return []; // zbarimg exits 4 when it finds nothing
    }
  });
}

/** `pdftotext -layout` (columns kept) or `-raw` (content-stream order). */
async function pdfText(pdf: Buffer, mode: 'layout' | 'raw' = 'layout'): Promise<string> {
  return withPdf(pdf, async (file) => (await run('pdftotext', [`-${mode}`, '-enc', 'UTF-8', file, '-'])).stdout);
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ');

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
function withholdingNumbering(): Numbering {
  const secuencial = '000000017';
  const accessKey = accessKeyFor({
    issueDate: SAMPLE_ISSUE_DATE,
    codDoc: COD_DOC.comprobanteRetencion,
    ruc: SAMPLE_RUC,
    ambiente: 1,
    establishment: '001',
    emissionPoint: '001',
    secuencial,
    numericCode: '12345678',
  });
  return { ambiente: 1, secuencial, numero: `001-001-${secuencial}`, accessKey };
}

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
