/**
 * What every SRI comprobante's XML has in common (factura, notaCredito…): escaping, the
 * dd/mm/aaaa dates, the bounded one-line texts, `infoTributaria` (checked against the access
 * key), the taxes and `infoAdicional`. Each document's builder (factura-xml.ts,
 * nota-credito-xml.ts) writes its own `info…` and `detalles` with these.
 *
 * The inputs were checked before (the issuer by its own schema, the document by its compute
 * step); what would still make a document the SRI refuses throws: a programming error, never the
 * caller's.
 */
import { accessKeyFor } from './access-key.js';
import { hasForbiddenCharacter } from './invoice-body.js';
import type { ComputedLine, Customer, Establishment, Issuer, ModifiedDocument, Numbering, Payment, TaxAmount } from './invoice-model.js';

export function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

export function invariant(ok: boolean, what: string): void {
  if (!ok) throw new Error(`SRI XML: ${what}`);
}

/** A text the XSD bounds to 1–`max` characters on one line. */
export function text(value: string, max: number, what: string): string {
  invariant(value.length > 0 && [...value].length <= max && !hasForbiddenCharacter(value), `${what} must be 1–${max} characters on one line`);
  return value;
}

/** `<name>escaped</name>`, or nothing for an absent optional value. */
export function el(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeText(value)}</${name}>`;
}

/** YYYY-MM-DD as the XML's dd/mm/aaaa. */
export function fecha(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day}/${month}/${year}`;
}

/** The XSD's contribuyenteRimpe text for a RIMPE regime; none for the general one. */
export function contribuyenteRimpeOf(regimen: Issuer['regimen']): string | undefined {
  if (regimen === 'rimpe_emprendedor') return 'CONTRIBUYENTE RÉGIMEN RIMPE';
  if (regimen === 'rimpe_negocio_popular') return 'CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE';
  return undefined;
}

/** A line's `impuesto` (the same in every comprobante with lines). */
export function impuesto(t: TaxAmount): string {
  return `<impuesto>${el('codigo', t.codigo)}${el('codigoPorcentaje', t.codigoPorcentaje)}${el('tarifa', t.tarifa)}${el('baseImponible', t.baseImponible)}${el('valor', t.valor)}</impuesto>`;
}

/** A `totalImpuesto` with its `tarifa` (factura 2.1.0, liquidacionCompra; the notas' have none). */
export function totalImpuestoWithTarifa(t: TaxAmount): string {
  return `<totalImpuesto>${el('codigo', t.codigo)}${el('codigoPorcentaje', t.codigoPorcentaje)}${el('baseImponible', t.baseImponible)}${el('tarifa', t.tarifa)}${el('valor', t.valor)}</totalImpuesto>`;
}

/**
 * `detalles` of a comprobante with lines (factura, notaCredito, liquidacionCompra): each line's
 * code (`codigoPrincipal`, or a nota de crédito's `codigoInterno`), description, quantity, unit
 * price, discount, subtotal and taxes, in that order (the XSDs' sequence).
 */
export function detalles(lines: readonly ComputedLine[], codeElement: 'codigoPrincipal' | 'codigoInterno'): string {
  const detalle = (l: ComputedLine) =>
    '<detalle>' +
    el(codeElement, text(l.code, 25, 'line code')) +
    el('descripcion', text(l.description, 300, 'line description')) +
    el('cantidad', l.quantity) +
    el('precioUnitario', l.unitPrice) +
    el('descuento', l.discount) +
    el('precioTotalSinImpuesto', l.subtotal) +
    `<impuestos>${l.taxes.map(impuesto).join('')}</impuestos>` +
    '</detalle>';
  return `<detalles>${lines.map(detalle).join('')}</detalles>`;
}

/**
 * The buyer and the modified document of a nota (crédito or débito), from fechaEmision to
 * fechaEmisionDocSustento: the same run of elements in both XSDs.
 */
export function notaHeader(issuer: Issuer, establishment: Establishment, note: { issueDate: string; customer: Customer; modified: ModifiedDocument }): string {
  invariant(/^\d{3}-\d{3}-\d{9}$/.test(note.modified.numero), 'the modified document number must be 000-000-000000000');
  const { customer } = note;
  return (
    el('fechaEmision', fecha(note.issueDate)) +
    el('dirEstablecimiento', text(establishment.address, 300, 'establishment address')) +
    el('tipoIdentificacionComprador', customer.idTypeCode) +
    el('razonSocialComprador', text(customer.name, 300, 'customer name')) +
    el('identificacionComprador', text(customer.taxId, 20, 'customer id')) +
    el('contribuyenteEspecial', issuer.contribuyente_especial) +
    el('obligadoContabilidad', issuer.obligado_contabilidad ? 'SI' : 'NO') +
    el('codDocModificado', note.modified.codDoc) +
    el('numDocModificado', note.modified.numero) +
    el('fechaEmisionDocSustento', fecha(note.modified.issueDate))
  );
}

/** `pagos` with each `pago`, or nothing when there is none (factura, notaDebito, liquidacionCompra). */
export function pagos(payments: readonly Payment[]): string {
  if (payments.length === 0) return '';
  return `<pagos>${payments.map((p) => `<pago>${el('formaPago', p.method)}${el('total', p.amount)}${el('plazo', p.term)}${el('unidadTiempo', p.unit)}</pago>`).join('')}</pagos>`;
}

/** `infoAdicional` with its campos, or nothing when there is none (at most 15, as every XSD says). */
export function infoAdicional(fields: ReadonlyArray<{ name: string; value: string }>): string {
  invariant(fields.length <= 15, 'at most 15 campos adicionales');
  if (fields.length === 0) return '';
  const campos = fields.map((f) => `<campoAdicional nombre="${escapeAttribute(text(f.name, 300, 'campo name'))}">${escapeText(text(f.value, 300, 'campo value'))}</campoAdicional>`);
  return `<infoAdicional>${campos.join('')}</infoAdicional>`;
}

/** Where a comprobante is issued from: its series and type. */
export interface Series {
  codDoc: string;
  issueDate: string;
  establishment: string;
  emissionPoint: string;
}

/**
 * `infoTributaria` of a comprobante of `issuer`, after checking that the issuer has the series
 * and that the access key is the one the document's own data make; returns the establishment
 * (its address goes into the document's `info…`).
 */
export function infoTributaria(issuer: Issuer, series: Series, numbering: Numbering): { xml: string; establishment: Establishment } {
  const establishment = issuer.establishments.find((e) => e.code === series.establishment);
  invariant(establishment !== undefined, `the issuer has no establishment ${series.establishment}`);
  invariant(establishment!.emission_points.includes(series.emissionPoint), `establishment ${series.establishment} has no emission point ${series.emissionPoint}`);
  invariant(/^\d{10}001$/.test(issuer.ruc), 'the issuer RUC must be ten digits and 001');
  invariant(/^\d{9}$/.test(numbering.secuencial), 'secuencial must be nine digits');
  const expectedKey = accessKeyFor({
    issueDate: series.issueDate,
    codDoc: series.codDoc,
    ruc: issuer.ruc,
    ambiente: numbering.ambiente,
    establishment: series.establishment,
    emissionPoint: series.emissionPoint,
    secuencial: numbering.secuencial,
    numericCode: /^\d{49}$/.test(numbering.accessKey) ? numbering.accessKey.slice(39, 47) : '00000000',
  });
  invariant(numbering.accessKey === expectedKey, `access key ${numbering.accessKey} does not match the document (expected ${expectedKey})`);
  invariant(issuer.contribuyente_especial === undefined || /^[A-Za-z0-9]{3,13}$/.test(issuer.contribuyente_especial), 'contribuyente_especial must be 3–13 letters or digits');
  invariant(issuer.agente_retencion === undefined || /^\d{1,8}$/.test(issuer.agente_retencion), 'agente_retencion must be 1–8 digits');
  const xml =
    '<infoTributaria>' +
    el('ambiente', String(numbering.ambiente)) +
    el('tipoEmision', '1') +
    el('razonSocial', text(issuer.razon_social, 300, 'razon_social')) +
    el('nombreComercial', issuer.nombre_comercial === undefined ? undefined : text(issuer.nombre_comercial, 300, 'nombre_comercial')) +
    el('ruc', issuer.ruc) +
    el('claveAcceso', numbering.accessKey) +
    el('codDoc', series.codDoc) +
    el('estab', series.establishment) +
    el('ptoEmi', series.emissionPoint) +
    el('secuencial', numbering.secuencial) +
    el('dirMatriz', text(issuer.dir_matriz, 300, 'dir_matriz')) +
    el('agenteRetencion', issuer.agente_retencion) +
    el('contribuyenteRimpe', contribuyenteRimpeOf(issuer.regimen)) +
    '</infoTributaria>';
  return { xml, establishment: establishment! };
}

/** The whole document: XML declaration, root with id="comprobante" and its version, one line. */
export function comprobante(root: string, version: string, body: string): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<${root} id="comprobante" version="${version}">${body}</${root}>\n`, 'utf8');
}
