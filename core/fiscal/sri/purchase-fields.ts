/**
 * A factura's `infoTributaria` and `infoFactura` read into a ReceivedPurchase (./purchase-model.ts),
 * each value checked against its XSD type, and the access key against the fields it repeats. Only
 * what the book and a withholding need is read; the lines are not (the totals say what was bought).
 * Every problem is a PurchaseRefused naming the element (`infoFactura/importeTotal`) in Spanish.
 */
import type { Element } from '@xmldom/xmldom';
import { accessKeyCheckDigit } from '../../documents/index.js';
import { numeroOf } from './access-key.js';
import { formatUnits, normalize, roundHalfUp, toUnits } from './decimal.js';
import { PurchaseRefused } from './purchase-limits.js';
import type { ReceivedPurchase } from './purchase-model.js';
import type { SupportTax } from './withholding-model.js';

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;

/** The factura versions the SRI has published (the model's `version`). */
const VERSIONS: readonly string[] = ['1.0.0', '1.1.0', '2.0.0', '2.1.0'];

/**
 * The IVA rate of each `codigoPorcentaje` (fiscal README, datil/api-docs `codes.md`), for the
 * versions whose `totalImpuesto` has no `tarifa`: 6 (no objeto) and 7 (exento) pay none.
 */
const IVA_RATE: Readonly<Record<string, string>> = { '0': '0', '2': '12', '3': '14', '4': '15', '5': '5', '6': '0', '7': '0', '8': '8', '10': '13' };

const TAX_CODES: Readonly<Record<string, string>> = { '2': 'IVA', '3': 'ICE', '5': 'IRBPNR' };

/** A value quoted in a message: never the whole of whatever the file holds. */
function quoted(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return `«${flat.length > 60 ? `${flat.slice(0, 60)}…` : flat}»`;
}

/** The children of `parent` named `name` without namespace, as every element of a comprobante is. */
function childrenNamed(parent: Element, name: string): Element[] {
  const out: Element[] = [];
  for (let c = parent.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === ELEMENT && (c as Element).localName === name && !(c as Element).namespaceURI) out.push(c as Element);
  }
  return out;
}

function onlyChild(parent: Element, name: string, path: string): Element | undefined {
  const found = childrenNamed(parent, name);
  if (found.length > 1) throw new PurchaseRefused(`El comprobante trae ${found.length} elementos ${path}; el SRI admite uno.`);
  return found[0];
}

/** A leaf's text, trimmed; an element inside a leaf is not a value the XSD allows. */
function leafText(el: Element, path: string): string {
  let out = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === TEXT || c.nodeType === CDATA) out += c.nodeValue ?? '';
    else if (c.nodeType === ELEMENT) throw new PurchaseRefused(`${path} debe ser un valor, no contener otros elementos.`);
  }
  return out.trim();
}

function optional(parent: Element, name: string, path: string): string | undefined {
  const el = onlyChild(parent, name, path);
  if (!el) return undefined;
  const value = leafText(el, path);
  return value === '' ? undefined : value;
}

function required(parent: Element, name: string, path: string): string {
  const value = optional(parent, name, path);
  if (value === undefined) throw new PurchaseRefused(`El comprobante no trae ${path}, que es obligatorio.`);
  return value;
}

function section(parent: Element, name: string, path: string): Element {
  const el = onlyChild(parent, name, path);
  if (!el) throw new PurchaseRefused(`El comprobante no trae ${path}, que es obligatorio.`);
  return el;
}

function matching(value: string, pattern: RegExp, path: string, what: string): string {
  if (!pattern.test(value)) throw new PurchaseRefused(`${path} ${quoted(value)} no es ${what}.`);
  return value;
}

/** The XSD's `[^\n]*`, minLength 1, maxLength `max`: names and addresses. */
function name(value: string, max: number, path: string): string {
  if (value.length > max) throw new PurchaseRefused(`${path} tiene ${value.length} caracteres; el SRI admite hasta ${max}.`);
  if (value.includes('\n')) throw new PurchaseRefused(`${path} tiene saltos de línea, que el SRI no admite.`);
  return value;
}

/** The XSD's amounts (totalDigits 14, fractionDigits 2) written with exactly two decimals. */
function amount(value: string, path: string): string {
  matching(value, /^\d{1,14}(\.\d{1,2})?$/, path, 'un importe con hasta dos decimales (como 38.75)');
  return formatUnits(toUnits(value, 2), 2);
}

/** dd/mm/aaaa, a real day → YYYY-MM-DD. */
function isoDate(value: string, path: string): string {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value);
  const [, d, mo, y] = m ?? [];
  const day = m ? new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d))) : undefined;
  if (!day || day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) {
    throw new PurchaseRefused(`${path} ${quoted(value)} no es una fecha dd/mm/aaaa válida.`);
  }
  return `${y}-${mo}-${d}`;
}

/**
 * Reads the factura `root` (already known to be one) of version `version`.
 *
 * @example const purchase = readFacturaFields(root, '2.1.0');
 */
export function readFacturaFields(root: Element, version: string): ReceivedPurchase {
  if (!VERSIONS.includes(version)) throw new PurchaseRefused(`La versión ${quoted(version)} de la factura no es una que el SRI haya publicado (${VERSIONS.join(', ')}).`);
  const it = section(root, 'infoTributaria', 'infoTributaria');
  const f = section(root, 'infoFactura', 'infoFactura');
  const field = (parent: Element, tag: string) => required(parent, tag, `${parent.localName}/${tag}`);
  const path = (parent: Element, tag: string) => `${parent.localName}/${tag}`;

  const ambiente = matching(field(it, 'ambiente'), /^[12]$/, path(it, 'ambiente'), '1 (pruebas) ni 2 (producción)');
  const tipoEmision = matching(field(it, 'tipoEmision'), /^\d$/, path(it, 'tipoEmision'), 'un dígito');
  const ruc = matching(field(it, 'ruc'), /^\d{10}001$/, path(it, 'ruc'), 'un RUC (13 dígitos terminados en 001)');
  const codDoc = field(it, 'codDoc');
  if (codDoc !== '01') throw new PurchaseRefused(`infoTributaria/codDoc es ${quoted(codDoc)}; una factura es el tipo 01.`);
  const estab = matching(field(it, 'estab'), /^\d{3}$/, path(it, 'estab'), 'un establecimiento de tres dígitos');
  const ptoEmi = matching(field(it, 'ptoEmi'), /^\d{3}$/, path(it, 'ptoEmi'), 'un punto de emisión de tres dígitos');
  const secuencial = matching(field(it, 'secuencial'), /^\d{9}$/, path(it, 'secuencial'), 'un secuencial de nueve dígitos');
  const fechaEmision = field(f, 'fechaEmision');
  const issueDate = isoDate(fechaEmision, path(f, 'fechaEmision'));
  const accessKey = checkedAccessKey(field(it, 'claveAcceso'), {
    'fecha de emisión': fechaEmision.split('/').join(''),
    'tipo de comprobante': codDoc,
    RUC: ruc,
    ambiente,
    establecimiento: estab,
    'punto de emisión': ptoEmi,
    secuencial,
    'tipo de emisión': tipoEmision,
  });
  const tradeName = optional(it, 'nombreComercial', path(it, 'nombreComercial'));
  const currency = optional(f, 'moneda', path(f, 'moneda'));

  return {
    accessKey,
    codDoc,
    version,
    ambiente: ambiente === '2' ? 2 : 1,
    supplier: {
      ruc,
      name: name(field(it, 'razonSocial'), 300, path(it, 'razonSocial')),
      ...(tradeName !== undefined ? { tradeName: name(tradeName, 300, path(it, 'nombreComercial')) } : {}),
      address: name(field(it, 'dirMatriz'), 300, path(it, 'dirMatriz')),
    },
    buyer: {
      idTypeCode: matching(field(f, 'tipoIdentificacionComprador'), /^0[4-8]$/, path(f, 'tipoIdentificacionComprador'), 'un tipo de identificación del SRI (04 a 08)'),
      taxId: name(field(f, 'identificacionComprador'), 20, path(f, 'identificacionComprador')),
      name: name(field(f, 'razonSocialComprador'), 300, path(f, 'razonSocialComprador')),
    },
    numero: numeroOf(estab, ptoEmi, secuencial),
    issueDate,
    currency: currency === undefined ? 'DOLAR' : name(currency, 15, path(f, 'moneda')),
    totalWithoutTaxes: amount(field(f, 'totalSinImpuestos'), path(f, 'totalSinImpuestos')),
    totalDiscount: amount(field(f, 'totalDescuento'), path(f, 'totalDescuento')),
    taxes: taxesOf(section(f, 'totalConImpuestos', 'infoFactura/totalConImpuestos')),
    grandTotal: amount(field(f, 'importeTotal'), path(f, 'importeTotal')),
    payments: paymentsOf(f),
  };
}

/**
 * The 49-digit key, its modulo-11 digit right and its fields those of the XML: a key that names
 * another document is how a copied or edited comprobante shows itself.
 */
function checkedAccessKey(key: string, fields: Record<string, string>): string {
  matching(key, /^\d{49}$/, 'infoTributaria/claveAcceso', 'una clave de acceso de 49 dígitos');
  const digit = accessKeyCheckDigit(key.slice(0, 48));
  if (String(digit) !== key[48]) {
    throw new PurchaseRefused(`La clave de acceso ${key} no es válida: su dígito verificador (módulo 11) debería ser ${digit}, no ${key[48]}.`);
  }
  // ddmmaaaa (8) · codDoc (2) · RUC (13) · ambiente (1) · estab (3) · ptoEmi (3) · secuencial (9) · código numérico (8) · tipoEmision (1) · dígito.
  const layout: Array<[string, number, number]> = [
    ['fecha de emisión', 0, 8],
    ['tipo de comprobante', 8, 10],
    ['RUC', 10, 23],
    ['ambiente', 23, 24],
    ['establecimiento', 24, 27],
    ['punto de emisión', 27, 30],
    ['secuencial', 30, 39],
    ['tipo de emisión', 47, 48],
  ];
  for (const [label, from, to] of layout) {
    const inKey = key.slice(from, to);
    if (inKey !== fields[label]) {
      throw new PurchaseRefused(`La clave de acceso ${key} no corresponde al comprobante: su ${label} es ${inKey} y el comprobante dice ${fields[label] ?? '(nada)'}.`);
    }
  }
  return key;
}

function taxesOf(totalConImpuestos: Element): SupportTax[] {
  const items = childrenNamed(totalConImpuestos, 'totalImpuesto');
  if (items.length === 0) throw new PurchaseRefused('infoFactura/totalConImpuestos no trae ningún totalImpuesto; el SRI exige al menos uno.');
  return items.map((t, i) => {
    const at = `infoFactura/totalConImpuestos/totalImpuesto[${i + 1}]`;
    const codigo = required(t, 'codigo', `${at}/codigo`);
    if (!TAX_CODES[codigo]) throw new PurchaseRefused(`${at}/codigo ${quoted(codigo)} no es un impuesto de factura (2 IVA, 3 ICE, 5 IRBPNR).`);
    const codigoPorcentaje = matching(required(t, 'codigoPorcentaje', `${at}/codigoPorcentaje`), /^\d{1,4}$/, `${at}/codigoPorcentaje`, 'un código de hasta cuatro dígitos');
    const baseImponible = amount(required(t, 'baseImponible', `${at}/baseImponible`), `${at}/baseImponible`);
    const valor = amount(required(t, 'valor', `${at}/valor`), `${at}/valor`);
    const written = optional(t, 'tarifa', `${at}/tarifa`);
    const tarifa =
      written !== undefined
        ? normalize(formatUnits(toUnits(matching(written, /^\d{1,4}(\.\d{1,2})?$/, `${at}/tarifa`, 'una tarifa en porcentaje con hasta dos decimales'), 2), 2))
        : rateOf(codigo, codigoPorcentaje, baseImponible, valor, at);
    return { codigo, codigoPorcentaje, baseImponible, tarifa, valor };
  });
}

/**
 * The rate of a tax whose XML does not write it (factura 1.x): IVA's from its code; ICE's and
 * IRBPNR's have no fixed rate per code, so it is what the amounts say, valor ÷ base × 100.
 */
function rateOf(codigo: string, codigoPorcentaje: string, base: string, valor: string, at: string): string {
  if (codigo === '2') {
    const rate = IVA_RATE[codigoPorcentaje];
    if (rate === undefined) throw new PurchaseRefused(`${at}/codigoPorcentaje ${quoted(codigoPorcentaje)} no es un código de IVA que Sello conozca, y el comprobante no dice su tarifa.`);
    return rate;
  }
  const b = toUnits(base, 2);
  if (b === 0n) return '0';
  // valor / base × 100 at four decimals (cents ÷ cents × 10⁶), then half-up to two.
  const rate = roundHalfUp((toUnits(valor, 2) * 1_000_000n) / b, 4, 2);
  return normalize(formatUnits(rate, 2));
}

function paymentsOf(infoFactura: Element): Array<{ method: string; amount: string }> {
  const pagos = onlyChild(infoFactura, 'pagos', 'infoFactura/pagos');
  if (!pagos) return [];
  return childrenNamed(pagos, 'pago').map((p, i) => {
    const at = `infoFactura/pagos/pago[${i + 1}]`;
    return {
      method: matching(required(p, 'formaPago', `${at}/formaPago`), /^\d{2}$/, `${at}/formaPago`, 'una forma de pago del SRI (dos dígitos)'),
      amount: amount(required(p, 'total', `${at}/total`), `${at}/total`),
    };
  });
}
