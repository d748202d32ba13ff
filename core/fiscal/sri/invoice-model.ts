/**
 * The shapes an Ecuadorian invoice takes inside Sello (CONTRACT §15), shared by the parts that
 * build, sign, send and print it: the issuer of a book and environment, the invoice as Sello
 * computed it from a request body (every amount already rounded as the SRI wants it), and the
 * number and access key it was given. Amounts are decimal strings ("12.50"), never floats:
 * a float cannot hold 0.1, and the SRI compares totals to the cent.
 */

/** A decimal amount or quantity as text: digits, an optional dot and decimals ("3", "0.15", "12.000001"). */
export type Decimal = string;

/** 1 pruebas (a test key), 2 producción (a live key): the access key's ambiente digit. */
export type Ambiente = 1 | 2;

export interface Establishment {
  /** Three digits, "001". */
  code: string;
  address: string;
  /** Three digits each, "001". */
  emission_points: string[];
}

/** The issuer of a book and environment (`PUT /api/v1/issuer`). */
export interface Issuer {
  country: 'EC';
  /** Thirteen digits ending in 001. */
  ruc: string;
  razon_social: string;
  nombre_comercial?: string | undefined;
  dir_matriz: string;
  establishments: Establishment[];
  obligado_contabilidad: boolean;
  contribuyente_especial?: string | undefined;
  /** The resolution number that made the issuer a withholding agent. */
  agente_retencion?: string | undefined;
  regimen?: 'general' | 'rimpe_emprendedor' | 'rimpe_negocio_popular' | undefined;
  certificate_id: string;
}

/** One tax of a line, or one total per tax and rate, as the XML's `impuesto`/`totalImpuesto`. */
export interface TaxAmount {
  /** The catalog's `tax_type` code ("ec-iva-15"). */
  type: string;
  /** SRI `codigo`: 2 IVA, 3 ICE, 5 IRBPNR. */
  codigo: string;
  /** SRI `codigoPorcentaje` (the catalog's authority_code: "4" for IVA 15 %, "3031" for an ICE). */
  codigoPorcentaje: string;
  /** The rate in percent ("15", "0"), as `tarifa`. */
  tarifa: Decimal;
  /** Two decimals. */
  baseImponible: Decimal;
  /** Two decimals. */
  valor: Decimal;
}

export interface ComputedLine {
  code: string;
  description: string;
  /** Up to six decimals (factura 2.1.0). */
  quantity: Decimal;
  /** Up to six decimals (factura 2.1.0). */
  unitPrice: Decimal;
  /** Two decimals. */
  discount: Decimal;
  /** quantity × unitPrice − discount, two decimals (`precioTotalSinImpuesto`). */
  subtotal: Decimal;
  taxes: TaxAmount[];
}

export interface Payment {
  /** SRI forma de pago ("01" sin utilización del sistema financiero, "20" otros con utilización…). */
  method: string;
  amount: Decimal;
  term?: string | undefined;
  unit?: string | undefined;
}

export interface Customer {
  name: string;
  taxId: string;
  /** The catalog's identification type ("ec-cedula"). */
  idType: string;
  /** The SRI's `tipoIdentificacionComprador` (04 RUC, 05 cédula, 06 pasaporte, 07 consumidor final, 08 exterior). */
  idTypeCode: string;
  email?: string | undefined;
  address?: string | undefined;
  phone?: string | undefined;
}

/** An invoice as Sello computed it from a valid body: what the XML and the RIDE print. */
export interface ComputedInvoice {
  /** YYYY-MM-DD (the XML writes dd/mm/aaaa). */
  issueDate: string;
  establishment: string;
  emissionPoint: string;
  currency: 'USD';
  customer: Customer;
  lines: ComputedLine[];
  /** Sum of the lines' subtotals (`totalSinImpuestos`). */
  totalWithoutTaxes: Decimal;
  /** Sum of the lines' discounts (`totalDescuento`). */
  totalDiscount: Decimal;
  /** One entry per tax and rate (`totalConImpuestos`), in the order they first appear. */
  taxTotals: TaxAmount[];
  /** `propina`. */
  tip: Decimal;
  /** `importeTotal`. */
  grandTotal: Decimal;
  payments: Payment[];
  additionalInfo: Array<{ name: string; value: string }>;
}

/** The document a credit note modifies: notaCredito's codDocModificado, numDocModificado and fechaEmisionDocSustento. */
export interface ModifiedDocument {
  /** The SRI's type of the modified document: "01", a factura. */
  codDoc: '01';
  /** `001-001-000000123`. */
  numero: string;
  /** YYYY-MM-DD. */
  issueDate: string;
  /** The invoice's Sello id, when Sello issued it; null for one issued elsewhere (named by numero and date). */
  documentId: string | null;
}

/**
 * A credit note as Sello computed it (notaCredito 1.1.0): the lines, taxes and totals of an
 * invoice, without payments or tip, plus the document it modifies and why. `grandTotal` is the
 * XML's valorModificacion.
 */
export interface ComputedCreditNote extends Omit<ComputedInvoice, 'payments' | 'tip'> {
  modified: ModifiedDocument;
  /** `motivo`. */
  reason: string;
}

/** One reason of a debit note (`motivo`: razon, valor) and the taxes on it. */
export interface DebitReason {
  reason: string;
  /** Two decimals: the amount before taxes. */
  amount: Decimal;
  taxes: TaxAmount[];
}

/**
 * A debit note as Sello computed it (notaDebito 1.0.0): what is charged on top of an invoice
 * (interest, collection costs…) as reasons with their taxes, the totals, optional payments and
 * the document it modifies. `grandTotal` is the XML's valorTotal.
 */
export interface ComputedDebitNote {
  issueDate: string;
  establishment: string;
  emissionPoint: string;
  currency: 'USD';
  customer: Customer;
  reasons: DebitReason[];
  /** Sum of the reasons' amounts (`totalSinImpuestos`). */
  totalWithoutTaxes: Decimal;
  /** One entry per tax and rate (`impuestos`). */
  taxTotals: TaxAmount[];
  /** `valorTotal`. */
  grandTotal: Decimal;
  payments: Payment[];
  additionalInfo: Array<{ name: string; value: string }>;
  modified: ModifiedDocument;
}

/**
 * A liquidación de compra as Sello computed it (liquidacionCompra 1.1.0): the office's client
 * buys from someone who issues no comprobantes (a person without RUC, a foreigner) and documents
 * the purchase itself. The lines, taxes, totals and payments of an invoice; the party is the
 * `supplier` (proveedor), and there is no tip.
 */
export interface ComputedPurchaseSettlement extends Omit<ComputedInvoice, 'customer' | 'tip'> {
  supplier: Customer;
}

/** The number Sello gave a document, and its access key. */
export interface Numbering {
  ambiente: Ambiente;
  /** Nine digits, "000000123". */
  secuencial: string;
  /** `001-001-000000123`. */
  numero: string;
  /** Forty-nine digits. */
  accessKey: string;
}

/** What the SRI's authorization service said when it authorized a document. */
export interface Authorization {
  /** `numeroAutorizacion` (the access key in the offline scheme). */
  number: string;
  /** `fechaAutorizacion`, as an ISO date-time. */
  date: string;
}
