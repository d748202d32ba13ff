import { describe, expect, it } from 'vitest';
import { PERU_ID_TYPES, checkPeruId, checkPeruRuc, rucCheckDigit } from '../../../core/fiscal/sunat/identification.js';

// Real RUCs of each prefix (python-stdnum's test vectors, tests/test_pe_ruc.doctest), greenter's
// sample issuers (20600055519, 20505310072, 20480072872) and SUNAT's beta issuer (20000000001).
const REAL_RUCS = [
  '20512333797', '10054148289', '10000655959', '10452880437', '15484032987', '15501941597',
  '17155542071', '17322796196', '20100255325', '20552756453', '20600055519', '20505310072',
  '20480072872', '20000000001',
];

/** A RUC from a prefix and 8 digits, with its check digit (computed independently of the module). */
function makeRuc(first10: string): string {
  const weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  const sum = weights.reduce((s, w, i) => s + w * Number(first10[i]), 0);
  return first10 + String((11 - (sum % 11)) % 10);
}

/** The same first ten digits with every wrong last digit. */
function wrongDigits(ruc: string): string[] {
  return '0123456789'.split('').filter((d) => d !== ruc[10]).map((d) => ruc.slice(0, 10) + d);
}

describe('checkPeruRuc', () => {
  it('accepts real RUCs of every prefix', () => {
    for (const ruc of REAL_RUCS) expect(checkPeruRuc(ruc), ruc).toEqual({ ok: true, kind: 'ruc' });
  });

  it('accepts computed RUCs, including prefix 16 and the check digits that come from 10 and 11', () => {
    const computed = ['1045678912', '1500000001', '1600000001', '1712345678', '2060123456', '2010007097'].map(makeRuc);
    for (const ruc of computed) expect(checkPeruRuc(ruc), ruc).toEqual({ ok: true, kind: 'ruc' });
    expect(rucCheckDigit('2051233379')).toBe(7);
  });

  it('maps 11 − sum mod 11 = 10 to 0 and = 11 to 1', () => {
    // First ten digits whose 11 − (sum mod 11) is 10 (1012345687: sum 144 ≡ 1 mod 11) and 11 (1012345678: sum 143 ≡ 0).
    for (const first10 of ['1012345687', '1512345688', '1612345686', '1712345684', '2012345693']) {
      expect(rucCheckDigit(first10), first10).toBe(0);
      expect(checkPeruRuc(`${first10}0`), first10).toEqual({ ok: true, kind: 'ruc' });
      expect(checkPeruRuc(`${first10}1`), first10).toMatchObject({ ok: false, rule: 'digito_verificador' });
    }
    for (const first10 of ['1012345678', '1512345679', '1612345680', '1712345689', '2012345684']) {
      expect(rucCheckDigit(first10), first10).toBe(1);
      expect(checkPeruRuc(`${first10}1`), first10).toEqual({ ok: true, kind: 'ruc' });
      expect(checkPeruRuc(`${first10}0`), first10).toMatchObject({ ok: false, rule: 'digito_verificador' });
    }
  });

  it('refuses every wrong check digit', () => {
    for (const ruc of ['20512333797', '10054148289', '20000000001', makeRuc('1600000001')]) {
      for (const wrong of wrongDigits(ruc)) {
        const check = checkPeruRuc(wrong);
        expect(check, wrong).toMatchObject({ ok: false, rule: 'digito_verificador' });
        if (!check.ok) expect(check.message).toMatch(/verificador.*módulo 11, pesos 5,4,3,2,7,6,5,4,3,2/);
      }
    }
  });

  it('refuses prefixes other than 10, 15, 16, 17 and 20, even with a right check digit', () => {
    for (const prefix of ['00', '11', '12', '14', '18', '19', '21', '30', '99']) {
      const ruc = makeRuc(`${prefix}12345678`);
      const check = checkPeruRuc(ruc);
      expect(check, ruc).toMatchObject({ ok: false, rule: 'prefijo' });
      if (!check.ok) expect(check.message).toMatch(/10, 15, 16 o 17.*20/);
    }
  });

  it('refuses wrong lengths and anything but digits', () => {
    for (const ruc of ['', '2051233379', '205123337970', '20512333797 ', ' 20512333797', '20-512333797', '2051233379A', '２0512333797', '20512333797\n']) {
      const check = checkPeruRuc(ruc);
      expect(check, JSON.stringify(ruc)).toMatchObject({ ok: false, rule: 'formato' });
      if (!check.ok) expect(check.message).toMatch(/11 dígitos/);
    }
  });
});

describe('checkPeruId', () => {
  it('checks a RUC (code 6) as checkPeruRuc does', () => {
    expect(checkPeruId('6', '20512333797')).toEqual({ ok: true, kind: 'ruc' });
    expect(checkPeruId('6', '20512333798')).toMatchObject({ ok: false, rule: 'digito_verificador' });
    expect(checkPeruId('6', '45678912')).toMatchObject({ ok: false, rule: 'formato' });
  });

  it('accepts a DNI of 8 digits (code 1) and refuses any other length or character', () => {
    for (const dni of ['45678912', '05414828', '00000001', '10203040']) expect(checkPeruId('1', dni), dni).toEqual({ ok: true, kind: 'dni' });
    for (const dni of ['', '4567891', '456789123', '4567891A', '4567-8912', ' 45678912', '20512333797']) {
      const check = checkPeruId('1', dni);
      expect(check, dni).toMatchObject({ ok: false, rule: 'formato' });
      if (!check.ok) expect(check.message).toMatch(/DNI tiene exactamente 8 dígitos/);
    }
  });

  it('accepts a carné de extranjería and a pasaporte of 1 to 12 letters or digits (codes 4 and 7)', () => {
    for (const id of ['001234567', 'A1', 'X', 'ABC123456789', 'ab12cd34']) {
      expect(checkPeruId('4', id), id).toEqual({ ok: true, kind: 'carne_extranjeria' });
      expect(checkPeruId('7', id), id).toEqual({ ok: true, kind: 'pasaporte' });
    }
    for (const id of ['', 'ABC1234567890', 'AB-123', 'AB 123', 'Ñ12345', '-']) {
      const ce = checkPeruId('4', id);
      const passport = checkPeruId('7', id);
      expect(ce, id).toMatchObject({ ok: false, rule: 'formato' });
      expect(passport, id).toMatchObject({ ok: false, rule: 'formato' });
      if (!ce.ok) expect(ce.message).toMatch(/carné de extranjería tiene de 1 a 12/);
      if (!passport.ok) expect(passport.message).toMatch(/pasaporte tiene de 1 a 12/);
    }
  });

  it('accepts a foreign tax number of 1 to 15 visible characters (code 0)', () => {
    for (const id of ['12-3456789', 'B12345678', 'DE123456789', 'X', '123456789012345']) {
      expect(checkPeruId('0', id), id).toEqual({ ok: true, kind: 'no_domiciliado' });
    }
    for (const id of ['', '1234567890123456', '12 3456789', 'Ñ123', '12\t34']) {
      const check = checkPeruId('0', id);
      expect(check, id).toMatchObject({ ok: false, rule: 'formato' });
      if (!check.ok) expect(check.message).toMatch(/no domiciliado admite de 1 a 15/);
    }
  });

  it('accepts "sin documento" (code -) only with the number "-"', () => {
    expect(checkPeruId('-', '-')).toEqual({ ok: true, kind: 'sin_documento' });
    for (const id of ['', '0', '00000000', '45678912', '--']) {
      const check = checkPeruId('-', id);
      expect(check, id).toMatchObject({ ok: false, rule: 'formato' });
      if (!check.ok) expect(check.message).toMatch(/guion/);
    }
  });

  it('refuses the catalog codes it does not cover and unknown codes by name', () => {
    for (const code of ['A', 'B', 'C', 'D', 'E', 'F', '2', '3', '5', '8', '06', '01', '', 'ruc', 'pe-ruc']) {
      const check = checkPeruId(code, '20512333797');
      expect(check, code).toMatchObject({ ok: false, rule: 'tipo' });
      if (!check.ok) {
        expect(check.message).toContain(`"${code}"`);
        expect(check.message).toMatch(/catálogo 06.*1 DNI.*6 RUC/);
      }
    }
  });

  it('names every code it accepts', () => {
    expect(Object.keys(PERU_ID_TYPES).sort()).toEqual(['-', '0', '1', '4', '6', '7']);
  });
});
