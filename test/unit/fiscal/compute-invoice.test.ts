import { describe, expect, it } from 'vitest';
import { computeInvoice, ecuadorDate, seriesErrors, type ComputeResult } from '../../../core/fiscal/sri/compute-invoice.js';
import { formatUnits, percentOf, roundHalfUp, toUnits } from '../../../core/fiscal/sri/decimal.js';
import type { InvoiceBody } from '../../../core/fiscal/sri/invoice-body.js';
import type { ComputedInvoice } from '../../../core/fiscal/sri/invoice-model.js';
import { NOW, catalogs, issuer, validBody, withBody } from './invoice-fixtures.js';

function computed(body: InvoiceBody, now = NOW): ComputedInvoice {
  const result = computeInvoice(body, catalogs, now);
  if ('errors' in result) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result.ok;
}

function errorsOf(body: InvoiceBody, now = NOW): Record<string, string> {
  const result: ComputeResult = computeInvoice(body, catalogs, now);
  if (!('errors' in result)) throw new Error('expected refusals');
  return Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
}

const line = (quantity: string, unit_price: string, type: string, discount = '0.00') => ({
  code: `P-${type}`,
  description: `Producto ${type}`,
  quantity,
  unit_price,
  discount,
  taxes: [{ type }],
});

describe('decimal', () => {
  it('is exact and rounds half-up', () => {
    expect(toUnits('12.5', 2)).toBe(1250n);
    expect(formatUnits(5n, 2)).toBe('0.05');
    expect(roundHalfUp(1005n, 3, 2)).toBe(101n); // 1.005 → 1.01 (a float says 1.00499…)
    expect(roundHalfUp(1004n, 3, 2)).toBe(100n);
    expect(percentOf(1003n, '15')).toBe(150n); // 10.03 × 15 % = 1.5045 → 1.50
    expect(percentOf(10n, '15')).toBe(2n); // 0.10 × 15 % = 0.015 → 0.02
    expect(() => toUnits('1.234', 2)).toThrow();
  });
});

describe('computeInvoice', () => {
  it('computes the contract’s simplest invoice', () => {
    const invoice = computed(validBody());
    expect(invoice).toMatchObject({
      issueDate: '2026-03-10',
      customer: { name: 'Juan Pérez', taxId: '1714307103', idType: 'ec-cedula', idTypeCode: '05' },
      lines: [{ subtotal: '100.00', discount: '0.00', taxes: [{ type: 'ec-iva-15', codigo: '2', codigoPorcentaje: '4', tarifa: '15', baseImponible: '100.00', valor: '15.00' }] }],
      totalWithoutTaxes: '100.00',
      totalDiscount: '0.00',
      taxTotals: [{ codigoPorcentaje: '4', baseImponible: '100.00', valor: '15.00' }],
      tip: '0.00',
      grandTotal: '115.00',
      payments: [{ method: '01', amount: '115.00' }],
    });
  });

  it('adds every VAT rate on one invoice, with a discount (worked by hand)', () => {
    const body = withBody((b) => {
      b.lines = [
        line('2', '50.00', 'ec-iva-15', '10.00'), // 100.00 − 10.00 = 90.00; 15 % = 13.50
        line('1', '20', 'ec-iva-0'), //             20.00; 0.00
        line('3', '10', 'ec-iva-5'), //             30.00; 1.50
        line('1', '100', 'ec-iva-13'), //           100.00; 13.00
        line('1', '10', 'ec-iva-8'), //             10.00; 0.80
        line('1', '5', 'ec-no-objeto-iva'), //      5.00; 0.00
        line('1', '7', 'ec-exento-iva'), //         7.00; 0.00
        line('1', '10', 'ec-iva-12'), //            10.00; 1.20
        line('1', '10', 'ec-iva-14'), //            10.00; 1.40
      ];
      // 282.00 + (13.50 + 1.50 + 13.00 + 0.80 + 1.20 + 1.40 = 31.40) = 313.40
      b.payments = [{ method: '20', amount: '300.00', term: '30', unit: 'dias' }, { method: '01', amount: '13.40' }];
      b.grand_total = '313.40';
    });
    const invoice = computed(body);
    expect(invoice.lines.map((l) => l.subtotal)).toEqual(['90.00', '20.00', '30.00', '100.00', '10.00', '5.00', '7.00', '10.00', '10.00']);
    expect(invoice.taxTotals.map((t) => [t.codigoPorcentaje, t.tarifa, t.baseImponible, t.valor])).toEqual([
      ['4', '15', '90.00', '13.50'],
      ['0', '0', '20.00', '0.00'],
      ['5', '5', '30.00', '1.50'],
      ['10', '13', '100.00', '13.00'],
      ['8', '8', '10.00', '0.80'],
      ['6', '0', '5.00', '0.00'],
      ['7', '0', '7.00', '0.00'],
      ['2', '12', '10.00', '1.20'],
      ['3', '14', '10.00', '1.40'],
    ]);
    expect(invoice.totalWithoutTaxes).toBe('282.00');
    expect(invoice.totalDiscount).toBe('10.00');
    expect(invoice.grandTotal).toBe('313.40');
  });

  it('sums the lines of one rate into one total', () => {
    const body = withBody((b) => {
      b.lines = [line('1', '10.03', 'ec-iva-15'), line('1', '10.03', 'ec-iva-15'), line('1', '0.10', 'ec-iva-15')];
      // 1.5045 → 1.50, twice; 0.015 → 0.02: 3.02 on a base of 20.16 (a global rounding would say 3.02 too)
      b.payments = [{ method: '01', amount: '23.18' }];
    });
    const invoice = computed(body);
    expect(invoice.lines.map((l) => l.taxes[0]!.valor)).toEqual(['1.50', '1.50', '0.02']);
    expect(invoice.taxTotals).toEqual([expect.objectContaining({ baseImponible: '20.16', valor: '3.02' })]);
    expect(invoice.grandTotal).toBe('23.18');
  });

  it('computes ICE before VAT and puts it in the VAT base (worked by hand)', () => {
    const body = withBody((b) => {
      b.lines = [
        {
          code: 'WH-750',
          description: 'Whisky 750 ml',
          quantity: '2',
          unit_price: '15.00',
          discount: '0',
          taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '75', specific_amount: '1.20' }],
        },
        { code: 'CA-1', description: 'Cerveza artesanal', quantity: '10', unit_price: '2.00', discount: '0', taxes: [{ type: 'ec-ice-cerveza-artesanal', specific_amount: '0.85' }, { type: 'ec-iva-15' }] },
      ];
      // Line 0: 30.00; ICE 75 % = 22.50 + 1.20 = 23.70; VAT on 53.70 = 8.055 → 8.06 (half-up).
      // Line 1: 20.00; ICE 0 % + 0.85 = 0.85; VAT on 20.85 = 3.1275 → 3.13.
      // 50.00 + 23.70 + 0.85 + 8.06 + 3.13 = 85.74
      b.payments = [{ method: '19', amount: '85.74' }];
    });
    const invoice = computed(body);
    expect(invoice.lines[0]!.taxes).toEqual([
      { type: 'ec-ice-bebidas-alcoholicas', codigo: '3', codigoPorcentaje: '3031', tarifa: '75', baseImponible: '30.00', valor: '23.70' },
      { type: 'ec-iva-15', codigo: '2', codigoPorcentaje: '4', tarifa: '15', baseImponible: '53.70', valor: '8.06' },
    ]);
    expect(invoice.lines[1]!.taxes.map((t) => [t.codigoPorcentaje, t.tarifa, t.baseImponible, t.valor])).toEqual([
      ['3041', '0', '20.00', '0.85'],
      ['4', '15', '20.85', '3.13'],
    ]);
    expect(invoice.taxTotals.map((t) => [t.codigo, t.codigoPorcentaje, t.baseImponible, t.valor])).toEqual([
      ['3', '3031', '30.00', '23.70'],
      ['2', '4', '74.55', '11.19'],
      ['3', '3041', '20.00', '0.85'],
    ]);
    expect(invoice.grandTotal).toBe('85.74');
  });

  it('rounds half-up at .005 and takes 6-decimal quantities and prices exactly', () => {
    const body = withBody((b) => {
      b.lines = [
        line('3', '0.335', 'ec-iva-0'), // 1.005 → 1.01 (floats: 1.0050000000000001 or 1.00499…)
        line('2.500000', '1.234567', 'ec-iva-15'), // 3.0864175 → 3.09; 15 % = 0.4635 → 0.46
        line('0.000001', '999999.999999', 'ec-iva-0'), // 0.999999999999 → 1.00
        line('1.5', '0.01', 'ec-iva-0'), // 0.015 → 0.02
      ];
      b.payments = [{ method: '01', amount: '5.58' }]; // 1.01 + 3.09 + 0.46 + 1.00 + 0.02
    });
    const invoice = computed(body);
    expect(invoice.lines.map((l) => l.subtotal)).toEqual(['1.01', '3.09', '1.00', '0.02']);
    expect(invoice.lines[1]!.quantity).toBe('2.500000');
    expect(invoice.lines[1]!.taxes[0]!.valor).toBe('0.46');
    expect(invoice.grandTotal).toBe('5.58');
  });

  it('refuses a stated grand_total that disagrees, naming grand_total and the breakdown', () => {
    const errors = errorsOf(withBody((b) => (b.grand_total = '114.99')));
    expect(Object.keys(errors)).toEqual(['grand_total']);
    expect(errors.grand_total).toMatch(/115\.00 \(subtotal 100\.00 \+ impuestos 15\.00\).*114\.99/);
    expect(computed(withBody((b) => (b.grand_total = '115'))).grandTotal).toBe('115.00');
  });

  it('refuses payments whose sum disagrees, naming payments', () => {
    const errors = errorsOf(withBody((b) => (b.payments = [{ method: '01', amount: '100.00' }, { method: '20', amount: '10.00' }])));
    expect(Object.keys(errors)).toEqual(['payments']);
    expect(errors.payments).toMatch(/110\.00.*115\.00/);
  });

  it('requires exactly one VAT on every line, even at 0 %', () => {
    expect(errorsOf(withBody((b) => (b.lines[0]!.taxes = [{ type: 'ec-ice-cerveza-artesanal', rate: '10' }])))).toEqual({
      'lines[0].taxes': expect.stringMatching(/exactamente un IVA, aunque sea 0 %/),
    });
    expect(errorsOf(withBody((b) => (b.lines[0]!.taxes = [{ type: 'ec-iva-15' }, { type: 'ec-iva-0' }])))).toEqual({
      'lines[0].taxes': expect.stringMatching(/un solo IVA.*ec-iva-15 y ec-iva-0/),
    });
  });

  it('names unknown or foreign tax types, ICE without a rate, and rates on VAT', () => {
    const errors = errorsOf(
      withBody((b) => {
        b.lines = [
          line('1', '1', 'ec-iva-16'),
          line('1', '1', 'pe-igv'),
          { ...line('1', '1', 'ec-iva-15'), taxes: [{ type: 'ec-iva-15', rate: '15' }] },
          { ...line('1', '1', 'ec-iva-15'), taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-cerveza-artesanal' }] },
          { ...line('1', '1', 'ec-iva-15'), taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-cerveza-artesanal', rate: '1' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '1' }] },
        ];
      }),
    );
    expect(errors).toEqual({
      'lines[0].taxes[0].type': expect.stringMatching(/no es un tipo de impuesto del catálogo/),
      'lines[1].taxes[0].type': expect.stringMatching(/no es un impuesto de las facturas de Ecuador/),
      'lines[2].taxes[0].rate': expect.stringMatching(/solo se admite en impuestos ICE/),
      'lines[3].taxes[1].rate': expect.stringMatching(/tarifa ad valorem .* valor específico/),
      'lines[4].taxes': expect.stringMatching(/a lo sumo un ICE/),
    }); // and nothing about totals: they cannot be judged while lines are refused
  });

  it('refuses a discount above quantity × price', () => {
    expect(errorsOf(withBody((b) => (b.lines[0]!.discount = '100.01')))).toMatchObject({ 'lines[0].discount': expect.stringMatching(/mayor que cantidad × precio unitario \(100\.00\)/) });
    expect(computed(withBody((b) => {
      b.lines[0]!.discount = '100.00';
      b.payments = [{ method: '01', amount: '0.00' }];
    })).grandTotal).toBe('0.00');
  });

  it('checks the identification type against the catalog and the id against its type', () => {
    expect(errorsOf(withBody((b) => (b.customer.tax_id_type = { type: 'ec-dni', code: '05' })))).toEqual({
      'customer.tax_id_type.type': expect.stringMatching(/no es un tipo de identificación del catálogo/),
    });
    expect(errorsOf(withBody((b) => (b.customer.tax_id_type = { type: 'ec-cedula', code: '04' })))).toEqual({
      'customer.tax_id_type.code': expect.stringMatching(/ec-cedula en el catálogo es 05/),
    });
    expect(errorsOf(withBody((b) => (b.customer.tax_id_type = { type: 'pe-dni', code: '1' })))).toEqual({
      'customer.tax_id_type.type': expect.stringMatching(/no es un tipo de identificación de comprador de Ecuador/),
    });
    expect(errorsOf(withBody((b) => (b.customer.tax_id = '1714307104')))).toEqual({ 'customer.tax_id': expect.stringMatching(/dígito verificador.*módulo 10/) });
    expect(errorsOf(withBody((b) => (b.customer.tax_id = '9999999999999')))).toEqual({ 'customer.tax_id': expect.stringMatching(/consumidor final/) });
  });

  it('writes the SRI’s buyer code (04 for a RUC) and warns of a RUC accepted leniently', () => {
    const ruc = computeInvoice(withBody((b) => {
      b.customer.tax_id = '0993370026001';
      b.customer.tax_id_type = { type: 'ec-ruc', code: '06' };
    }), catalogs, NOW);
    expect(ruc).toMatchObject({ ok: { customer: { idTypeCode: '04', idType: 'ec-ruc' } }, warnings: [{ path: 'customer.tax_id', message: expect.stringMatching(/sin comprobar/) }] });
    const consumer = computed(withBody((b) => {
      b.customer = { name: 'CONSUMIDOR FINAL', tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } };
    }));
    expect(consumer.customer.idTypeCode).toBe('07');
  });

  it('refuses an issue date in the future or older than the SRI receives, in Ecuador’s calendar', () => {
    // 02:00 UTC on 2026-03-11 is still 21:00 of 2026-03-10 in Ecuador.
    const lateEvening = new Date('2026-03-11T02:00:00Z');
    expect(ecuadorDate(lateEvening)).toBe('2026-03-10');
    expect(computed(validBody(), lateEvening).issueDate).toBe('2026-03-10');
    expect(errorsOf(withBody((b) => (b.issue_date = '2026-03-11')), lateEvening)).toEqual({ issue_date: expect.stringMatching(/posterior a hoy en Ecuador \(2026-03-10\)/) });
    // 05:00 UTC on 2026-03-11 is midnight in Ecuador: the 11th is today.
    expect(computed(withBody((b) => (b.issue_date = '2026-03-11')), new Date('2026-03-11T05:00:00Z')).issueDate).toBe('2026-03-11');
    expect(computed(withBody((b) => (b.issue_date = '2026-03-07'))).issueDate).toBe('2026-03-07');
    expect(errorsOf(withBody((b) => (b.issue_date = '2026-03-06')))).toEqual({ issue_date: expect.stringMatching(/4 días .*72 horas .*error 65/) });
  });

  it('counts the customer’s email and phone among the 15 campos adicionales', () => {
    const fifteen = Array.from({ length: 14 }, (_, i) => ({ name: `Campo ${i}`, value: 'v' }));
    expect(computed(withBody((b) => {
      b.additional_info = fifteen;
      b.customer.email = 'a@b.ec';
    })).additionalInfo).toHaveLength(14);
    expect(errorsOf(withBody((b) => {
      b.additional_info = fifteen;
      b.customer.email = 'a@b.ec';
      b.customer.phone = '0999999999';
    }))).toEqual({ additional_info: expect.stringMatching(/suman 16 campos; el SRI admite 15/) });
  });

  it('refuses amounts beyond the XSD’s 14 digits', () => {
    const errors = errorsOf(withBody((b) => (b.lines[0] = line('999999999999', '999999999999', 'ec-iva-15'))));
    expect(errors).toMatchObject({ 'lines[0]': expect.stringMatching(/12 dígitos enteros/) });
  });
});

describe('seriesErrors', () => {
  it('names an establishment or emission point the issuer lacks', () => {
    expect(seriesErrors(issuer(), '001', '002')).toEqual([]);
    expect(seriesErrors(issuer(), '003', '001')).toEqual([{ path: 'establishment', message: expect.stringMatching(/no tiene el establecimiento 003 \(tiene: 001, 002\)/) }]);
    expect(seriesErrors(issuer(), '002', '002')).toEqual([{ path: 'emission_point', message: expect.stringMatching(/no tiene el punto de emisión 002/) }]);
  });
});
