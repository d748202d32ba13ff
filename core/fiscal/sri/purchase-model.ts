/**
 * A purchase the office's client received (CONTRACT §15 `POST /api/v1/purchases`): a factura
 * another taxpayer issued to it, read from the SRI's authorized XML (fetched by access key, or
 * received by e-mail) once its signature verified. What the book records, and what a
 * withholding's `docSustento` is built from. Amounts are decimal strings as the XML wrote them
 * (two decimals); dates are YYYY-MM-DD.
 */
import type { Decimal } from './invoice-model.js';
import type { SupportTax } from './withholding-model.js';

export interface ReceivedPurchase {
  /** The 49-digit `claveAcceso` the XML carries. */
  accessKey: string;
  /** `codDoc`: "01" (Sello records facturas as purchases). */
  codDoc: string;
  /** The root's `version` ("1.0.0", "1.1.0", "2.0.0", "2.1.0"). */
  version: string;
  /** The XML's `ambiente`: 1 pruebas, 2 producción. */
  ambiente: 1 | 2;
  supplier: {
    /** `ruc`. */
    ruc: string;
    /** `razonSocial`. */
    name: string;
    /** `nombreComercial`, when present. */
    tradeName?: string | undefined;
    /** `dirMatriz`. */
    address: string;
  };
  buyer: {
    /** `tipoIdentificacionComprador`: 04 RUC, 05 cédula… */
    idTypeCode: string;
    /** `identificacionComprador`. */
    taxId: string;
    /** `razonSocialComprador`. */
    name: string;
  };
  /** `001-001-000000123` from estab, ptoEmi and secuencial. */
  numero: string;
  /** `fechaEmision` as YYYY-MM-DD. */
  issueDate: string;
  /** `moneda`, or "DOLAR" when absent (the SRI's default). */
  currency: string;
  /** `totalSinImpuestos`. */
  totalWithoutTaxes: Decimal;
  /** `totalDescuento`. */
  totalDiscount: Decimal;
  /** `totalConImpuestos`, one per tax and rate; `tarifa` from the XML or, when absent (factura 1.x), from the IVA rate code. */
  taxes: SupportTax[];
  /** `importeTotal`. */
  grandTotal: Decimal;
  /** `pagos` (formaPago, total); empty when the XML has none. */
  payments: Array<{ method: string; amount: Decimal }>;
}

/** What the SRI said of the document, when Sello knows it (from the authorization service or the `autorizacion` wrapper). */
export interface PurchaseAuthorization {
  /** `numeroAutorizacion`. */
  number: string;
  /** `fechaAutorizacion` as an ISO date-time. */
  date: string;
}

/**
 * The reading of a purchase's XML: the purchase with its signer, or why it cannot be recorded
 * (a Spanish sentence for the person who sent it).
 */
export type PurchaseReading =
  | {
      kind: 'purchase';
      purchase: ReceivedPurchase;
      /** Present when the text was an `autorizacion` whose estado is AUTORIZADO. */
      authorization?: PurchaseAuthorization | undefined;
      /** The signer's name (the certificate's CN). */
      signerName: string;
      /** The exact signed comprobante, UTF-8: what Sello keeps as the purchase's XML. */
      comprobante: string;
    }
  | { kind: 'refused'; reason: string };
