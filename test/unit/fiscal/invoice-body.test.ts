import { describe, expect, it } from 'vitest';
import { issueMessages } from '../../../core/errors/index.js';
import { invoiceBodySchema } from '../../../core/fiscal/sri/invoice-body.js';
import { validBody } from './invoice-fixtures.js';

/** The schema's refusals of `body`, by field path (as the 422 `errors` carries them). */
function refusals(body: unknown): Record<string, string[]> {
  const parsed = invoiceBodySchema.safeParse(body);
  return parsed.success ? {} : { ...issueMessages(parsed.error.issues) };
}

/** The valid body with the value at `path` replaced (or removed, for `undefined`). */
function changed(path: Array<string | number>, value: unknown): unknown {
  const body = structuredClone(validBody()) as unknown as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = body;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return body;
}

describe('invoiceBodySchema', () => {
  it('accepts the contract’s body, with every optional field', () => {
    expect(refusals(validBody())).toEqual({});
    const full = structuredClone(validBody());
    full.customer.email = 'compras@cliente.ec; contabilidad@cliente.ec';
    full.customer.address = 'Av. 10 de Agosto N21-45, Quito';
    full.customer.phone = '+593 2 255 1234';
    full.customer.tax_id_type = { type: 'ec-cedula', code: '05', name: 'Cédula' };
    full.lines[0]!.quantity = '1.123456';
    full.lines[0]!.unit_price = '999999999999.999999';
    full.lines.push({ code: 'ICE-1', description: 'Whisky 750 ml', quantity: '2', unit_price: '15', discount: '0', taxes: [{ type: 'ec-ice-bebidas-alcoholicas', rate: '75', specific_amount: '1.20' }, { type: 'ec-iva-15' }] });
    full.payments = [{ method: '20', amount: '100', term: '30', unit: 'dias' }, { method: '19', amount: '15.00', term: 30 as unknown as string }];
    full.additional_info = [{ name: 'Orden de compra', value: 'OC-2026-0042' }];
    full.grand_total = '115.00';
    const parsed = invoiceBodySchema.safeParse(full);
    expect(parsed.success).toBe(true);
    expect(parsed.data?.payments[1]?.term).toBe('30'); // an integer term becomes text
  });

  it('names each field path it refuses, in Spanish', () => {
    const cases: Array<[Array<string | number>, unknown, string, RegExp]> = [
      [['external_ref'], undefined, 'external_ref', /es obligatorio/],
      [['external_ref'], '   ', 'external_ref', /no puede estar vacío/],
      [['external_ref'], 'x'.repeat(101), 'external_ref', /hasta 100 caracteres/],
      [['issue_date'], '2026-02-30', 'issue_date', /fecha válida AAAA-MM-DD/],
      [['issue_date'], '10/03/2026', 'issue_date', /fecha válida/],
      [['issue_date'], '1999-12-31', 'issue_date', /año 2000/],
      [['establishment'], '1', 'establishment', /tres dígitos/],
      [['establishment'], '000', 'establishment', /tres dígitos/],
      [['emission_point'], 1, 'emission_point', /entre comillas/],
      [['currency'], 'EUR', 'currency', /USD/],
      [['customer'], 'Juan', 'customer', /debe ser un objeto/],
      [['customer', 'name'], 'x'.repeat(301), 'customer.name', /hasta 300 caracteres/],
      [['customer', 'name'], 'Juan\nPérez', 'customer.name', /saltos de línea/],
      [['customer', 'tax_id'], '1'.repeat(21), 'customer.tax_id', /hasta 20 caracteres/],
      [['customer', 'tax_id_type'], 'ec-cedula', 'customer.tax_id_type', /\{type, code\}/],
      [['customer', 'tax_id_type', 'code'], undefined, 'customer.tax_id_type.code', /es obligatorio/],
      [['customer', 'email'], 'no-es-correo', 'customer.email', /dirección de correo/],
      [['customer', 'address'], '', 'customer.address', /no puede estar vacío/],
      [['lines'], [], 'lines', /al menos una línea/],
      [['lines'], {}, 'lines', /lista de líneas/],
      [['lines', 0, 'code'], 'x'.repeat(26), 'lines[0].code', /hasta 25 caracteres/],
      [['lines', 0, 'description'], undefined, 'lines[0].description', /es obligatorio/],
      [['lines', 0, 'quantity'], '0', 'lines[0].quantity', /mayor que cero/],
      [['lines', 0, 'quantity'], '1.1234567', 'lines[0].quantity', /hasta 6 decimales/],
      [['lines', 0, 'quantity'], '-1', 'lines[0].quantity', /una cantidad/],
      [['lines', 0, 'unit_price'], 12.5, 'lines[0].unit_price', /entre comillas/],
      [['lines', 0, 'unit_price'], '12,50', 'lines[0].unit_price', /punto decimal/],
      [['lines', 0, 'unit_price'], '1234567890123', 'lines[0].unit_price', /precio unitario/],
      [['lines', 0, 'discount'], '0.001', 'lines[0].discount', /hasta 2 decimales/],
      [['lines', 0, 'discount'], undefined, 'lines[0].discount', /es obligatorio/],
      [['lines', 0, 'taxes'], [], 'lines[0].taxes', /al menos su IVA/],
      [['lines', 0, 'taxes', 0, 'type'], 7, 'lines[0].taxes[0].type', /entre comillas/],
      [['lines', 0, 'taxes', 0, 'rate'], '12.345', 'lines[0].taxes[0].rate', /hasta 2 decimales/],
      [['lines', 0, 'taxes', 0, 'rate'], '150.25', 'lines[0].taxes[0].rate', /4 cifras/],
      [['lines', 0, 'taxes', 0, 'specific_amount'], '1.234', 'lines[0].taxes[0].specific_amount', /importe/],
      [['payments'], [], 'payments', /al menos una forma de pago/],
      [['payments', 0, 'method'], '02', 'payments[0].method', /forma de pago del SRI/],
      [['payments', 0, 'amount'], '115', 'payments', /^$/], // a valid amount: no refusal at all
      [['payments', 0, 'term'], '-3', 'payments[0].term', /plazo/],
      [['payments', 0, 'term'], 2.5, 'payments[0].term', /plazo/],
      [['payments', 0, 'unit'], 'quincenas largas', 'payments[0].unit', /hasta 10 caracteres/],
      [['additional_info'], [{ name: 'a', value: '' }], 'additional_info[0].value', /no puede estar vacío/],
      [['additional_info'], Array.from({ length: 16 }, (_, i) => ({ name: `c${i}`, value: 'v' })), 'additional_info', /hasta 15/],
      [['grand_total'], 'abc', 'grand_total', /importe/],
      [['colour'], 'rojo', 'colour', /campo no admitido/],
      [['lines', 0, 'tax'], 'iva', 'lines[0].tax', /campo no admitido/],
    ];
    for (const [path, value, field, message] of cases) {
      const found = refusals(changed(path, value));
      if (message.source === '^$') {
        expect(found, `${path.join('.')} = ${JSON.stringify(value)}`).toEqual({});
        continue;
      }
      expect(Object.keys(found), `${path.join('.')} = ${JSON.stringify(value)}`).toEqual([field]);
      expect(found[field]!.join(' '), field).toMatch(message);
    }
  });

  it('accepts ICE rates as the XSD’s tarifa allows (4 digits, 2 decimals)', () => {
    for (const rate of ['75', '12.5', '300', '0.05', '99.99', '150.00']) {
      expect(refusals(changed(['lines', 0, 'taxes', 0, 'rate'], rate)), rate).toEqual({});
    }
  });

  it('never answers in zod’s English, even for a body of the wrong types everywhere', () => {
    const found = refusals({
      external_ref: 1, issue_date: null, establishment: [], emission_point: {}, currency: 2, customer: [], lines: 'x', payments: [1],
      additional_info: 'x', grand_total: 12.5,
    });
    const messages = Object.values(found).flat();
    expect(messages.length).toBeGreaterThan(8);
    for (const m of messages) expect(m).not.toMatch(/invalid|expected|received/i);
  });

  it('refuses a body that is not an object', () => {
    expect(refusals('factura')).toEqual({ body: [expect.stringMatching(/debe ser un objeto/)] });
  });
});
