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
import type { ComputedInvoice, Issuer, Numbering, TaxAmount } from './invoice-model.js';
import { accessKeyFor, COD_DOC } from './access-key.js';
import { hasForbiddenCharacter } from './invoice-body.js';

/** The XSD's contribuyenteRimpe text for a RIMPE regime; none for the general one. */
export function contribuyenteRimpeOf(regimen: Issuer['regimen']): string | undefined {
  if (regimen === 'rimpe_emprendedor') return 'CONTRIBUYENTE RÉGIMEN RIMPE';
  if (regimen === 'rimpe_negocio_popular') return 'CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE';
  return undefined;
}

/**
 * The campos adicionales of the invoice, as the XML writes them (and the RIDE should print them).
 *
 * @example infoAdicionalOf(invoice) // [{ name: 'Email', value: 'compras@cliente.ec' }, { name: 'Orden', value: 'OC-7' }]
 */
export function infoAdicionalOf(invoice: ComputedInvoice): Array<{ name: string; value: string }> {
  const fields: Array<{ name: string; value: string }> = [];
  if (invoice.customer.email) fields.push({ name: 'Email', value: invoice.customer.email });
  if (invoice.customer.phone) fields.push({ name: 'Teléfono', value: invoice.customer.phone });
  return [...fields, ...invoice.additionalInfo];
}

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

function invariant(ok: boolean, what: string): void {
  if (!ok) throw new Error(`buildFacturaXml: ${what}`);
}

/** A text the XSD bounds to 1–`max` characters on one line. */
function text(value: string, max: number, what: string): string {
  invariant(value.length > 0 && [...value].length <= max && !hasForbiddenCharacter(value), `${what} must be 1–${max} characters on one line`);
  return value;
}

/** `<name>escaped</name>`, or nothing for an absent optional value. */
function el(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeText(value)}</${name}>`;
}

function fecha(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day}/${month}/${year}`;
}

function totalImpuesto(t: TaxAmount): string {
  return `<totalImpuesto>${el('codigo', t.codigo)}${el('codigoPorcentaje', t.codigoPorcentaje)}${el('baseImponible', t.baseImponible)}${el('tarifa', t.tarifa)}${el('valor', t.valor)}</totalImpuesto>`;
}

function impuesto(t: TaxAmount): string {
  return `<impuesto>${el('codigo', t.codigo)}${el('codigoPorcentaje', t.codigoPorcentaje)}${el('tarifa', t.tarifa)}${el('baseImponible', t.baseImponible)}${el('valor', t.valor)}</impuesto>`;
}

/**
 * The unsigned factura 2.1.0 of `invoice`, issued by `issuer` with `numbering`.
 *
 * @example
 *   const xml = buildFacturaXml(issuer, computed.ok, { ambiente: 1, secuencial: '000000123', numero: '001-001-000000123', accessKey });
 *   // <?xml version="1.0" encoding="UTF-8"?><factura id="comprobante" version="2.1.0"><infoTributaria>…
 */
export function buildFacturaXml(issuer: Issuer, invoice: ComputedInvoice, numbering: Numbering): Buffer {
  const establishment = issuer.establishments.find((e) => e.code === invoice.establishment);
  invariant(establishment !== undefined, `the issuer has no establishment ${invoice.establishment}`);
  invariant(establishment!.emission_points.includes(invoice.emissionPoint), `establishment ${invoice.establishment} has no emission point ${invoice.emissionPoint}`);
  invariant(/^\d{10}001$/.test(issuer.ruc), 'the issuer RUC must be ten digits and 001');
  invariant(/^\d{9}$/.test(numbering.secuencial), 'secuencial must be nine digits');
  const expectedKey = accessKeyFor({
    issueDate: invoice.issueDate,
    codDoc: COD_DOC.factura,
    ruc: issuer.ruc,
    ambiente: numbering.ambiente,
    establishment: invoice.establishment,
    emissionPoint: invoice.emissionPoint,
    secuencial: numbering.secuencial,
    numericCode: /^\d{49}$/.test(numbering.accessKey) ? numbering.accessKey.slice(39, 47) : '00000000',
  });
  invariant(numbering.accessKey === expectedKey, `access key ${numbering.accessKey} does not match the document (expected ${expectedKey})`);
  const especial = issuer.contribuyente_especial;
  invariant(especial === undefined || /^[A-Za-z0-9]{3,13}$/.test(especial), 'contribuyente_especial must be 3–13 letters or digits');
  invariant(issuer.agente_retencion === undefined || /^\d{1,8}$/.test(issuer.agente_retencion), 'agente_retencion must be 1–8 digits');
  const additional = infoAdicionalOf(invoice);
  invariant(additional.length <= 15, 'at most 15 campos adicionales');
  invariant(invoice.lines.length > 0 && invoice.lines.every((l) => l.taxes.length > 0), 'every invoice has lines, every line taxes');

  const infoTributaria =
    '<infoTributaria>' +
    el('ambiente', String(numbering.ambiente)) +
    el('tipoEmision', '1') +
    el('razonSocial', text(issuer.razon_social, 300, 'razon_social')) +
    el('nombreComercial', issuer.nombre_comercial === undefined ? undefined : text(issuer.nombre_comercial, 300, 'nombre_comercial')) +
    el('ruc', issuer.ruc) +
    el('claveAcceso', numbering.accessKey) +
    el('codDoc', COD_DOC.factura) +
    el('estab', invoice.establishment) +
    el('ptoEmi', invoice.emissionPoint) +
    el('secuencial', numbering.secuencial) +
    el('dirMatriz', text(issuer.dir_matriz, 300, 'dir_matriz')) +
    el('agenteRetencion', issuer.agente_retencion) +
    el('contribuyenteRimpe', contribuyenteRimpeOf(issuer.regimen)) +
    '</infoTributaria>';

  const { customer } = invoice;
  const pagos = invoice.payments
    .map((p) => `<pago>${el('formaPago', p.method)}${el('total', p.amount)}${el('plazo', p.term)}${el('unidadTiempo', p.unit)}</pago>`)
    .join('');
  const infoFactura =
    '<infoFactura>' +
    el('fechaEmision', fecha(invoice.issueDate)) +
    el('dirEstablecimiento', text(establishment!.address, 300, 'establishment address')) +
    el('contribuyenteEspecial', especial) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('tipoIdentificacionComprador', customer.idTypeCode) +
    el('razonSocialComprador', text(customer.name, 300, 'customer name')) +
    el('identificacionComprador', text(customer.taxId, 20, 'customer id')) +
    el('direccionComprador', customer.address === undefined ? undefined : text(customer.address, 300, 'customer address')) +
    el('totalSinImpuestos', invoice.totalWithoutTaxes) +
    el('totalDescuento', invoice.totalDiscount) +
    `<totalConImpuestos>${invoice.taxTotals.map(totalImpuesto).join('')}</totalConImpuestos>` +
    el('propina', invoice.tip) +
    el('importeTotal', invoice.grandTotal) +
    el('moneda', 'DOLAR') +
    (pagos ? `<pagos>${pagos}</pagos>` : '') +
    '</infoFactura>';

  const detalles =
    '<detalles>' +
    invoice.lines
      .map(
        (l) =>
          '<detalle>' +
          el('codigoPrincipal', text(l.code, 25, 'line code')) +
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

  const infoAdicional =
    additional.length === 0
      ? ''
      : `<infoAdicional>${additional
          .map((f) => `<campoAdicional nombre="${escapeAttribute(text(f.name, 300, 'campo name'))}">${escapeText(text(f.value, 300, 'campo value'))}</campoAdicional>`)
          .join('')}</infoAdicional>`;

  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<factura id="comprobante" version="2.1.0">${infoTributaria}${infoFactura}${detalles}${infoAdicional}</factura>\n`,
    'utf8',
  );
}
