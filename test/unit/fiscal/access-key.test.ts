import { describe, expect, it } from 'vitest';
import { accessKeyProblem } from '../../../core/documents/index.js';
import { accessKeyFor, numeroOf, randomNumericCode, type AccessKeyParts } from '../../../core/fiscal/sri/access-key.js';

// The example of the SRI's "Ficha técnica de comprobantes electrónicos": 21/10/2011, factura,
// RUC 1792146739001, ambiente 1, serie 002-001, secuencial 1, código numérico 12345678.
const SRI_EXAMPLE = '2110201101179214673900110020010000000011234567813';
const EXAMPLE_PARTS: AccessKeyParts = {
  issueDate: '2011-10-21',
  codDoc: '01',
  ruc: '1792146739001',
  ambiente: 1,
  establishment: '002',
  emissionPoint: '001',
  secuencial: '000000001',
  numericCode: '12345678',
};

describe('accessKeyFor', () => {
  it('builds the SRI’s published example', () => {
    expect(accessKeyFor(EXAMPLE_PARTS)).toBe(SRI_EXAMPLE);
  });

  it('puts every field in its place, with emission type 1 and a valid check digit', () => {
    const parts: AccessKeyParts = {
      issueDate: '2026-03-10',
      codDoc: '01',
      ruc: '1790011674001',
      ambiente: 2,
      establishment: '003',
      emissionPoint: '017',
      secuencial: '000004711',
      numericCode: '04718263',
    };
    const key = accessKeyFor(parts);
    expect(key).toMatch(/^\d{49}$/);
    expect({
      fecha: key.slice(0, 8),
      codDoc: key.slice(8, 10),
      ruc: key.slice(10, 23),
      ambiente: key.slice(23, 24),
      serie: key.slice(24, 30),
      secuencial: key.slice(30, 39),
      codigo: key.slice(39, 47),
      tipoEmision: key.slice(47, 48),
    }).toEqual({
      fecha: '10032026',
      codDoc: '01',
      ruc: '1790011674001',
      ambiente: '2',
      serie: '003017',
      secuencial: '000004711',
      codigo: '04718263',
      tipoEmision: '1',
    });
    expect(accessKeyProblem(key, 'live')).toBeNull();
    expect(accessKeyProblem(accessKeyFor({ ...parts, ambiente: 1 }), 'test')).toBeNull();
  });

  it('gives a valid check digit for many random codes', () => {
    for (let i = 0; i < 200; i++) {
      const key = accessKeyFor({ ...EXAMPLE_PARTS, numericCode: randomNumericCode(), secuencial: String(i).padStart(9, '0') });
      expect(accessKeyProblem(key, 'test'), key).toBeNull();
    }
  });

  it('refuses malformed parts', () => {
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, issueDate: '21/10/2011' })).toThrow(/issueDate/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, codDoc: '1' })).toThrow(/codDoc/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, ruc: '179214673900' })).toThrow(/ruc/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, ambiente: 3 as 1 })).toThrow(/ambiente/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, establishment: '2' })).toThrow(/establishment/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, emissionPoint: '0001' })).toThrow(/emissionPoint/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, secuencial: '1' })).toThrow(/secuencial/);
    expect(() => accessKeyFor({ ...EXAMPLE_PARTS, numericCode: '1234567' })).toThrow(/numericCode/);
  });
});

describe('randomNumericCode', () => {
  it('gives eight digits, and not always the same', () => {
    const codes = new Set(Array.from({ length: 50 }, () => randomNumericCode()));
    for (const code of codes) expect(code).toMatch(/^\d{8}$/);
    expect(codes.size).toBeGreaterThan(40);
  });
});

describe('numeroOf', () => {
  it('prints the series and number', () => {
    expect(numeroOf('001', '002', '000000123')).toBe('001-002-000000123');
  });
});
