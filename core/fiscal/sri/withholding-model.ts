/**
 * A comprobante de retención as Sello computed it (comprobanteRetencion 2.0.0, CONTRACT §15):
 * the office's client, as buyer, withholds part of the income tax (renta), the IVA or the ISD of
 * a purchase it received, and issues this comprobante to the supplier within five days. Version
 * 2.0.0 carries the purchase itself (`docsSustento`: its number, date, authorization, totals,
 * taxes and payments) with the withholdings applied to it. Amounts are decimal strings.
 */
import type { Customer, Decimal } from './invoice-model.js';

/** The tax a withholding line takes from: the XSD's `codigo` 1 renta, 2 IVA, 6 ISD. */
export type WithheldTax = 'renta' | 'iva' | 'isd';

export const WITHHELD_TAX_CODE: Record<WithheldTax, '1' | '2' | '6'> = { renta: '1', iva: '2', isd: '6' };

/** One withholding (`retencion`). */
export interface WithholdingLine {
  tax: WithheldTax;
  /** `codigoRetencion`: "312", "3440" (renta), "1"…"11" (IVA), "4580" (ISD). */
  code: string;
  /** `baseImponible`, two decimals: the purchase's subtotal (renta, ISD) or its IVA (IVA). */
  base: Decimal;
  /** `porcentajeRetener` as written in the XML: no trailing zeros ("1.75", "30", "100"). */
  rate: Decimal;
  /** `valorRetenido`: base × rate / 100, two decimals, half up. */
  amount: Decimal;
}

/** One tax of the purchase (`impuestoDocSustento`), as its authorized XML stated it. */
export interface SupportTax {
  /** 2 IVA, 3 ICE, 5 IRBPNR. */
  codigo: string;
  codigoPorcentaje: string;
  /** Two decimals. */
  baseImponible: Decimal;
  /** The rate in percent, no trailing zeros ("15", "0"). */
  tarifa: Decimal;
  /** Two decimals. */
  valor: Decimal;
}

/** The purchase a withholding applies to (`docSustento`). */
export interface WithholdingSupport {
  /** The received purchase's Sello id. */
  purchaseId: string;
  /** `codSustento`, two digits ("01": crédito tributario para declaración de IVA). */
  supportCode: string;
  /** `codDocSustento`: "01", a factura. */
  codDoc: string;
  /** `001-001-000000123` (the XML writes its 15 digits). */
  numero: string;
  /** YYYY-MM-DD. */
  issueDate: string;
  /** `numAutDocSustento`: the purchase's 49-digit access key. */
  authorizationNumber: string;
  /** `pagoLocExt`: "01" a local payment. */
  paymentLocation: '01' | '02';
  totalWithoutTaxes: Decimal;
  grandTotal: Decimal;
  taxes: SupportTax[];
  /** At least one (`pagos`): the purchase's own, or one of its total. */
  payments: Array<{ method: string; amount: Decimal }>;
}

/** The withheld supplier (`…SujetoRetenido`): a RUC, cédula, passport or foreign id; never the consumidor final. */
export type WithheldSubject = Pick<Customer, 'name' | 'taxId' | 'idType' | 'idTypeCode'> & {
  /** `parteRel`: whether the supplier is a related party of the buyer. */
  relatedParty: boolean;
};

export interface ComputedWithholding {
  /** YYYY-MM-DD. */
  issueDate: string;
  establishment: string;
  emissionPoint: string;
  currency: 'USD';
  /** `periodoFiscal`, MM/YYYY: the month of the issue date. */
  fiscalPeriod: string;
  subject: WithheldSubject;
  support: WithholdingSupport;
  lines: WithholdingLine[];
  /** Sum of the lines' amounts: the §6 document's grand_total. */
  totalWithheld: Decimal;
  additionalInfo: Array<{ name: string; value: string }>;
}
