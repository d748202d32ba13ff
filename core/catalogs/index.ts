import type { Store } from '../db/index.js';

/**
 * The spec's two catalogs, exactly as the spec lists them (CONTRACT §8). Two codes
 * differ from the authorities' own tables and are served as the spec says:
 * `ec-ruc` 06 (SRI's buyer-id table says 04) and `pe-exonerado` 1000 (SUNAT's
 * catalog 05 says 9997). The code is the source of truth; the tables are refreshed
 * from it at every start so they can be filtered with SQL like any resource.
 */
export interface IdentificationType {
  code: string;
  authority_code: string;
  country: 'EC' | 'PE';
  name: string;
}

export interface TaxType extends IdentificationType {
  group: string;
}

export const identificationTypes: readonly IdentificationType[] = [
  { code: 'ec-ruc', authority_code: '06', country: 'EC', name: 'RUC' },
  { code: 'ec-cedula', authority_code: '05', country: 'EC', name: 'Cédula' },
  { code: 'ec-pasaporte', authority_code: '06', country: 'EC', name: 'Pasaporte' },
  { code: 'ec-consumidor-final', authority_code: '07', country: 'EC', name: 'Consumidor final' },
  { code: 'ec-identificacion-exterior', authority_code: '08', country: 'EC', name: 'Identificación del exterior' },
  { code: 'pe-no-tax-id', authority_code: '0', country: 'PE', name: 'Sin documento tributario' },
  { code: 'pe-dni', authority_code: '1', country: 'PE', name: 'DNI' },
  { code: 'pe-carnet-extranjeria', authority_code: '4', country: 'PE', name: 'Carnet de extranjería' },
  { code: 'pe-ruc', authority_code: '6', country: 'PE', name: 'RUC' },
  { code: 'pe-pasaporte', authority_code: '7', country: 'PE', name: 'Pasaporte' },
  { code: 'pe-cedula-diplomatica', authority_code: 'A', country: 'PE', name: 'Cédula diplomática de identidad' },
  { code: 'pe-no-domiciliado', authority_code: 'B', country: 'PE', name: 'Documento de identidad del país de residencia (no domiciliado)' },
  { code: 'pe-numero-identificacion', authority_code: 'D', country: 'PE', name: 'Número de identificación' },
  { code: 'pe-tarjeta-andina', authority_code: 'E', country: 'PE', name: 'Tarjeta Andina de Migración' },
];

export const taxTypes: readonly TaxType[] = [
  { code: 'ec-iva-12', authority_code: '2', country: 'EC', group: 'iva', name: 'IVA 12 %' },
  { code: 'ec-iva-0', authority_code: '0', country: 'EC', group: 'iva', name: 'IVA 0 %' },
  { code: 'ec-iva-14', authority_code: '3', country: 'EC', group: 'iva', name: 'IVA 14 %' },
  { code: 'ec-no-objeto-iva', authority_code: '6', country: 'EC', group: 'iva', name: 'No objeto de IVA' },
  { code: 'ec-exento-iva', authority_code: '7', country: 'EC', group: 'iva', name: 'Exento de IVA' },
  // The VAT rates in force since 2024 (CONTRACT §15, compatible addition, versioning rule 2).
  { code: 'ec-iva-15', authority_code: '4', country: 'EC', group: 'iva', name: 'IVA 15 %' },
  { code: 'ec-iva-5', authority_code: '5', country: 'EC', group: 'iva', name: 'IVA 5 %' },
  { code: 'ec-iva-13', authority_code: '10', country: 'EC', group: 'iva', name: 'IVA 13 %' },
  { code: 'ec-iva-8', authority_code: '8', country: 'EC', group: 'iva', name: 'IVA 8 %' },
  { code: 'ec-ice-bebidas-alcoholicas', authority_code: '3031', country: 'EC', group: 'ice', name: 'ICE bebidas alcohólicas' },
  { code: 'ec-ice-cerveza-artesanal', authority_code: '3041', country: 'EC', group: 'ice', name: 'ICE cerveza artesanal' },
  { code: 'pe-igv', authority_code: '1000', country: 'PE', group: 'igv', name: 'IGV Impuesto General a las Ventas' },
  { code: 'pe-isc', authority_code: '2000', country: 'PE', group: 'isc', name: 'ISC Impuesto Selectivo al Consumo' },
  { code: 'pe-ivap', authority_code: '1016', country: 'PE', group: 'ivap', name: 'IVAP Impuesto a la Venta de Arroz Pilado' },
  { code: 'pe-exportacion', authority_code: '9995', country: 'PE', group: 'exportacion', name: 'Exportación' },
  { code: 'pe-gratuito', authority_code: '9996', country: 'PE', group: 'gratuito', name: 'Gratuito' },
  { code: 'pe-exonerado', authority_code: '1000', country: 'PE', group: 'exonerado', name: 'Exonerado' },
];

/** Whether `table` holds exactly `rows`, in their order: only read, nothing to rewrite. */
function holds(store: Store, table: 'identification_types' | 'tax_types', rows: readonly IdentificationType[] | readonly TaxType[]): boolean {
  const columns = table === 'tax_types' ? ['code', 'authority_code', 'country', 'name', 'group'] : ['code', 'authority_code', 'country', 'name'];
  const stored = store.sqlite.prepare(`select ${columns.map((c) => `"${c}"`).join(', ')} from ${table} order by rowid`).raw().all() as unknown[][];
  const wanted = rows.map((row) => columns.map((c) => (row as unknown as Record<string, unknown>)[c]));
  return JSON.stringify(stored) === JSON.stringify(wanted);
}

/**
 * Rewrites both catalog tables from the lists above, in one transaction, unless they already
 * hold them (every start but the first after a change): a start that only reads writes nothing
 * (issue 17: a commit, an fsync and 32 inserts at every start).
 */
export function syncCatalogs(store: Store): void {
  if (holds(store, 'identification_types', identificationTypes) && holds(store, 'tax_types', taxTypes)) return;
  store.transaction(() => {
    store.run(store.db.deleteFrom('identification_types'));
    store.run(store.db.deleteFrom('tax_types'));
    for (const row of identificationTypes) store.run(store.db.insertInto('identification_types').values(row));
    for (const row of taxTypes) store.run(store.db.insertInto('tax_types').values(row));
  });
}

/** Whether (`type`, `code`) is a pair the identification-type catalog lists (CONTRACT §8). */
export function isCatalogIdType(type: string, code: string): boolean {
  return identificationTypes.some((t) => t.code === type && t.authority_code === code);
}
