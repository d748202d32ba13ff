/**
 * The notaCredito 1.1.0 XML of a computed credit note (SRI's NotaCredito_V1.1.0.xsd), unsigned,
 * in the same manner as the factura (factura-xml.ts, xml-parts.ts): elements in the XSD's order,
 * no indentation, the customer's email and phone as the first campos adicionales.
 *
 * Differences from the factura that the XSD makes: `infoNotaCredito` names the modified document
 * (codDocModificado, numDocModificado, fechaEmisionDocSustento), carries `valorModificacion`
 * (the note's total) and `motivo`, and has no payments, tip or total discount; its
 * `totalImpuesto` has no `tarifa`; a line's code is `codigoInterno`.
 */
import { COD_DOC } from './access-key.js';
import { infoAdicionalOf } from './factura-xml.js';
import type { ComputedCreditNote, Issuer, Numbering, TaxAmount } from './invoice-model.js';
import { comprobante, el, fecha, impuesto, infoAdicional, infoTributaria, invariant, text } from './xml-parts.js';

function totalImpuesto(t: TaxAmount): string {
  return `<totalImpuesto>${el('codigo', t.codigo)}${el('codigoPorcentaje', t.codigoPorcentaje)}${el('baseImponible', t.baseImponible)}${el('valor', t.valor)}</totalImpuesto>`;
}

/**
 * The unsigned notaCredito 1.1.0 of `note`, issued by `issuer` with `numbering`.
 *
 * @example
 *   const xml = buildNotaCreditoXml(issuer, note, numbering);
 *   // <?xml version="1.0" encoding="UTF-8"?><notaCredito id="comprobante" version="1.1.0"><infoTributaria>…
 */
export function buildNotaCreditoXml(issuer: Issuer, note: ComputedCreditNote, numbering: Numbering): Buffer {
  const series = { codDoc: COD_DOC.notaCredito, issueDate: note.issueDate, establishment: note.establishment, emissionPoint: note.emissionPoint };
  const { xml: infoTributariaXml, establishment } = infoTributaria(issuer, series, numbering);
  invariant(note.lines.length > 0 && note.lines.every((l) => l.taxes.length > 0), 'every credit note has lines, every line taxes');
  invariant(/^\d{3}-\d{3}-\d{9}$/.test(note.modified.numero), 'the modified document number must be 000-000-000000000');

  const { customer } = note;
  const infoNotaCredito =
    '<infoNotaCredito>' +
    el('fechaEmision', fecha(note.issueDate)) +
    el('dirEstablecimiento', text(establishment.address, 300, 'establishment address')) +
    el('tipoIdentificacionComprador', customer.idTypeCode) +
    el('razonSocialComprador', text(customer.name, 300, 'customer name')) +
    el('identificacionComprador', text(customer.taxId, 20, 'customer id')) +
    el('contribuyenteEspecial', issuer.contribuyente_especial) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('codDocModificado', note.modified.codDoc) +
    el('numDocModificado', note.modified.numero) +
    el('fechaEmisionDocSustento', fecha(note.modified.issueDate)) +
    el('totalSinImpuestos', note.totalWithoutTaxes) +
    el('valorModificacion', note.grandTotal) +
    el('moneda', 'DOLAR') +
    `<totalConImpuestos>${note.taxTotals.map(totalImpuesto).join('')}</totalConImpuestos>` +
    el('motivo', text(note.reason, 300, 'motivo')) +
    '</infoNotaCredito>';

  const detalles =
    '<detalles>' +
    note.lines
      .map(
        (l) =>
          '<detalle>' +
          el('codigoInterno', text(l.code, 25, 'line code')) +
          el('descripcion', text(l.description, 300, 'line description')) +
          el('cantidad', l.quantity) +
          el('precioUnitario', l.unitPrice) +
          el('descuento', l.discount) +
          el('precioTotalSinImpuesto', l.subtotal) +
          `<impuestos>${l.taxes.map(impuesto).join('')}</impuestos>` +
          '</detalle>',
      )
      .join('') +
    '</detalles>';

  return comprobante('notaCredito', '1.1.0', `${infoTributariaXml}${infoNotaCredito}${detalles}${infoAdicional(infoAdicionalOf(note))}`);
}
