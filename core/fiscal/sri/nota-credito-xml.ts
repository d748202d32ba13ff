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
import { comprobante, detalles, el, infoAdicional, infoTributaria, invariant, notaHeader, text } from './xml-parts.js';

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

  const infoNotaCredito =
    '<infoNotaCredito>' +
    notaHeader(issuer, establishment, note) +
    el('totalSinImpuestos', note.totalWithoutTaxes) +
    el('valorModificacion', note.grandTotal) +
    el('moneda', 'DOLAR') +
    `<totalConImpuestos>${note.taxTotals.map(totalImpuesto).join('')}</totalConImpuestos>` +
    el('motivo', text(note.reason, 300, 'motivo')) +
    '</infoNotaCredito>';

  return comprobante('notaCredito', '1.1.0', `${infoTributariaXml}${infoNotaCredito}${detalles(note.lines, 'codigoInterno')}${infoAdicional(infoAdicionalOf(note))}`);
}
