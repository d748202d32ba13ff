/**
 * A guía de remisión as Sello computed it from a valid body (guiaRemision 1.1.0, CONTRACT §15):
 * what the XML and the RIDE print. A guide moves goods and carries no amounts, so it has no
 * taxes, totals or payments; quantities are decimal strings as everywhere else.
 */
import type { Customer, Decimal } from './invoice-model.js';

/** A party of the guide identified as a customer is: the carrier, or a recipient. */
export type GuideParty = Pick<Customer, 'name' | 'taxId' | 'idType' | 'idTypeCode'>;

/**
 * The document that supports a recipient's goods: codDocSustento, numDocSustento,
 * fechaEmisionDocSustento and numAutDocSustento.
 */
export interface SupportDocument {
  /** The SRI's document type: "01" factura, "03" liquidación de compra… */
  codDoc: string;
  /** `001-001-000000123`. */
  numero: string;
  /** YYYY-MM-DD. */
  issueDate: string;
  /** 10 to 49 digits: the access key of an electronic document. */
  authorizationNumber?: string | undefined;
  /** The document's Sello id, when Sello issued it; null for one named by its number. */
  documentId: string | null;
}

/** One good moved (`detalle`). */
export interface GuideGood {
  /** `codigoInterno`. */
  code: string;
  /** `codigoAdicional`. */
  additionalCode?: string | undefined;
  description: string;
  /** Up to six decimals (`cantidad`). */
  quantity: Decimal;
}

/** One recipient (`destinatario`) and the goods it receives. */
export interface GuideRecipient extends GuideParty {
  /** `dirDestinatario`. */
  address: string;
  /** `motivoTraslado`. */
  reason: string;
  /** `ruta`. */
  route?: string | undefined;
  /** `docAduaneroUnico`. */
  customsDocument?: string | undefined;
  /** `codEstabDestino`: three digits. */
  destinationEstablishment?: string | undefined;
  /**
   * The Sello id of the invoice the body named (`invoice_id`), as given: the caller resolves it
   * into `supportDocument` before the XML is built.
   */
  invoiceId?: string | undefined;
  supportDocument?: SupportDocument | undefined;
  goods: GuideGood[];
}

export interface ComputedRemissionGuide {
  /** YYYY-MM-DD: the access key's date (the XML has no fechaEmision). */
  issueDate: string;
  establishment: string;
  emissionPoint: string;
  /** `dirPartida`. */
  departureAddress: string;
  /** razonSocialTransportista, rucTransportista, tipoIdentificacionTransportista (idTypeCode). */
  carrier: GuideParty;
  /** `placa`. */
  plate: string;
  /** YYYY-MM-DD (`fechaIniTransporte`). */
  transportStart: string;
  /** YYYY-MM-DD (`fechaFinTransporte`), not before `transportStart`. */
  transportEnd: string;
  recipients: GuideRecipient[];
  additionalInfo: Array<{ name: string; value: string }>;
}
