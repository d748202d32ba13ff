/**
 * The SRI's words a RIDE prints: names of the formas de pago, the legends of the RIMPE regime,
 * the rows of the totals block, the name of the document that supports a guía de remisión's
 * goods or a withholding, the names of the withheld taxes. Pure mappings from the models.
 */
import { COMPROBANTE_KINDS, comprobanteDefinition } from './comprobantes.js';
import type { ComputedCreditNote, ComputedDebitNote, ComputedInvoice, ComputedPurchaseSettlement, Issuer, TaxAmount } from './invoice-model.js';
import { formatDecimal, formatRate, sumDecimals } from './ride-text.js';
import type { WithheldTax } from './withholding-model.js';

/** SRI "Ficha técnica", tabla 24 (formas de pago), the names as the SRI writes them. */
const PAYMENT_METHODS: Readonly<Record<string, string>> = {
  '01': 'SIN UTILIZACIÓN DEL SISTEMA FINANCIERO',
  '15': 'COMPENSACIÓN DE DEUDAS',
  '16': 'TARJETA DE DÉBITO',
  '17': 'DINERO ELECTRÓNICO',
  '18': 'TARJETA PREPAGO',
  '19': 'TARJETA DE CRÉDITO',
  '20': 'OTROS CON UTILIZACIÓN DEL SISTEMA FINANCIERO',
  '21': 'ENDOSO DE TÍTULOS',
};

/** "01 - SIN UTILIZACIÓN DEL SISTEMA FINANCIERO"; a code the table lacks is printed alone. */
export function paymentMethodName(code: string): string {
  const name = PAYMENT_METHODS[code];
  return name ? `${code} - ${name}` : code;
}

/**
 * The legend the SRI requires on documents of RIMPE taxpayers (the XML's `contribuyenteRimpe`),
 * or null for the general regime.
 */
export function rimpeLegend(regimen: Issuer['regimen']): string | null {
  if (regimen === 'rimpe_emprendedor') return 'CONTRIBUYENTE RÉGIMEN RIMPE';
  if (regimen === 'rimpe_negocio_popular') return 'CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE';
  return null;
}

/**
 * The SRI's names of the document types (codDoc) a guide's goods may be supported by: those
 * Sello issues, named as their own RIDEs are, and the printed nota de venta (RIMPE negocios
 * populares issue it, and their sales move goods too).
 */
const DOCUMENT_TITLES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(COMPROBANTE_KINDS.map((kind) => [comprobanteDefinition(kind).codDoc, comprobanteDefinition(kind).title])),
  '02': 'NOTA DE VENTA',
};

/** "FACTURA": a document type (codDoc) by its SRI name, or "Documento 12" for one Sello does not know. */
export function documentTitle(codDoc: string): string {
  return DOCUMENT_TITLES[codDoc] ?? `Documento ${codDoc}`;
}

/**
 * "FACTURA 001-001-000000123": a support document as a guide's RIDE names it; a type the SRI
 * tables Sello knows lack is named by its code ("Documento 12 001-001-000000123").
 */
export function supportDocumentName(codDoc: string, numero: string): string {
  return `${documentTitle(codDoc)} ${numero}`;
}

const WITHHELD_TAX_NAMES: Readonly<Record<WithheldTax, string>> = { renta: 'RENTA', iva: 'IVA', isd: 'ISD' };

/** The tax a withholding takes from, as the SRI's RIDE of a comprobante de retención names it. */
export function withheldTaxName(tax: WithheldTax): string {
  return WITHHELD_TAX_NAMES[tax];
}

/** SRI tax codes (`codigo`): 2 IVA, 3 ICE, 5 IRBPNR. */
const IVA = '2';
const ICE = '3';
const IRBPNR = '5';
/** IVA `codigoPorcentaje`s that are no rate: 0 %, no objeto, exento. */
const IVA_ZERO = '0';
const IVA_NO_OBJETO = '6';
const IVA_EXENTO = '7';

export interface TotalsRow {
  label: string;
  value: string;
  /** The row that closes the block (VALOR TOTAL). */
  strong?: boolean;
}

function sumOf(taxes: readonly TaxAmount[], field: 'baseImponible' | 'valor'): string {
  return formatDecimal(sumDecimals(taxes.map((t) => t[field])));
}

/**
 * The totals block of the RIDE, top to bottom: a subtotal per IVA rate the document uses, then
 * 0 %, no objeto and exento (always shown, 0.00 when unused), subtotal sin impuestos, descuento
 * (not a nota de débito's: it has no discounts), ICE, the IVA per rate, IRBPNR when present,
 * propina (a factura's only: the notas have none) and the total (a nota de crédito's
 * valorModificacion, a nota de débito's valorTotal).
 */
export function totalsRows(doc: ComputedInvoice | ComputedCreditNote | ComputedDebitNote | ComputedPurchaseSettlement): TotalsRow[] {
  const iva = doc.taxTotals.filter((t) => t.codigo === IVA);
  const rated = iva.filter((t) => ![IVA_ZERO, IVA_NO_OBJETO, IVA_EXENTO].includes(t.codigoPorcentaje));
  const withCode = (code: string): TaxAmount[] => iva.filter((t) => t.codigoPorcentaje === code);
  const ice = doc.taxTotals.filter((t) => t.codigo === ICE);
  const irbpnr = doc.taxTotals.filter((t) => t.codigo === IRBPNR);
  const rows: TotalsRow[] = [
    ...rated.map((t) => ({ label: `SUBTOTAL ${formatRate(t.tarifa)}%`, value: formatDecimal(t.baseImponible) })),
    { label: 'SUBTOTAL 0%', value: sumOf(withCode(IVA_ZERO), 'baseImponible') },
    { label: 'SUBTOTAL NO OBJETO DE IVA', value: sumOf(withCode(IVA_NO_OBJETO), 'baseImponible') },
    { label: 'SUBTOTAL EXENTO DE IVA', value: sumOf(withCode(IVA_EXENTO), 'baseImponible') },
    { label: 'SUBTOTAL SIN IMPUESTOS', value: formatDecimal(doc.totalWithoutTaxes) },
    ...('totalDiscount' in doc ? [{ label: 'TOTAL DESCUENTO', value: formatDecimal(doc.totalDiscount) }] : []),
    { label: 'ICE', value: sumOf(ice, 'valor') },
    ...rated.map((t) => ({ label: `IVA ${formatRate(t.tarifa)}%`, value: formatDecimal(t.valor) })),
  ];
  if (irbpnr.length > 0) rows.push({ label: 'IRBPNR', value: sumOf(irbpnr, 'valor') });
  if ('tip' in doc) rows.push({ label: 'PROPINA', value: formatDecimal(doc.tip) });
  rows.push({ label: 'VALOR TOTAL', value: formatDecimal(doc.grandTotal), strong: true });
  return rows;
}
