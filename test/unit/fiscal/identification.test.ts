import { describe, expect, it } from 'vitest';
import {
  FINAL_CONSUMER_ID,
  checkCedula,
  checkCustomerId,
  checkIssuerRuc,
  checkRuc,
  sriBuyerIdCode,
} from '../../../core/fiscal/sri/identification.js';

// Real public numbers of each kind (python-stdnum's test vectors, tests/test_ec_ruc.doctest and
// test_ec_ci.doctest; the SRI's ficha técnica example RUC 1792146739001).
const CEDULAS = ['1714307103', '0602910945', '0926687856', '0910005917'];
const NATURAL_RUCS = ['0101016905001', '0602910945001', '0910005917001', '1001152287001', '1713238234001', '1803557964001'];
const PUBLIC_RUCS = ['0160000510001', '0960000490001', '1760000150001', '1760001550001', '1768007390001', '2160011760001'];
const COMPANY_RUCS = ['0190115798001', '0990138850001', '1790011674001', '1792060346001', '1792146739001', '1890037646001'];

describe('checkCedula', () => {
  it('accepts real cédulas', () => {
    for (const id of CEDULAS) expect(checkCedula(id), id).toEqual({ ok: true, kind: 'cedula' });
  });

  it('names each rule that fails', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['171430710', 'formato', /10 dígitos/],
      ['171430710-3', 'formato', /10 dígitos/],
      ['8814307107', 'provincia', /provincia \(01 a 24, o 30/],
      ['2514307101', 'provincia', /provincia/],
      ['0014307103', 'provincia', /provincia/],
      ['1784307108', 'tercer_digito', /tercer dígito debe ser menor que 6/],
      ['1714307104', 'digito_verificador', /dígito verificador \(el 10\.º\).*módulo 10/],
    ];
    for (const [id, rule, message] of cases) {
      const check = checkCedula(id);
      expect(check, id).toMatchObject({ ok: false, rule });
      if (!check.ok) expect(check.message).toMatch(message);
    }
  });

  it('accepts province 30 (Ecuadorians abroad); third digit 6 (foreigners) only when lenient', () => {
    const abroad = withCedulaCheck('301234567');
    expect(checkCedula(abroad)).toEqual({ ok: true, kind: 'cedula' });
    expect(checkCedula('0962467429')).toEqual({ ok: true, kind: 'cedula' }); // python-stdnum #267
    expect(checkCedula('0962467429', { strict: true })).toMatchObject({ ok: false, rule: 'tercer_digito' });
    const fifty = withCedulaCheck('501234567');
    expect(checkCedula(fifty)).toEqual({ ok: true, kind: 'cedula' });
    expect(checkCedula(fifty, { strict: true })).toMatchObject({ ok: false, rule: 'provincia' });
  });
});

/** The modulo-10 check digit appended to nine digits, computed the long way. */
function withCedulaCheck(nine: string): string {
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    let p = Number(nine[i]) * (i % 2 === 0 ? 2 : 1);
    if (p > 9) p -= 9;
    sum += p;
  }
  return `${nine}${(10 - (sum % 10)) % 10}`;
}

describe('checkRuc', () => {
  it('accepts real RUCs of each kind, strictly', () => {
    for (const id of NATURAL_RUCS) expect(checkRuc(id, { strict: true }), id).toEqual({ ok: true, kind: 'ruc_natural' });
    for (const id of PUBLIC_RUCS) expect(checkRuc(id, { strict: true }), id).toEqual({ ok: true, kind: 'ruc_publico' });
    for (const id of COMPANY_RUCS) expect(checkRuc(id, { strict: true }), id).toEqual({ ok: true, kind: 'ruc_sociedad' });
  });

  it('names each rule that fails', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['179206034601', 'formato', /13 dígitos/],
      ['17920603A6001', 'formato', /13 dígitos/],
      ['0926687856000', 'establecimiento', /termina en 001/],
      ['1790011674002', 'establecimiento', /termina en 001/],
      ['8810034069001', 'provincia', /provincia/],
      ['8892397539001', 'provincia', /provincia/],
      ['0170000610001', 'tercer_digito', /0 a 5 .* 6 .* 9/],
      ['0180000610001', 'tercer_digito', /tercer dígito/],
      ['0926687857001', 'digito_verificador', /persona natural.*módulo 10/],
      ['1714307104001', 'digito_verificador', /cédula válida/],
    ];
    for (const [id, rule, message] of cases) {
      const check = checkRuc(id);
      expect(check, id).toMatchObject({ ok: false, rule });
      if (!check.ok) expect(check.message).toMatch(message);
    }
  });

  it('refuses a public body’s or a company’s wrong check digit when strict, naming the weights', () => {
    const publicBad = checkRuc('0160000610001', { strict: true });
    expect(publicBad).toMatchObject({ ok: false, rule: 'digito_verificador' });
    if (!publicBad.ok) expect(publicBad.message).toMatch(/entidad pública.*9\.º dígito.*3,2,7,6,5,4,3,2/);
    const companyBad = checkRuc('0190115799001', { strict: true });
    expect(companyBad).toMatchObject({ ok: false, rule: 'digito_verificador' });
    if (!companyBad.ok) expect(companyBad.message).toMatch(/sociedad.*10\.º dígito.*4,3,2,7,6,5,4,3,2/);
  });

  it('is lenient where the rules are known not to hold, and says which one failed', () => {
    // A foreigner's RUC: third digit 6, but the cédula's modulo 10 (python-stdnum #267).
    expect(checkRuc('0962467429001')).toEqual({ ok: true, kind: 'ruc_natural' });
    // A company whose number follows the public bodies' check (python-stdnum #457).
    expect(checkRuc('1793221293001')).toEqual({ ok: true, kind: 'ruc_sociedad' });
    // Active companies that follow no known check (python-stdnum #290, #497).
    for (const id of ['0993370026001', '1793213150001', '0190115799001']) {
      const check = checkRuc(id);
      expect(check, id).toMatchObject({ ok: true, kind: 'ruc_sociedad' });
      if (check.ok) expect(check.note).toMatch(/sin comprobar su dígito verificador: el 10\.º dígito no es el verificador de sociedad privada/);
    }
    const publicOdd = checkRuc('0160000610001');
    expect(publicOdd).toMatchObject({ ok: true, kind: 'ruc_publico' });
    if (publicOdd.ok) expect(publicOdd.note).toMatch(/entidad pública/);
  });
});

describe('checkIssuerRuc', () => {
  it('checks the issuer’s RUC as any RUC, never the final consumer’s', () => {
    expect(checkIssuerRuc('1792146739001')).toEqual({ ok: true, kind: 'ruc_sociedad' });
    expect(checkIssuerRuc('1714307103001')).toEqual({ ok: true, kind: 'ruc_natural' });
    expect(checkIssuerRuc(FINAL_CONSUMER_ID)).toMatchObject({ ok: false, rule: 'consumidor_final' });
    expect(checkIssuerRuc('1714307103')).toMatchObject({ ok: false, rule: 'formato' });
  });
});

describe('checkCustomerId', () => {
  it('checks the id by its catalog type', () => {
    expect(checkCustomerId('ec-cedula', '1714307103')).toEqual({ ok: true, kind: 'cedula' });
    expect(checkCustomerId('ec-ruc', '1790011674001')).toEqual({ ok: true, kind: 'ruc_sociedad' });
    expect(checkCustomerId('ec-ruc', '1714307103')).toMatchObject({ ok: false, rule: 'formato' });
    expect(checkCustomerId('ec-cedula', '1714307103001')).toMatchObject({ ok: false, rule: 'formato' });
    expect(checkCustomerId('ec-pasaporte', 'AB123456')).toEqual({ ok: true, kind: 'pasaporte' });
    expect(checkCustomerId('ec-identificacion-exterior', '12-3456789')).toEqual({ ok: true, kind: 'exterior' });
    expect(checkCustomerId('pe-dni', '12345678')).toMatchObject({ ok: false, rule: 'tipo' });
  });

  it('keeps the 13 nines and ec-consumidor-final together', () => {
    expect(checkCustomerId('ec-consumidor-final', FINAL_CONSUMER_ID)).toEqual({ ok: true, kind: 'consumidor_final' });
    expect(checkCustomerId('ec-consumidor-final', '1714307103')).toMatchObject({ ok: false, rule: 'consumidor_final' });
    for (const type of ['ec-ruc', 'ec-cedula', 'ec-pasaporte', 'ec-identificacion-exterior']) {
      const check = checkCustomerId(type, FINAL_CONSUMER_ID);
      expect(check, type).toMatchObject({ ok: false, rule: 'consumidor_final' });
      if (!check.ok) expect(check.message).toMatch(/ec-consumidor-final/);
    }
  });

  it('takes passports and foreign ids as printable text of at most 20 characters', () => {
    expect(checkCustomerId('ec-pasaporte', 'AB 123456')).toMatchObject({ ok: false, rule: 'formato' });
    expect(checkCustomerId('ec-pasaporte', 'Ñ123456')).toMatchObject({ ok: false, rule: 'formato' });
    expect(checkCustomerId('ec-pasaporte', 'A'.repeat(21))).toMatchObject({ ok: false, rule: 'formato' });
    expect(checkCustomerId('ec-identificacion-exterior', '900.123.456-7')).toEqual({ ok: true, kind: 'exterior' });
  });
});

describe('sriBuyerIdCode', () => {
  it('gives the SRI’s buyer codes: RUC is 04 in the XML, whatever the catalog serves', () => {
    expect(['ec-ruc', 'ec-cedula', 'ec-pasaporte', 'ec-consumidor-final', 'ec-identificacion-exterior'].map(sriBuyerIdCode)).toEqual(['04', '05', '06', '07', '08']);
    expect(sriBuyerIdCode('pe-ruc')).toBeUndefined();
  });
});
