/**
 * The factura 2.1.0 XML of a computed invoice (SRI's factura_V2.1.0.xsd), unsigned: the XAdES
 * signer appends `ds:Signature` as the root's last child, over exactly these bytes.
 *
 * - Elements in the XSD's sequence order; optional ones only when there is something to say.
 * - UTF-8, no indentation (nothing between elements: the bytes signed are the bytes sent, and
 *   the SRI caps a comprobante at 320 KB).
 * - Text escaped (`&`, `<`, `>`; in attributes also `"`); fechaEmision dd/mm/aaaa; moneda
 *   "DOLAR"; obligadoContabilidad SI/NO; contribuyenteRimpe "CONTRIBUYENTE RÉGIMEN RIMPE" or
 *   "CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE" (the XSD's pattern) for the RIMPE regimes.
 * - The customer's email and phone, which the factura has no element for, go first in
 *   infoAdicional as "Email" and "Teléfono" (`infoAdicionalOf`), then the body's additional_info.
 *
 * The inputs were checked before (the issuer by its own schema, the invoice by `computeInvoice`);
 * what would still make a document the SRI refuses (an unknown establishment, an access key that
 * does not match the document) throws: a programming error, never the caller's.
 */
import { COD_DOC } from './access-key.js';
import type { ComputedInvoice, Issuer, Numbering } from './invoice-model.js';
import { comprobante, detalles, el, fecha, infoAdicional, infoTributaria, invariant, pagos, text, totalImpuestoWithTarifa } from './xml-parts.js';

export { contribuyenteRimpeOf } from './xml-parts.js';

/**
 * The campos adicionales of the invoice, as the XML writes them (and the RIDE should print them).
 *
 * @example infoAdicionalOf(invoice) // [{ name: 'Email', value: 'compras@cliente.ec' }, { name: 'Orden', value: 'OC-7' }]
 */
export function infoAdicionalOf(invoice: Pick<ComputedInvoice, 'customer' | 'additionalInfo'>): Array<{ name: string; value: string }> {
  const fields: Array<{ name: string; value: string }> = [];
  if (invoice.customer.email) fields.push({ name: 'Email', value: invoice.customer.email });
  if (invoice.customer.phone) fields.push({ name: 'Teléfono', value: invoice.customer.phone });
  return [...fields, ...invoice.additionalInfo];
}

/**
 * The unsigned factura 2.1.0 of `invoice`, issued by `issuer` with `numbering`.
 *
 * @example
 *   const xml = buildFacturaXml(issuer, computed.ok, { ambiente: 1, secuencial: '000000123', numero: '001-001-000000123', accessKey });
 *   // <?xml version="1.0" encoding="UTF-8"?><factura id="comprobante" version="2.1.0"><infoTributaria>…
 */
export function buildFacturaXml(issuer: Issuer, invoice: ComputedInvoice, numbering: Numbering): Buffer {
  const series = { codDoc: COD_DOC.factura, issueDate: invoice.issueDate, establishment: invoice.establishment, emissionPoint: invoice.emissionPoint };
  const { xml: infoTributariaXml, establishment } = infoTributaria(issuer, series, numbering);
  invariant(invoice.lines.length > 0 && invoice.lines.every((l) => l.taxes.length > 0), 'every invoice has lines, every line taxes');

  const { customer } = invoice;
  const infoFactura =
    '<infoFactura>' +
    el('fechaEmision', fecha(invoice.issueDate)) +
    el('dirEstablecimiento', text(establishment.address, 300, 'establishment address')) +
    el('contribuyenteEspecial', issuer.contribuyente_especial) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('tipoIdentificacionComprador', customer.idTypeCode) +
    el('razonSocialComprador', text(customer.name, 300, 'customer name')) +
    el('identificacionComprador', text(customer.taxId, 20, 'customer id')) +
    el('direccionComprador', customer.address === undefined ? undefined : text(customer.address, 300, 'customer address')) +
    el('totalSinImpuestos', invoice.totalWithoutTaxes) +
    el('totalDescuento', invoice.totalDiscount) +
    `<totalConImpuestos>${invoice.taxTotals.map(totalImpuestoWithTarifa).join('')}</totalConImpuestos>` +
    el('propina', invoice.tip) +
    el('importeTotal', invoice.grandTotal) +
    el('moneda', 'DOLAR') +
    pagos(invoice.payments) +
    '</infoFactura>';

  return comprobante('factura', '2.1.0', `${infoTributariaXml}${infoFactura}${detalles(invoice.lines, 'codigoPrincipal')}${infoAdicional(infoAdicionalOf(invoice))}`);
}
