import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
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
import { sampleInvoice, sampleNumbering } from '../../helpers/sri-invoices.js';

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
