/**
 * Reading a received purchase from its XML (CONTRACT §15 `POST /api/v1/purchases {xml}`): the
 * signed factura itself, or the SRI's `autorizacion` holding it (./purchase-wrapper.ts). The text
 * comes from outside: it is bounded before any parsing (./purchase-limits.ts), parsed without
 * DTDs (core/xml `parseXml`), and runs on the SRI answer thread (./answer-thread), never on the
 * API's (`SriClient.readPurchase`).
 *
 * A purchase is recorded only when its XAdES-BES signature verifies over the exact bytes of the
 * comprobante, and only a factura (codDoc 01) is one. Whose RUC it is addressed to, and whether
 * the SRI knows it, are the caller's questions.
 *
 * @example
 *   const reading = readPurchaseXml(text);
 *   if (reading.kind === 'refused') return unprocessable(reading.reason);
 *   store(reading.purchase, reading.comprobante);
 */
import type { Element } from '@xmldom/xmldom';
import { parseXml, verifyXadesBes, XmlProblem } from '../../xml/index.js';
import { readFacturaFields } from './purchase-fields.js';
import { MAX_PURCHASE_LINES, MAX_PURCHASE_TAXES, PurchaseRefused, purchaseSizeRefusal } from './purchase-limits.js';
import type { PurchaseAuthorization, PurchaseReading } from './purchase-model.js';
import { unwrapAuthorization, type WrappedComprobante } from './purchase-wrapper.js';

/** The SRI's other comprobantes, named for the refusal. */
const NOT_PURCHASES: Readonly<Record<string, string>> = {
  notaCredito: 'una nota de crédito',
  notaDebito: 'una nota de débito',
  comprobanteRetencion: 'un comprobante de retención',
  guiaRemision: 'una guía de remisión',
  liquidacionCompra: 'una liquidación de compra',
};

const TOO_MANY_LINES = `El comprobante tiene más de ${MAX_PURCHASE_LINES.toLocaleString('es-EC')} líneas de detalle; Sello no registra compras tan largas.`;
const TOO_MANY_TAXES = `El comprobante tiene más de ${MAX_PURCHASE_TAXES} impuestos en totalConImpuestos; una factura no llega a tanto.`;

/**
 * The purchase in `text`, or why it cannot be recorded. Never throws for what the text holds.
 *
 * @example readPurchaseXml('<factura id="comprobante" version="2.1.0">…</factura>') // { kind: 'purchase', purchase: {…}, signerName: '…', comprobante: '…' }
 */
export function readPurchaseXml(text: string): PurchaseReading {
  try {
    return read(text);
  } catch (err) {
    if (err instanceof PurchaseRefused || err instanceof XmlProblem) return { kind: 'refused', reason: err.message };
    throw err;
  }
}

function read(input: string): PurchaseReading {
  if (typeof input !== 'string') throw new PurchaseRefused('No llegó el XML del comprobante.');
  const tooLarge = purchaseSizeRefusal(input);
  if (tooLarge) throw new PurchaseRefused(tooLarge);
  const text = withoutBom(input);
  if (text.trim() === '') throw new PurchaseRefused('No llegó el XML del comprobante.');
  checkCounts(text);
  const { root } = parseXml(Buffer.from(text, 'utf8'));
  const wrapped = unwrapAuthorization(root);
  if (!wrapped) return readComprobante(text, root);
  const comprobante = withoutBom(wrapped.comprobante);
  checkCounts(comprobante);
  let inner: Element;
  try {
    inner = parseXml(Buffer.from(comprobante, 'utf8')).root;
  } catch (err) {
    if (err instanceof XmlProblem) throw new PurchaseRefused(`El comprobante que trae la autorización no se puede leer. ${err.message}`);
    throw err;
  }
  return readComprobante(comprobante, inner, wrapped);
}

/** A UTF-8 byte order mark is not part of the document (nor of what its signature covers). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Counted on the text, before any parser builds the lines: as tags, or escaped inside an
 * `autorizacion` (`&lt;detalle&gt;`). Counting stops one past the limit.
 */
function checkCounts(text: string): void {
  if (countUpTo(text, /(?:<|&lt;)detalle[\s/>&]/g, MAX_PURCHASE_LINES) > MAX_PURCHASE_LINES) throw new PurchaseRefused(TOO_MANY_LINES);
  if (countUpTo(text, /(?:<|&lt;)totalImpuesto[\s/>&]/g, MAX_PURCHASE_TAXES) > MAX_PURCHASE_TAXES) throw new PurchaseRefused(TOO_MANY_TAXES);
}

function countUpTo(text: string, pattern: RegExp, limit: number): number {
  let n = 0;
  pattern.lastIndex = 0;
  while (n <= limit && pattern.exec(text)) n++;
  return n;
}

function readComprobante(text: string, root: Element, wrapped?: WrappedComprobante): PurchaseReading {
  const local = root.localName ?? root.tagName;
  const rootName = root.namespaceURI ? `{${root.namespaceURI}}${local}` : local;
  if (rootName !== 'factura') {
    const what = NOT_PURCHASES[rootName];
    throw new PurchaseRefused(
      what
        ? `El XML es ${what} (${rootName}), no una factura: Sello registra como compras solo facturas (codDoc 01).`
        : `El XML no es una factura del SRI ni su autorización: su elemento raíz es <${shortName(root.tagName)}>.`,
    );
  }
  const version = root.getAttribute('version') ?? '';
  // Again on the tree, before the signature's work: the count on the text misses prefixed names (<x:detalle>).
  const detalles = childNamed(root, 'detalles');
  const totals = childNamed(childNamed(root, 'infoFactura'), 'totalConImpuestos');
  if (elementCount(detalles, 'detalle') > MAX_PURCHASE_LINES) throw new PurchaseRefused(TOO_MANY_LINES);
  if (elementCount(totals, 'totalImpuesto') > MAX_PURCHASE_TAXES) throw new PurchaseRefused(TOO_MANY_TAXES);
  const verification = verifyXadesBes(Buffer.from(text, 'utf8'));
  if (!verification.valid) throw new PurchaseRefused(`La firma electrónica del comprobante no es válida. ${verification.problem ?? 'No se pudo verificar.'}`);
  const purchase = readFacturaFields(root, version);
  let authorization: PurchaseAuthorization | undefined;
  if (wrapped) {
    if (wrapped.number.length === 49 && wrapped.number !== purchase.accessKey) {
      throw new PurchaseRefused(`El número de autorización ${wrapped.number} no es la clave de acceso del comprobante (${purchase.accessKey}): la autorización es de otro documento.`);
    }
    if (wrapped.ambiente !== undefined && wrapped.ambiente !== purchase.ambiente) {
      throw new PurchaseRefused(`La autorización es del ambiente de ${wrapped.ambiente === 2 ? 'producción' : 'pruebas'} y el comprobante dice ${purchase.ambiente === 2 ? 'producción' : 'pruebas'}.`);
    }
    authorization = { number: wrapped.number, date: wrapped.date };
  }
  return {
    kind: 'purchase',
    purchase,
    ...(authorization ? { authorization } : {}),
    signerName: verification.signerName ?? '',
    comprobante: text,
  };
}

function childNamed(parent: Element | undefined, localName: string): Element | undefined {
  if (!parent) return undefined;
  for (let c = parent.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && (c as Element).localName === localName) return c as Element;
  return undefined;
}

function elementCount(parent: Element | undefined, localName: string): number {
  let n = 0;
  for (let c = parent?.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && (c as Element).localName === localName) n++;
  return n;
}

function shortName(name: string): string {
  return name.length > 60 ? `${name.slice(0, 60)}…` : name;
}
