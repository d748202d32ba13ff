/**
 * The comprobantes Sello issues to the SRI, each a definition on the same machinery (numbering,
 * access key, XAdES-BES, submission job, RIDE): what differs is its type code, its §6
 * `doc_type`, its route, its name on paper and how its XML is written from what Sello computed
 * when it numbered it (stored with the submission as JSON).
 *
 * @example
 *   const xml = comprobanteDefinition(row.kind).buildXml(issuer, JSON.parse(row.computed), numbering);
 */
import type { docTypes } from '../../documents/index.js';
import { COD_DOC } from './access-key.js';
import { buildComprobanteRetencionXml } from './comprobante-retencion-xml.js';
import { buildFacturaXml } from './factura-xml.js';
import type { ComputedCreditNote, ComputedDebitNote, ComputedInvoice, ComputedPurchaseSettlement, Issuer, Numbering } from './invoice-model.js';
import { buildGuiaRemisionXml } from './guia-remision-xml.js';
import { buildLiquidacionCompraXml } from './liquidacion-compra-xml.js';
import { buildNotaCreditoXml } from './nota-credito-xml.js';
import { buildNotaDebitoXml } from './nota-debito-xml.js';
import type { ComputedRemissionGuide } from './remission-guide-model.js';
import type { ComputedWithholding } from './withholding-model.js';

export type ComprobanteKind = 'invoice' | 'credit_note' | 'debit_note' | 'purchase_settlement' | 'remission_guide' | 'withholding';

export interface ComprobanteDefinition {
  kind: ComprobanteKind;
  /** The SRI's codDoc. */
  codDoc: string;
  /** The §6 document's doc_type. */
  docType: (typeof docTypes)[number];
  /** `POST {path}`, `GET {path}/:id`, `GET {path}/:id/xml`. */
  path: string;
  /** The name on the RIDE and in messages. */
  title: string;
  /** "la factura": the document in a Spanish sentence. */
  named: string;
  /** The unsigned XML from the stored computed document. */
  buildXml(issuer: Issuer, computed: unknown, numbering: Numbering): Buffer;
}

const DEFINITIONS: Record<ComprobanteKind, ComprobanteDefinition> = {
  invoice: {
    kind: 'invoice',
    codDoc: COD_DOC.factura,
    docType: 'invoice',
    path: '/api/v1/invoices',
    title: 'FACTURA',
    named: 'la factura',
    buildXml: (issuer, computed, numbering) => buildFacturaXml(issuer, computed as ComputedInvoice, numbering),
  },
  credit_note: {
    kind: 'credit_note',
    codDoc: COD_DOC.notaCredito,
    docType: 'credit_note',
    path: '/api/v1/credit-notes',
    title: 'NOTA DE CRÉDITO',
    named: 'la nota de crédito',
    buildXml: (issuer, computed, numbering) => buildNotaCreditoXml(issuer, computed as ComputedCreditNote, numbering),
  },
  debit_note: {
    kind: 'debit_note',
    codDoc: COD_DOC.notaDebito,
    docType: 'debit_note',
    path: '/api/v1/debit-notes',
    title: 'NOTA DE DÉBITO',
    named: 'la nota de débito',
    buildXml: (issuer, computed, numbering) => buildNotaDebitoXml(issuer, computed as ComputedDebitNote, numbering),
  },
  purchase_settlement: {
    kind: 'purchase_settlement',
    codDoc: COD_DOC.liquidacionCompra,
    // §6's closest doc_type: a purchase the office's client documents itself.
    docType: 'purchase_invoice',
    path: '/api/v1/purchase-settlements',
    title: 'LIQUIDACIÓN DE COMPRA DE BIENES Y PRESTACIÓN DE SERVICIOS',
    named: 'la liquidación de compra',
    buildXml: (issuer, computed, numbering) => buildLiquidacionCompraXml(issuer, computed as ComputedPurchaseSettlement, numbering),
  },
  remission_guide: {
    kind: 'remission_guide',
    codDoc: COD_DOC.guiaRemision,
    docType: 'remission_guide',
    path: '/api/v1/remission-guides',
    title: 'GUÍA DE REMISIÓN',
    named: 'la guía de remisión',
    buildXml: (issuer, computed, numbering) => buildGuiaRemisionXml(issuer, computed as ComputedRemissionGuide, numbering),
  },
  withholding: {
    kind: 'withholding',
    codDoc: COD_DOC.comprobanteRetencion,
    docType: 'withholding',
    path: '/api/v1/withholdings',
    title: 'COMPROBANTE DE RETENCIÓN',
    named: 'el comprobante de retención',
    buildXml: (issuer, computed, numbering) => buildComprobanteRetencionXml(issuer, computed as ComputedWithholding, numbering),
  },
};

export const COMPROBANTE_KINDS = Object.keys(DEFINITIONS) as ComprobanteKind[];

export function isComprobanteKind(kind: string): kind is ComprobanteKind {
  return Object.hasOwn(DEFINITIONS, kind);
}

/** The definition of a stored submission's kind; throws on a kind this Sello does not know (a newer store). */
export function comprobanteDefinition(kind: string): ComprobanteDefinition {
  if (!isComprobanteKind(kind)) throw new Error(`tipo de comprobante desconocido: ${kind}`);
  return DEFINITIONS[kind];
}
