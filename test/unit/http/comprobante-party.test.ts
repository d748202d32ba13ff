/**
 * Who a comprobante is about, as the Comprobantes screen lists it (core/http/admin/comprobantes.ts
 * `partyOf`): found in each kind's computed JSON, and null — never a throw — for a shape it
 * does not know.
 */
import { describe, expect, it } from 'vitest';
import { partyOf } from '../../../core/http/admin/comprobantes.js';

const party = (name: string, taxId = '1714307103') => ({ name, taxId, idType: 'ec-cedula', idTypeCode: '05' });

describe('partyOf', () => {
  it('reads each kind’s party', () => {
    expect(partyOf(JSON.stringify({ customer: party('María Núñez') }))).toEqual({ role: 'customer', name: 'María Núñez', tax_id: '1714307103' });
    expect(partyOf(JSON.stringify({ supplier: party('Juan Quispe') }))).toEqual({ role: 'supplier', name: 'Juan Quispe', tax_id: '1714307103' });
    expect(partyOf(JSON.stringify({ subject: { ...party('Ferretería Sur'), relatedParty: false } }))).toMatchObject({ role: 'subject', name: 'Ferretería Sur' });
    // A guide: its first recipient, else its carrier.
    const guide = { carrier: party('Transportes Andinos', '1792146739001'), recipients: [party('Bodega Norte', '0990012345001'), party('Bodega Sur')] };
    expect(partyOf(JSON.stringify(guide))).toEqual({ role: 'recipient', name: 'Bodega Norte', tax_id: '0990012345001' });
    expect(partyOf(JSON.stringify({ ...guide, recipients: [] }))).toEqual({ role: 'carrier', name: 'Transportes Andinos', tax_id: '1792146739001' });
  });

  it('is null for shapes it does not know, and skips a party without a name', () => {
    for (const computed of ['', 'no es JSON', 'null', '[]', '"texto"', '{}', '{"customer": "María"}', '{"customer": {"name": 7}}', '{"recipients": {"name": "x"}}', '{"customer": {"name": ""}}']) {
      expect(partyOf(computed), computed).toBeNull();
    }
    expect(partyOf(JSON.stringify({ customer: { name: 'Sin RUC' } }))).toEqual({ role: 'customer', name: 'Sin RUC', tax_id: null });
    expect(partyOf(JSON.stringify({ customer: {}, supplier: party('Juan Quispe') }))).toMatchObject({ role: 'supplier' });
  });
});
