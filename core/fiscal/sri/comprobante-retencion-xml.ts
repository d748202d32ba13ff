/**
 * The comprobanteRetencion 2.0.0 XML of a computed withholding (SRI's
 * ComprobanteRetencion_V2.0.0.xsd), unsigned, in the manner of the factura (factura-xml.ts,
 * xml-parts.ts): elements in the XSD's order, optional ones only when there is something to say.
 *
 * What the XSD makes different:
 * - `infoCompRetencion` names the withheld supplier (`…SujetoRetenido`), whether it is a related
 *   party (`parteRel`) and the fiscal period; it has no totals.
 * - Version 2.0.0 carries the purchase itself: one `docSustento` with its number (15 digits, no
 *   dashes), date, authorization, totals, taxes (`impuestosDocSustento`), the withholdings applied
 *   to it (`retenciones`) and its payments (`pagos`, at least one).
 * - Its `contribuyenteEspecial` is 3–5 characters, not the factura's 3–13.
 * - `porcentajeRetener` and `tarifa` have three digits in all, two of them decimals: "1.75", "30",
 *   "100", never 12.55 or 100.5 (written without trailing zeros).
 * - Left out: `tipoSujetoRetenido` (optional in the XSD, and the model does not say whether a
 *   foreign supplier is a person or a company), the foreign-payment details, reimbursements,
 *   dividends, banana boxes and `maquinaFiscal`.
 */
import { COD_DOC } from './access-key.js';
import type { Issuer, Numbering } from './invoice-model.js';
import { WITHHELD_TAX_CODE, type ComputedWithholding, type SupportTax, type WithholdingLine, type WithholdingSupport } from './withholding-model.js';
import { comprobante, el, fecha, infoAdicional, infoTributaria, invariant, text } from './xml-parts.js';

/** An amount the XSD types as 14 digits, 2 of them decimals, not negative. */
function amount(value: string, what: string): string {
  invariant(/^\d{1,12}(\.\d{1,2})?$/.test(value), `${what} must be a non-negative amount with at most two decimals`);
  return value;
}

/**
 * A percentage as the XSD types it: three significant digits at most, two of them decimals
 * ("1.75", "30", "100"; never 12.55 nor 100.5). Written without trailing zeros, as the model
 * keeps it ("30.00" → "30"): the XSD counts the value's digits, so the zeros would pass, but the
 * same withholding then always gives the same XML.
 */
function percentage(value: string, what: string): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
  const integer = m?.[1]?.replace(/^0+(?=\d)/, '') ?? '';
  const fraction = m?.[2]?.replace(/0+$/, '') ?? '';
  const digits = (integer === '0' ? '' : integer).length + fraction.length;
  invariant(m !== null && fraction.length <= 2 && digits <= 3, `${what} must have three digits at most, two of them decimals ("1.75", "30", "100"), not ${value}`);
  return fraction === '' ? integer : `${integer}.${fraction}`;
}

/** A date as the XSD's `fecha`: dd/mm/20aa. */
function fecha20(isoDate: string, what: string): string {
  invariant(/^20\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/.test(isoDate), `${what} must be a date of the 2000s, YYYY-MM-DD`);
  return fecha(isoDate);
}

function impuestoDocSustento(t: SupportTax): string {
  invariant(/^[235]$/.test(t.codigo), 'codImpuestoDocSustento must be 2 (IVA), 3 (ICE) or 5 (IRBPNR)');
  invariant(/^\d{1,4}$/.test(t.codigoPorcentaje), 'codigoPorcentaje must be 1–4 digits');
  return (
    '<impuestoDocSustento>' +
    el('codImpuestoDocSustento', t.codigo) +
    el('codigoPorcentaje', t.codigoPorcentaje) +
    el('baseImponible', amount(t.baseImponible, 'support tax baseImponible')) +
    el('tarifa', percentage(t.tarifa, 'support tax tarifa')) +
    el('valorImpuesto', amount(t.valor, 'support tax valor')) +
    '</impuestoDocSustento>'
  );
}

function retencion(l: WithholdingLine): string {
  invariant(Object.hasOwn(WITHHELD_TAX_CODE, l.tax), `withheld tax ${l.tax} is none of renta, iva, isd`);
  return (
    '<retencion>' +
    el('codigo', WITHHELD_TAX_CODE[l.tax]) +
    el('codigoRetencion', text(l.code, 5, 'codigoRetencion')) +
    el('baseImponible', amount(l.base, 'withholding base')) +
    el('porcentajeRetener', percentage(l.rate, 'porcentajeRetener')) +
    el('valorRetenido', amount(l.amount, 'valorRetenido')) +
    '</retencion>'
  );
}

/** The purchase with the withholdings applied to it, in the XSD's order: retenciones and pagos inside it. */
function docSustento(s: WithholdingSupport, lines: readonly WithholdingLine[]): string {
  invariant(/^\d{2}$/.test(s.supportCode), 'codSustento must be two digits');
  invariant(/^\d{1,3}$/.test(s.codDoc), 'codDocSustento must be 1–3 digits');
  invariant(/^\d{3}-\d{3}-\d{9}$/.test(s.numero), 'the support document number must be 000-000-000000000');
  invariant(/^\d{10,49}$/.test(s.authorizationNumber), 'numAutDocSustento must be 10–49 digits');
  invariant(s.paymentLocation === '01' || s.paymentLocation === '02', 'pagoLocExt must be 01 or 02');
  invariant(s.taxes.length > 0, 'the support document has at least one tax');
  invariant(s.payments.length > 0, 'the support document has at least one payment');
  invariant(lines.length > 0, 'every withholding has at least one retencion');
  invariant(s.payments.every((p) => /^(0[1-9]|1\d|2[01])$/.test(p.method)), 'formaPago must be 01–21');
  return (
    '<docSustento>' +
    el('codSustento', s.supportCode) +
    el('codDocSustento', s.codDoc) +
    el('numDocSustento', s.numero.replace(/-/g, '')) +
    el('fechaEmisionDocSustento', fecha20(s.issueDate, 'the support document date')) +
    el('numAutDocSustento', s.authorizationNumber) +
    el('pagoLocExt', s.paymentLocation) +
    el('totalSinImpuestos', amount(s.totalWithoutTaxes, 'totalSinImpuestos')) +
    el('importeTotal', amount(s.grandTotal, 'importeTotal')) +
    `<impuestosDocSustento>${s.taxes.map(impuestoDocSustento).join('')}</impuestosDocSustento>` +
    `<retenciones>${lines.map(retencion).join('')}</retenciones>` +
    `<pagos>${s.payments.map((p) => `<pago>${el('formaPago', p.method)}${el('total', amount(p.amount, 'pago total'))}</pago>`).join('')}</pagos>` +
    '</docSustento>'
  );
}

/**
 * The unsigned comprobanteRetencion 2.0.0 of `w`, issued by `issuer` with `numbering`.
 *
 * @example
 *   const xml = buildComprobanteRetencionXml(issuer, withholding, numbering);
 *   // <?xml version="1.0" encoding="UTF-8"?><comprobanteRetencion id="comprobante" version="2.0.0"><infoTributaria>…
 */
export function buildComprobanteRetencionXml(issuer: Issuer, w: ComputedWithholding, numbering: Numbering): Buffer {
  const series = { codDoc: COD_DOC.comprobanteRetencion, issueDate: w.issueDate, establishment: w.establishment, emissionPoint: w.emissionPoint };
  const { xml: infoTributariaXml, establishment } = infoTributaria(issuer, series, numbering);
  const { subject, support } = w;
  invariant(/^0[4-8]$/.test(subject.idTypeCode) && subject.idTypeCode !== '07', 'the withheld subject is identified by 04, 05, 06 or 08, never as a consumidor final');
  invariant(/^(0[1-9]|1[0-2])\/20\d{2}$/.test(w.fiscalPeriod), 'periodoFiscal must be MM/20YY');
  // infoTributaria admits the 13 characters of a factura's; this XSD only 5.
  invariant(issuer.contribuyente_especial === undefined || /^[A-Za-z0-9]{3,5}$/.test(issuer.contribuyente_especial), 'contribuyente_especial must be 3–5 letters or digits in a comprobante de retención 2.0.0');

  const info =
    '<infoCompRetencion>' +
    el('fechaEmision', fecha20(w.issueDate, 'the issue date')) +
    el('dirEstablecimiento', text(establishment.address, 300, 'establishment address')) +
    el('contribuyenteEspecial', issuer.contribuyente_especial) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('tipoIdentificacionSujetoRetenido', subject.idTypeCode) +
    el('parteRel', subject.relatedParty ? 'SI' : 'NO') +
    el('razonSocialSujetoRetenido', text(subject.name, 300, 'withheld subject name')) +
    el('identificacionSujetoRetenido', text(subject.taxId, 20, 'withheld subject id')) +
    el('periodoFiscal', w.fiscalPeriod) +
    '</infoCompRetencion>';

  const docs = `<docsSustento>${docSustento(support, w.lines)}</docsSustento>`;
  return comprobante('comprobanteRetencion', '2.0.0', `${infoTributariaXml}${info}${docs}${infoAdicional(w.additionalInfo)}`);
}
