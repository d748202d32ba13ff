/**
 * The rules of a comprobante de retención (core/fiscal/sri/withholding-rules.ts): the amounts
 * withheld (half up, to the cent), the five days after the purchase, the codes of each tax and
 * the rates they fix, the bases the purchase allows, once per tax and code, and what the XSD
 * could not hold (a rate of four digits, a contribuyente especial of six characters).
 */
import { describe, expect, it } from 'vitest';
import { computeWithholding, ecuadorDate, type ReceivedPurchase, type WithholdingBody } from '../../../core/fiscal/sri/index.js';

const NOW = new Date('2026-03-10T15:00:00Z');
const TODAY = ecuadorDate(NOW);

const purchase: ReceivedPurchase = {
  accessKey: '0803202601179001167400110010010000000421234567811',
  codDoc: '01',
  version: '2.1.0',
  ambiente: 1,
  supplier: { ruc: '1790011674001', name: 'Distribuidora Ñandú & Cía. Ltda.', address: 'Quito' },
  buyer: { idTypeCode: '04', taxId: '1792146739001', name: 'Contadores Andinos' },
  numero: '001-001-000000042',
  issueDate: '2026-03-08',
  currency: 'DOLAR',
  totalWithoutTaxes: '120.00',
  totalDiscount: '0.00',
  taxes: [
    { codigo: '2', codigoPorcentaje: '4', baseImponible: '100.00', tarifa: '15', valor: '15.00' },
    { codigo: '2', codigoPorcentaje: '0', baseImponible: '20.00', tarifa: '0', valor: '0.00' },
  ],
  grandTotal: '135.00',
  payments: [{ method: '20', amount: '135.00' }],
};

function body(overrides: Partial<WithholdingBody> = {}): WithholdingBody {
  return { external_ref: 'RET-1', issue_date: TODAY, lines: [{ tax: 'renta', code: '312', base: '120.00', rate: '1.75' }], ...overrides };
}

function compute(b: WithholdingBody, extra: { prior?: Array<{ numero: string; lines: Array<{ tax: 'renta' | 'iva' | 'isd'; code: string }> }>; contribuyenteEspecial?: string; p?: ReceivedPurchase } = {}) {
  return computeWithholding({ body: b, purchaseId: 'pur-1', purchase: extra.p ?? purchase, establishment: '001', emissionPoint: '002', prior: extra.prior ?? [], now: NOW, contribuyenteEspecial: extra.contribuyenteEspecial });
}

function errorsOf(result: ReturnType<typeof compute>): Record<string, string> {
  if (!('errors' in result)) throw new Error('expected refusals');
  return Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
}

describe('computeWithholding', () => {
  it('withholds each line half up to the cent and builds the docSustento from the purchase', () => {
    const result = compute(
      body({
        lines: [
          { tax: 'renta', code: '312', base: '120.00', rate: '1.75' },
          { tax: 'iva', code: '1', base: '15.00', rate: '30.00' },
          { tax: 'isd', code: '4580', base: '0.10', rate: '5' },
        ],
      }),
    );
    if ('errors' in result) throw new Error(JSON.stringify(result.errors));
    const w = result.ok;
    expect(w.lines).toEqual([
      { tax: 'renta', code: '312', base: '120.00', rate: '1.75', amount: '2.10' },
      { tax: 'iva', code: '1', base: '15.00', rate: '30', amount: '4.50' },
      // 0.10 × 5 % = 0.005 → 0.01 (half up).
      { tax: 'isd', code: '4580', base: '0.10', rate: '5', amount: '0.01' },
    ]);
    expect(w.totalWithheld).toBe('6.61');
    expect(w.fiscalPeriod).toBe('03/2026');
    expect(w.subject).toEqual({ name: 'Distribuidora Ñandú & Cía. Ltda.', taxId: '1790011674001', idType: 'ec-ruc', idTypeCode: '04', relatedParty: false });
    expect(w.support).toMatchObject({ purchaseId: 'pur-1', supportCode: '01', codDoc: '01', numero: '001-001-000000042', authorizationNumber: purchase.accessKey, grandTotal: '135.00', payments: [{ method: '20', amount: '135.00' }] });
    expect([w.establishment, w.emissionPoint]).toEqual(['001', '002']);
  });

  it('refuses a date more than five days after the purchase, before it, or in the future', () => {
    const old = { ...purchase, issueDate: '2026-03-03' };
    expect(errorsOf(compute(body(), { p: old }))['issue_date']).toMatch(/7 días después de la factura 001-001-000000042.*dentro de los 5 días/);
    // Five days exactly is still on time.
    expect('ok' in compute(body(), { p: { ...purchase, issueDate: '2026-03-05' } })).toBe(true);
    expect(errorsOf(compute(body({ issue_date: '2026-03-07' })))['issue_date']).toMatch(/anterior a la factura/);
    expect(errorsOf(compute(body({ issue_date: '2026-03-11' })))['issue_date']).toMatch(/posterior a hoy/);
  });

  it('refuses a code unknown for its tax and a rate its code does not fix', () => {
    expect(errorsOf(compute(body({ lines: [{ tax: 'iva', code: '312', base: '15.00', rate: '30' }] })))['lines[0].code']).toMatch(/IVA/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'renta', code: '1', base: '15.00', rate: '30' }] })))['lines[0].code']).toMatch(/renta/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'isd', code: '312', base: '15.00', rate: '5' }] })))['lines[0].code']).toMatch(/ISD/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'iva', code: '2', base: '15.00', rate: '30' }] })))['lines[0].rate']).toMatch(/retiene el 70 %/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'renta', code: '312', base: '10.00', rate: '12.55' }] })))['lines[0].rate']).toMatch(/más de tres cifras/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'renta', code: '312', base: '10.00', rate: '100.01' }] })))['lines[0].rate']).toMatch(/no pasa de 100/);
    // Renta codes by their form: letters after three digits, four digits, payments abroad.
    for (const code of ['3440', '343A', '332B', '403', '500']) expect('ok' in compute(body({ lines: [{ tax: 'renta', code, base: '10.00', rate: '2' }] })), code).toBe(true);
  });

  it('refuses a base of zero or above what the purchase allows for the tax', () => {
    expect(errorsOf(compute(body({ lines: [{ tax: 'renta', code: '312', base: '120.01', rate: '1.75' }] })))['lines[0].base']).toMatch(/subtotal de la factura \(120\.00\)/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'iva', code: '3', base: '15.01', rate: '100' }] })))['lines[0].base']).toMatch(/IVA de la factura \(15\.00\)/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'isd', code: '4580', base: '135.01', rate: '5' }] })))['lines[0].base']).toMatch(/total de la factura \(135\.00\)/);
    expect(errorsOf(compute(body({ lines: [{ tax: 'renta', code: '312', base: '0.00', rate: '1.75' }] })))['lines[0].base']).toMatch(/mayor que cero/);
  });

  it('withholds a tax and code once per purchase: in the same body and across withholdings', () => {
    const line = { tax: 'renta' as const, code: '312', base: '60.00', rate: '1.75' };
    expect(errorsOf(compute(body({ lines: [line, line] })))['lines[1].code']).toMatch(/repite.*lines\[0\]/);
    const prior = [{ numero: '001-002-000000007', lines: [{ tax: 'renta' as const, code: '312' }] }];
    expect(errorsOf(compute(body(), { prior }))['lines[0].code']).toMatch(/ya se le retuvo la renta con código 312 en el comprobante de retención 001-002-000000007/);
    // The same code for another tax is another withholding.
    expect('ok' in compute(body({ lines: [{ tax: 'iva', code: '1', base: '15.00', rate: '30' }] }), { prior })).toBe(true);
  });

  it('checks stated payments against the purchase’s total, and what the XSD cannot hold of the issuer', () => {
    expect(errorsOf(compute(body({ payments: [{ method: '01', amount: '100.00' }] })))['payments']).toMatch(/suman 100\.00.*135\.00/);
    const paid = compute(body({ payments: [{ method: '01', amount: '35.00' }, { method: '19', amount: '100.00' }] }));
    expect('ok' in paid && paid.ok.support.payments).toEqual([{ method: '01', amount: '35.00' }, { method: '19', amount: '100.00' }]);
    expect(errorsOf(compute(body(), { contribuyenteEspecial: '123456' }))['issuer.contribuyente_especial']).toMatch(/de 3 a 5 caracteres/);
    // A purchase without pagos (factura 1.0.0): one payment of its total.
    const none = compute(body(), { p: { ...purchase, payments: [] } });
    expect('ok' in none && none.ok.support.payments).toEqual([{ method: '20', amount: '135.00' }]);
  });
});
