/**
 * The notaDebito 1.0.0 XML of a computed debit note (SRI's NotaDebito_V1.0.0.xsd), unsigned, in
 * the manner of the factura (factura-xml.ts, xml-parts.ts).
 *
 * What the XSD makes different: no `detalles`; the charges are `motivos` (razon, valor) after
 * `infoNotaDebito`, which carries the modified document, `impuestos` (with `tarifa`),
 * `valorTotal` and the optional `pagos`.
 */
import { COD_DOC } from './access-key.js';
import { infoAdicionalOf } from './factura-xml.js';
import type { ComputedDebitNote, Issuer, Numbering } from './invoice-model.js';
import { comprobante, el, impuesto, infoAdicional, infoTributaria, invariant, notaHeader, pagos, text } from './xml-parts.js';

/**
 * The unsigned notaDebito 1.0.0 of `note`, issued by `issuer` with `numbering`.
 *
 * @example
 *   const xml = buildNotaDebitoXml(issuer, note, numbering);
 *   // <?xml version="1.0" encoding="UTF-8"?><notaDebito id="comprobante" version="1.0.0"><infoTributaria>…
 */
export function buildNotaDebitoXml(issuer: Issuer, note: ComputedDebitNote, numbering: Numbering): Buffer {
  const series = { codDoc: COD_DOC.notaDebito, issueDate: note.issueDate, establishment: note.establishment, emissionPoint: note.emissionPoint };
  const { xml: infoTributariaXml, establishment } = infoTributaria(issuer, series, numbering);
  invariant(note.reasons.length > 0 && note.taxTotals.length > 0, 'every debit note has reasons and taxes');

  const infoNotaDebito =
    '<infoNotaDebito>' +
    notaHeader(issuer, establishment, note) +
    el('totalSinImpuestos', note.totalWithoutTaxes) +
    `<impuestos>${note.taxTotals.map(impuesto).join('')}</impuestos>` +
    el('valorTotal', note.grandTotal) +
    pagos(note.payments) +
    '</infoNotaDebito>';

  const motivos = `<motivos>${note.reasons.map((r) => `<motivo>${el('razon', text(r.reason, 300, 'razon'))}${el('valor', r.amount)}</motivo>`).join('')}</motivos>`;

  return comprobante('notaDebito', '1.0.0', `${infoTributariaXml}${infoNotaDebito}${motivos}${infoAdicional(infoAdicionalOf(note))}`);
}
