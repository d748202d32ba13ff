import { describe, expect, it } from 'vitest';
import { parseTestCertificateRequest } from '../../../core/certificates/index.js';
import { isSelloError } from '../../../core/errors/index.js';

const principal = {
  first_name: 'Ana',
  last_name: 'Pérez',
  email: 'ana@contadores.ec',
  mobile_phone: '+593991234567',
  legal_id: '0912345678',
  legal_id_type: { type: 'ec-cedula', code: '05', name: 'Cédula' },
  address: {
    line_1: 'Av. 9 de Octubre 100',
    locality: 'Rocafuerte',
    administrative_district_level_1: 'Guayas',
    administrative_district_level_2: 'Guayaquil',
    country: { code: 'EC', name: 'Ecuador' },
  },
};
const ruc = { type: 'ec-ruc', code: '06', name: 'RUC' };
const organization = { legal_name: 'Contadores Asociados S.A.', tax_id_type: ruc, tax_id: '0991234567001', address: principal.address };

function fieldsOf(body: unknown): Record<string, string[]> {
  try {
    parseTestCertificateRequest(body);
  } catch (err) {
    if (isSelloError(err) && err.code === 'validation_failed') return err.details.fields ?? {};
    throw err;
  }
  throw new Error('expected validation_failed');
}

/** Spec, Certificate: type and validity rules; CONTRACT §8: IdTypes from the catalog. */
describe('parseTestCertificateRequest', () => {
  it('accepts every type with a valid body', () => {
    expect(parseTestCertificateRequest({ type: 'ec/instant', validity: 1, principal }).type).toBe('ec/instant');
    expect(parseTestCertificateRequest({ type: 'pe/instant', validity: 1, principal }).type).toBe('pe/instant');
    expect(parseTestCertificateRequest({ type: 'ec/individual', validity: 1825, principal }).validity).toBe(1825);
    expect(parseTestCertificateRequest({ type: 'ec/sole-proprietorship', validity: 732, principal: { ...principal, tax_id: '0912345678001', tax_id_type: ruc } }).principal.tax_id).toBe('0912345678001');
    for (const type of ['ec/business-director', 'ec/business-employee', 'ec/organization']) {
      expect(parseTestCertificateRequest({ type, validity: 1095, principal, organization }).organization?.legal_name).toBe('Contadores Asociados S.A.');
    }
  });

  it('refuses a validity outside 1, 365, 732, 1095, 1825', () => {
    expect(fieldsOf({ type: 'ec/individual', validity: 30, principal })).toEqual({ validity: [expect.stringContaining('1, 365, 732, 1095, 1825')] });
  });

  it('refuses an */instant certificate for more than 1 day', () => {
    expect(fieldsOf({ type: 'ec/instant', validity: 365, principal })).toEqual({ validity: [expect.stringContaining('1 día')] });
    expect(fieldsOf({ type: 'gt/instant', validity: 732, principal })).toHaveProperty('validity');
  });

  it('refuses a tax id on ec/individual', () => {
    expect(fieldsOf({ type: 'ec/individual', validity: 365, principal: { ...principal, tax_id: '0912345678001', tax_id_type: ruc } })).toHaveProperty(['principal.tax_id']);
  });

  it('refuses ec/instant for an organization and business types without one', () => {
    expect(fieldsOf({ type: 'ec/instant', validity: 1, principal, organization })).toHaveProperty('organization');
    for (const type of ['ec/business-director', 'ec/business-employee', 'ec/organization']) {
      expect(fieldsOf({ type, validity: 365, principal })).toEqual({ organization: [expect.stringContaining('necesita organization')] });
    }
  });

  it('asks a sole proprietor for a tax id', () => {
    expect(fieldsOf({ type: 'ec/sole-proprietorship', validity: 365, principal })).toHaveProperty(['principal.tax_id']);
  });

  it('refuses an IdType that is not a (type, code) pair of the catalog, naming the field', () => {
    expect(fieldsOf({ type: 'ec/individual', validity: 365, principal: { ...principal, legal_id_type: { type: 'ec-cedula', code: '06', name: 'Cédula' } } })).toEqual({
      'principal.legal_id_type': [expect.stringContaining('(ec-cedula, 06)')],
    });
    expect(fieldsOf({ type: 'ec/organization', validity: 365, principal, organization: { ...organization, tax_id_type: { type: 'ec-nit', code: '06', name: 'x' } } })).toHaveProperty([
      'organization.tax_id_type',
    ]);
  });

  it('names every missing principal field and unknown type', () => {
    const { email: _email, address: _address, ...rest } = principal;
    const fields = fieldsOf({ type: 'ec/whatever', validity: 1, principal: rest });
    expect(fields['type']).toEqual([expect.stringContaining('ec/individual')]);
    expect(fields['principal.email']).toEqual(['es obligatorio']);
    expect(fields['principal.address']).toEqual(['es obligatorio']);
    expect(fieldsOf({ type: 'ec/individual', validity: 1 })).toEqual({ principal: ['es obligatorio'] });
    expect(fieldsOf({ type: 'ec/individual', validity: 1, principal: { ...principal, address: { ...principal.address, country: { code: 'Ecuador', name: 'Ecuador' } } } })).toHaveProperty([
      'principal.address.country.code',
    ]);
  });
});
