/**
 * Bodies, catalogs and issuers for the invoice tests: one valid body to start from, changed per
 * test with `withBody`.
 */
import { identificationTypes, taxTypes } from '../../../core/catalogs/index.js';
import type { InvoiceBody } from '../../../core/fiscal/sri/invoice-body.js';
import type { Issuer } from '../../../core/fiscal/sri/invoice-model.js';

export const catalogs = { identificationTypes, taxTypes };

/** 10:00 in Ecuador (15:00 UTC) on 2026-03-10. */
export const NOW = new Date('2026-03-10T15:00:00Z');

export function validBody(): InvoiceBody {
  return {
    external_ref: 'ERP-0001',
    issue_date: '2026-03-10',
    establishment: '001',
    emission_point: '001',
    currency: 'USD',
    customer: {
      name: 'Juan Pérez',
      tax_id: '1714307103',
      tax_id_type: { type: 'ec-cedula', code: '05' },
    },
    lines: [{ code: 'P-1', description: 'Servicio contable', quantity: '1', unit_price: '100.00', discount: '0.00', taxes: [{ type: 'ec-iva-15' }] }],
    payments: [{ method: '01', amount: '115.00' }],
  };
}

/** A deep copy of the valid body, changed by `change`. */
export function withBody(change: (body: InvoiceBody) => void): InvoiceBody {
  const body = structuredClone(validBody());
  change(body);
  return body;
}

export function issuer(overrides: Partial<Issuer> = {}): Issuer {
  return {
    country: 'EC',
    ruc: '1792146739001',
    razon_social: 'Contadores Andinos S.A.',
    nombre_comercial: 'Contadores Andinos',
    dir_matriz: 'Av. Amazonas N34-451 y Juan Pablo Sanz, Quito',
    establishments: [
      { code: '001', address: 'Av. Amazonas N34-451, Quito', emission_points: ['001', '002'] },
      { code: '002', address: 'Calle Bolívar 5-12, Cuenca', emission_points: ['001'] },
    ],
    obligado_contabilidad: true,
    regimen: 'general',
    certificate_id: '00000000-0000-4000-8000-000000000001',
    ...overrides,
  };
}
