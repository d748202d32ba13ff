/**
 * Ecuador's SRI adapter (CONTRACT §15): the invoice body and what Sello computes from it, the
 * factura 2.1.0 XML and its access key, the client of the SRI's offline web services, and the
 * RIDE. The XAdES-BES signature is core/xml's, shared with Peru.
 *
 * @example
 *   const computed = computeInvoice(body, catalogs, new Date());
 *   const xml = buildFacturaXml(issuer, computed.ok, numbering);
 *   const answer = await createSriClient().validarComprobante(sriBaseUrl(config, 1), signed);
 */
export type { Ambiente, Authorization, ComputedCreditNote, ComputedDebitNote, ComputedInvoice, ComputedPurchaseSettlement, DebitReason, ComputedLine, Customer, Decimal, Establishment, Issuer, ModifiedDocument, Numbering, Payment, TaxAmount } from './invoice-model.js';
export { creditNoteBodySchema, debitNoteBodySchema, invoiceBodySchema, paymentMethods, type CreditNoteBody, type DebitNoteBody, type InvoiceBody } from './invoice-body.js';
export { computeInvoice, computeSale, ecuadorDate, errorFields, seriesErrors, MAX_ISSUE_AGE_DAYS, type ComputeResult, type FieldError, type InvoiceCatalogs } from './compute-invoice.js';
export { checkCustomerId, checkIssuerRuc, FINAL_CONSUMER_ID, type IdCheck } from './identification.js';
export { accessKeyFor, COD_DOC, numeroOf, randomNumericCode, type AccessKeyParts } from './access-key.js';
export { buildFacturaXml } from './factura-xml.js';
export { buildNotaCreditoXml } from './nota-credito-xml.js';
export { buildNotaDebitoXml } from './nota-debito-xml.js';
export { buildLiquidacionCompraXml } from './liquidacion-compra-xml.js';
export { purchaseSettlementBodySchema, type PurchaseSettlementBody } from './purchase-settlement-body.js';
export { buildGuiaRemisionXml } from './guia-remision-xml.js';
export { remissionGuideBodySchema, type RemissionGuideBody } from './remission-guide-body.js';
export { computeRemissionGuide } from './compute-remission-guide.js';
export type { ComputedRemissionGuide, GuideGood, GuideParty, GuideRecipient, SupportDocument } from './remission-guide-model.js';
export { buildComprobanteRetencionXml } from './comprobante-retencion-xml.js';
export { WITHHELD_TAX_CODE, type ComputedWithholding, type SupportTax, type WithheldSubject, type WithheldTax, type WithholdingLine, type WithholdingSupport } from './withholding-model.js';
export { COMPROBANTE_KINDS, comprobanteDefinition, isComprobanteKind, type ComprobanteDefinition, type ComprobanteKind } from './comprobantes.js';
export { renderRide, type RideData } from './ride.js';
export {
  createSriClient,
  formatSriMessages,
  isSriError,
  sriBaseUrl,
  SriError,
  SriFault,
  SriHttpError,
  SriRequestError,
  SriUnreachable,
  type AutorizacionAnswer,
  type RecepcionAnswer,
  type SriAutorizacion,
  type SriClient,
  type SriClientOptions,
  type SriMessage,
} from './soap-client.js';
export { purchaseBodySchema, withholdingBodySchema, withheldTaxes, MAX_PURCHASE_XML_CHARS, type PurchaseBody, type WithholdingBody } from './withholding-body.js';
export { computeWithholding, IVA_WITHHOLDING_RATES, ISD_WITHHOLDING_RATES, WITHHOLDING_DAYS, type PriorWithholding } from './withholding-rules.js';
export type { PurchaseAuthorization, PurchaseReading, ReceivedPurchase } from './purchase-model.js';
