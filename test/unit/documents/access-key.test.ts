import { describe, expect, it } from 'vitest';
import { accessKeyCheckDigit, accessKeyProblem, withCheckDigit } from '../../../core/documents/index.js';

// The example of SRI's "Ficha técnica de comprobantes electrónicos": 21/10/2011, factura,
// RUC 1792146739001, ambiente 1 (pruebas), serie 002001, secuencial 1, código 12345678.
const SRI_EXAMPLE = '2110201101179214673900110020010000000011234567813';

describe('accessKeyCheckDigit', () => {
  it('gives the check digit of SRI’s published example', () => {
    expect(accessKeyCheckDigit(SRI_EXAMPLE.slice(0, 48))).toBe(3);
  });

  it('maps a result of 11 to 0 and of 10 to 1', () => {
    // Sum 0 → 11 - 0 = 11 → 0.
    expect(accessKeyCheckDigit('0'.repeat(48))).toBe(0);
    // Last digit 6 × weight 2 = 12; 12 mod 11 = 1 → 11 - 1 = 10 → 1.
    expect(accessKeyCheckDigit(`${'0'.repeat(47)}6`)).toBe(1);
    // Last digit 4 × 2 = 8 → 11 - 8 = 3; the next digit to the left weighs 3.
    expect(accessKeyCheckDigit(`${'0'.repeat(47)}4`)).toBe(3);
    expect(accessKeyCheckDigit(`${'0'.repeat(46)}10`)).toBe(11 - 3);
  });
});

describe('accessKeyProblem', () => {
  it('accepts the published example for a test key only', () => {
    expect(accessKeyProblem(SRI_EXAMPLE, 'test')).toBeNull();
    expect(accessKeyProblem(SRI_EXAMPLE, 'live')).toBe('environment');
  });

  it('names each defect', () => {
    expect(accessKeyProblem(SRI_EXAMPLE.slice(0, 48), 'test')).toBe('length');
    expect(accessKeyProblem(`${SRI_EXAMPLE}0`, 'test')).toBe('length');
    expect(accessKeyProblem(`${SRI_EXAMPLE.slice(0, 48)}4`, 'test')).toBe('check_digit');
    expect(accessKeyProblem(`${SRI_EXAMPLE.slice(0, 10)}X${SRI_EXAMPLE.slice(11)}`, 'test')).toBe('digits');
  });

  it('builds valid keys with withCheckDigit', () => {
    const live = withCheckDigit(`${SRI_EXAMPLE.slice(0, 23)}2${SRI_EXAMPLE.slice(24, 48)}`);
    expect(accessKeyProblem(live, 'live')).toBeNull();
  });
});
