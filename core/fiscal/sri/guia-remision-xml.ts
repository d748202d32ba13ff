/**
 * The guiaRemision 1.1.0 XML of a computed guide (SRI's GuiaRemision_V1.1.0.xsd), unsigned, in
 * the manner of the factura (factura-xml.ts, xml-parts.ts): elements in the XSD's order, optional
 * ones only when there is something to say, no indentation.
 *
 * What the XSD makes different:
 * - `infoGuiaRemision` has no fechaEmision (the guide's date is only in its access key) and puts
 *   obligadoContabilidad before contribuyenteEspecial, the factura's reverse order; `rise` is
 *   left out (the RISE regime ended in 2022, replaced by RIMPE, which infoTributaria carries).
 * - `destinatarios` hold each recipient's id (without its type: the XSD has no element for it),
 *   its optional customs document, destination establishment, route and supporting document,
 *   and its own `detalles` (codigoInterno, codigoAdicional, descripcion, cantidad; no prices).
 * - `maquinaFiscal` (fiscal printers) is never written.
 */
import { COD_DOC } from './access-key.js';
import type { Issuer, Numbering } from './invoice-model.js';
import type { ComputedRemissionGuide, GuideGood, GuideRecipient } from './remission-guide-model.js';
import { comprobante, el, fecha, infoAdicional, infoTributaria, invariant, text } from './xml-parts.js';

function detalle(g: GuideGood): string {
  invariant(/^\d{1,12}(\.\d{1,6})?$/.test(g.quantity), 'cantidad must be a decimal with up to 6 decimals');
  return (
    '<detalle>' +
    el('codigoInterno', text(g.code, 25, 'good code')) +
    el('codigoAdicional', g.additionalCode === undefined ? undefined : text(g.additionalCode, 25, 'good additional code')) +
    el('descripcion', text(g.description, 300, 'good description')) +
    el('cantidad', g.quantity) +
    '</detalle>'
  );
}

function destinatario(r: GuideRecipient): string {
  invariant(r.goods.length > 0, 'every recipient has goods');
  invariant(r.invoiceId === undefined || r.supportDocument !== undefined, `invoice ${r.invoiceId ?? ''} must be resolved into a support document before the XML is built`);
  invariant(r.destinationEstablishment === undefined || /^\d{3}$/.test(r.destinationEstablishment), 'codEstabDestino must be three digits');
  const doc = r.supportDocument;
  invariant(doc === undefined || (/^\d{2}$/.test(doc.codDoc) && /^\d{3}-\d{3}-\d{9}$/.test(doc.numero)), 'the support document must have a two-digit type and a 000-000-000000000 number');
  invariant(doc?.authorizationNumber === undefined || /^\d{10,49}$/.test(doc.authorizationNumber), 'numAutDocSustento must be 10–49 digits');
  return (
    '<destinatario>' +
    el('identificacionDestinatario', text(r.taxId, 20, 'recipient id')) +
    el('razonSocialDestinatario', text(r.name, 300, 'recipient name')) +
    el('dirDestinatario', text(r.address, 300, 'recipient address')) +
    el('motivoTraslado', text(r.reason, 300, 'motivoTraslado')) +
    el('docAduaneroUnico', r.customsDocument === undefined ? undefined : text(r.customsDocument, 20, 'docAduaneroUnico')) +
    el('codEstabDestino', r.destinationEstablishment) +
    el('ruta', r.route === undefined ? undefined : text(r.route, 300, 'ruta')) +
    el('codDocSustento', doc?.codDoc) +
    el('numDocSustento', doc?.numero) +
    el('numAutDocSustento', doc?.authorizationNumber) +
    el('fechaEmisionDocSustento', doc === undefined ? undefined : fecha(doc.issueDate)) +
    `<detalles>${r.goods.map(detalle).join('')}</detalles>` +
    '</destinatario>'
  );
}

/**
 * The unsigned guiaRemision 1.1.0 of `guide`, issued by `issuer` with `numbering` (whose access
 * key is dated `guide.issueDate`).
 *
 * @example
 *   const xml = buildGuiaRemisionXml(issuer, guide, numbering);
 *   // <?xml version="1.0" encoding="UTF-8"?><guiaRemision id="comprobante" version="1.1.0"><infoTributaria>…
 */
export function buildGuiaRemisionXml(issuer: Issuer, guide: ComputedRemissionGuide, numbering: Numbering): Buffer {
  const series = { codDoc: COD_DOC.guiaRemision, issueDate: guide.issueDate, establishment: guide.establishment, emissionPoint: guide.emissionPoint };
  const { xml: infoTributariaXml, establishment } = infoTributaria(issuer, series, numbering);
  invariant(guide.recipients.length > 0, 'every guide has recipients');
  invariant(/^0[4-8]$/.test(guide.carrier.idTypeCode), 'tipoIdentificacionTransportista must be 04 to 08');
  invariant(guide.transportStart <= guide.transportEnd, 'the transport cannot end before it starts');

  const { carrier } = guide;
  const infoGuiaRemision =
    '<infoGuiaRemision>' +
    el('dirEstablecimiento', text(establishment.address, 300, 'establishment address')) +
    el('dirPartida', text(guide.departureAddress, 300, 'dirPartida')) +
    el('razonSocialTransportista', text(carrier.name, 300, 'carrier name')) +
    el('tipoIdentificacionTransportista', carrier.idTypeCode) +
    el('rucTransportista', text(carrier.taxId, 20, 'carrier id')) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('contribuyenteEspecial', issuer.contribuyente_especial) +
    el('fechaIniTransporte', fecha(guide.transportStart)) +
    el('fechaFinTransporte', fecha(guide.transportEnd)) +
    el('placa', text(guide.plate, 20, 'placa')) +
    '</infoGuiaRemision>';

  const destinatarios = `<destinatarios>${guide.recipients.map(destinatario).join('')}</destinatarios>`;

  return comprobante('guiaRemision', '1.1.0', `${infoTributariaXml}${infoGuiaRemision}${destinatarios}${infoAdicional(guide.additionalInfo)}`);
}
