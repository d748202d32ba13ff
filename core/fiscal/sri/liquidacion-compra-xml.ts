/**
 * The liquidacionCompra 1.1.0 XML of a computed purchase settlement (SRI's
 * LiquidacionCompra_V1.1.0.xsd), unsigned, in the manner of the factura (factura-xml.ts): the
 * same lines, taxes and payments; the party is the proveedor (tipoIdentificacionProveedor,
 * razonSocialProveedor, identificacionProveedor, direccionProveedor), and there is no propina.
 * The supplier's email and phone go first in infoAdicional, as the customer's do on a factura.
 */
import { COD_DOC } from './access-key.js';
import { infoAdicionalOf } from './factura-xml.js';
import type { ComputedPurchaseSettlement, Issuer, Numbering } from './invoice-model.js';
import { comprobante, detalles, el, fecha, infoAdicional, infoTributaria, invariant, pagos, text, totalImpuestoWithTarifa } from './xml-parts.js';

/** The campos adicionales of a purchase settlement: the supplier's email and phone, then the body's. */
export function purchaseInfoAdicional(settlement: ComputedPurchaseSettlement): Array<{ name: string; value: string }> {
  return infoAdicionalOf({ customer: settlement.supplier, additionalInfo: settlement.additionalInfo });
}

/**
 * The unsigned liquidacionCompra 1.1.0 of `settlement`, issued by `issuer` with `numbering`.
 *
 * @example
 *   const xml = buildLiquidacionCompraXml(issuer, settlement, numbering);
 *   // <?xml version="1.0" encoding="UTF-8"?><liquidacionCompra id="comprobante" version="1.1.0"><infoTributaria>…
 */
export function buildLiquidacionCompraXml(issuer: Issuer, settlement: ComputedPurchaseSettlement, numbering: Numbering): Buffer {
  const series = { codDoc: COD_DOC.liquidacionCompra, issueDate: settlement.issueDate, establishment: settlement.establishment, emissionPoint: settlement.emissionPoint };
  const { xml: infoTributariaXml, establishment } = infoTributaria(issuer, series, numbering);
  invariant(settlement.lines.length > 0 && settlement.lines.every((l) => l.taxes.length > 0), 'every purchase settlement has lines, every line taxes');
  invariant(settlement.supplier.idTypeCode !== '07', 'a supplier is never a consumidor final');

  const { supplier } = settlement;
  const info =
    '<infoLiquidacionCompra>' +
    el('fechaEmision', fecha(settlement.issueDate)) +
    el('dirEstablecimiento', text(establishment.address, 300, 'establishment address')) +
    el('contribuyenteEspecial', issuer.contribuyente_especial) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('tipoIdentificacionProveedor', supplier.idTypeCode) +
    el('razonSocialProveedor', text(supplier.name, 300, 'supplier name')) +
    el('identificacionProveedor', text(supplier.taxId, 20, 'supplier id')) +
    el('direccionProveedor', supplier.address === undefined ? undefined : text(supplier.address, 300, 'supplier address')) +
    el('totalSinImpuestos', settlement.totalWithoutTaxes) +
    el('totalDescuento', settlement.totalDiscount) +
    `<totalConImpuestos>${settlement.taxTotals.map(totalImpuestoWithTarifa).join('')}</totalConImpuestos>` +
    el('importeTotal', settlement.grandTotal) +
    el('moneda', 'DOLAR') +
    pagos(settlement.payments) +
    '</infoLiquidacionCompra>';

  return comprobante('liquidacionCompra', '1.1.0', `${infoTributariaXml}${info}${detalles(settlement.lines, 'codigoPrincipal')}${infoAdicional(purchaseInfoAdicional(settlement))}`);
}
