/**
 * Checks of Ecuadorian identification numbers by type (CONTRACT §8 catalog): the customer of an
 * invoice (`tipoIdentificacionComprador`) and the issuer's RUC. A refusal names the rule that
 * failed, in Spanish; an acceptance may carry a `note` when a rule failed that is known not to
 * hold for every real number.
 *
 * Rules (the textbook ones, as the SRI and the Registro Civil describe them):
 * - cédula: 10 digits; province (digits 1–2) 01–24, or 30 (Ecuadorians registered abroad);
 *   third digit below 6; digit 10 is the modulo-10 check (coefficients 2,1,2,1… over digits
 *   1–9, products above 9 less 9, check = (10 − sum mod 10) mod 10).
 * - RUC: 13 digits ending in 001 (the SRI's own pattern `[0-9]{10}001`); province as above;
 *   third digit 0–5 a natural person (a valid cédula + 001); 6 a public body (modulo 11 with
 *   weights 3,2,7,6,5,4,3,2 over digits 1–8, check digit 9th); 9 a private company (modulo 11 with
 *   weights 4,3,2,7,6,5,4,3,2 over digits 1–9, check digit 10th); 7 and 8 are never issued.
 *   Modulo 11: check = 11 − sum mod 11, where a result of 11 is 0 and 10 cannot be issued.
 *
 * Leniency (the default; `{strict: true}` applies the textbook rules only):
 * - Foreigners' cédulas have a third digit 6 and keep the modulo-10 check; a RUC with third digit
 *   6 may be such a natural person's (python-stdnum 127fff1 and 1a0e613; odoo-ecuador #241).
 * - Province 50 (foreigners) is accepted as python-stdnum accepts it (069279a).
 * - Third digit 9 with the public-body check is a real company RUC (python-stdnum #457,
 *   1793221293001).
 * - The SRI has said that RUCs of companies (third digit 9) and public bodies (6) are not issued
 *   by an algorithm: active companies fail both checks (python-stdnum #290 and #497:
 *   0993370026001, 1793213150001; koblas/stdnum-js #168 quotes the SRI). Such a RUC is accepted
 *   with a note naming the check that failed; the SRI knows its own register. Natural persons'
 *   RUCs and cédulas stay strict: their check digit is the Registro Civil's, and it always holds.
 */

export type IdRule =
  | 'formato'
  | 'provincia'
  | 'tercer_digito'
  | 'digito_verificador'
  | 'establecimiento'
  | 'consumidor_final'
  | 'tipo';

export type IdKind = 'cedula' | 'ruc_natural' | 'ruc_publico' | 'ruc_sociedad' | 'consumidor_final' | 'pasaporte' | 'exterior';

export type IdCheck = { ok: true; kind: IdKind; note?: string } | { ok: false; rule: IdRule; message: string };

export interface IdCheckOptions {
  /** Only the textbook rules: none of the module's documented leniencies. */
  strict?: boolean;
}

/** The final consumer's identification (SRI: 13 nines), only with `ec-consumidor-final`. */
export const FINAL_CONSUMER_ID = '9999999999999';

/**
 * The SRI's `tipoIdentificacionComprador` for a catalog identification type. The catalog serves
 * `ec-ruc` as 06 (the spec's value, CONTRACT §8), but the SRI's buyer table says 04 for RUC and
 * 06 for pasaporte: the XML needs the SRI's.
 *
 * @example sriBuyerIdCode('ec-ruc') // '04'
 */
export function sriBuyerIdCode(type: string): string | undefined {
  return ({
    'ec-ruc': '04',
    'ec-cedula': '05',
    'ec-pasaporte': '06',
    'ec-consumidor-final': '07',
    'ec-identificacion-exterior': '08',
  } as Record<string, string>)[type];
}

const refuse = (rule: IdRule, message: string): IdCheck => ({ ok: false, rule, message });

function provinceOk(id: string, strict: boolean): boolean {
  const p = Number(id.slice(0, 2));
  return (p >= 1 && p <= 24) || p === 30 || (!strict && p === 50);
}

const PROVINCE_RULE = 'los dos primeros dígitos deben ser una provincia (01 a 24, o 30 para ecuatorianos en el exterior)';

/** Whether the first 10 digits carry a valid modulo-10 check digit (the cédula's). */
function modulo10Ok(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    const product = Number(digits[i]) * (i % 2 === 0 ? 2 : 1);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10 === Number(digits[9]);
}

/** Whether the digit after `weights.length` digits is their modulo-11 check digit. */
function modulo11Ok(digits: string, weights: readonly number[]): boolean {
  let sum = 0;
  weights.forEach((w, i) => (sum += w * Number(digits[i])));
  const check = 11 - (sum % 11);
  const expected = check === 11 ? 0 : check;
  return expected !== 10 && expected === Number(digits[weights.length]);
}

const PUBLIC_WEIGHTS = [3, 2, 7, 6, 5, 4, 3, 2] as const;
const PRIVATE_WEIGHTS = [4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/**
 * Checks an Ecuadorian cédula (10 digits).
 *
 * @example checkCedula('1714307103') // { ok: true, kind: 'cedula' }
 * @example checkCedula('1714307104') // { ok: false, rule: 'digito_verificador', message: '…módulo 10…' }
 */
export function checkCedula(id: string, options: IdCheckOptions = {}): IdCheck {
  const strict = options.strict === true;
  if (!/^\d{10}$/.test(id)) return refuse('formato', 'una cédula tiene exactamente 10 dígitos, sin guiones ni espacios');
  if (!provinceOk(id, strict)) return refuse('provincia', `la cédula no es válida: ${PROVINCE_RULE}`);
  const third = Number(id[2]);
  if (third > 6 || (strict && third === 6)) {
    return refuse('tercer_digito', 'la cédula no es válida: el tercer dígito debe ser menor que 6 (6 solo en cédulas de extranjeros)');
  }
  if (!modulo10Ok(id)) return refuse('digito_verificador', 'la cédula no es válida: el dígito verificador (el 10.º) no corresponde a los nueve primeros (módulo 10)');
  return { ok: true, kind: 'cedula' };
}

/**
 * Checks an Ecuadorian RUC (13 digits ending in 001), by the kind its third digit says.
 *
 * @example checkRuc('1790011674001') // { ok: true, kind: 'ruc_sociedad' }
 * @example checkRuc('0190115799001') // { ok: true, kind: 'ruc_sociedad', note: '…módulo 11…' } (strict: refused)
 */
export function checkRuc(id: string, options: IdCheckOptions = {}): IdCheck {
  const strict = options.strict === true;
  if (!/^\d{13}$/.test(id)) return refuse('formato', 'un RUC tiene exactamente 13 dígitos, sin guiones ni espacios');
  if (!id.endsWith('001')) return refuse('establecimiento', 'el RUC no es válido: termina en 001 (los diez primeros dígitos y el establecimiento principal)');
  if (!provinceOk(id, strict)) return refuse('provincia', `el RUC no es válido: ${PROVINCE_RULE}`);
  const third = Number(id[2]);
  if (third <= 5) {
    if (!modulo10Ok(id)) {
      return refuse('digito_verificador', 'el RUC de persona natural no es válido: sus diez primeros dígitos deben ser una cédula válida, y el 10.º no es su dígito verificador (módulo 10)');
    }
    return { ok: true, kind: 'ruc_natural' };
  }
  if (third === 6) {
    if (modulo11Ok(id, PUBLIC_WEIGHTS)) return { ok: true, kind: 'ruc_publico' };
    if (!strict && modulo10Ok(id)) return { ok: true, kind: 'ruc_natural' }; // a foreigner's cédula + 001
    const rule = 'el 9.º dígito no es el verificador de entidad pública (módulo 11, pesos 3,2,7,6,5,4,3,2)';
    if (strict) return refuse('digito_verificador', `el RUC de entidad pública no es válido: ${rule}`);
    return { ok: true, kind: 'ruc_publico', note: `RUC aceptado sin comprobar su dígito verificador: ${rule}, ni es el de una cédula de extranjero (módulo 10)` };
  }
  if (third === 9) {
    if (modulo11Ok(id, PRIVATE_WEIGHTS)) return { ok: true, kind: 'ruc_sociedad' };
    if (!strict && modulo11Ok(id, PUBLIC_WEIGHTS)) return { ok: true, kind: 'ruc_sociedad' };
    const rule = 'el 10.º dígito no es el verificador de sociedad privada (módulo 11, pesos 4,3,2,7,6,5,4,3,2)';
    if (strict) return refuse('digito_verificador', `el RUC de sociedad no es válido: ${rule}`);
    return { ok: true, kind: 'ruc_sociedad', note: `RUC aceptado sin comprobar su dígito verificador: ${rule}; el SRI emite RUC de sociedades que no lo cumplen` };
  }
  return refuse('tercer_digito', 'el RUC no es válido: el tercer dígito debe ser de 0 a 5 (persona natural), 6 (entidad pública) o 9 (sociedad)');
}

/**
 * The issuer's RUC (`PUT /api/v1/issuer`, the XML's `ruc`): the same rules as any RUC, lenient
 * as documented, and never the final consumer's.
 *
 * @example checkIssuerRuc('1792146739001') // { ok: true, kind: 'ruc_sociedad' }
 */
export function checkIssuerRuc(ruc: string, options: IdCheckOptions = {}): IdCheck {
  if (ruc === FINAL_CONSUMER_ID) return refuse('consumidor_final', 'el RUC del emisor no puede ser el del consumidor final');
  return checkRuc(ruc, options);
}

/** A passport or foreign id: printable ASCII without spaces, 1–20 characters (identificacionComprador). */
function checkForeign(id: string, kind: 'pasaporte' | 'exterior'): IdCheck {
  const what = kind === 'pasaporte' ? 'el pasaporte' : 'la identificación del exterior';
  if (!/^[\x21-\x7e]{1,20}$/.test(id)) {
    return refuse('formato', `${what} admite de 1 a 20 caracteres visibles (letras sin tilde, dígitos, guiones, puntos…), sin espacios`);
  }
  return { ok: true, kind };
}

/**
 * Checks a customer's identification against its catalog type (`customer.tax_id_type.type`).
 * The final consumer's 13 nines go only with `ec-consumidor-final`, and that type only with them.
 *
 * @example checkCustomerId('ec-consumidor-final', '9999999999999') // { ok: true, kind: 'consumidor_final' }
 * @example checkCustomerId('ec-cedula', '9999999999999') // { ok: false, rule: 'consumidor_final', … }
 */
export function checkCustomerId(type: string, id: string, options: IdCheckOptions = {}): IdCheck {
  if (type === 'ec-consumidor-final') {
    return id === FINAL_CONSUMER_ID
      ? { ok: true, kind: 'consumidor_final' }
      : refuse('consumidor_final', `el consumidor final se identifica con ${FINAL_CONSUMER_ID} (13 nueves); para otro comprador use su tipo de identificación`);
  }
  if (id === FINAL_CONSUMER_ID) {
    return refuse('consumidor_final', `${FINAL_CONSUMER_ID} es la identificación del consumidor final: úsela con el tipo ec-consumidor-final (07)`);
  }
  switch (type) {
    case 'ec-cedula':
      return checkCedula(id, options);
    case 'ec-ruc':
      return checkRuc(id, options);
    case 'ec-pasaporte':
      return checkForeign(id, 'pasaporte');
    case 'ec-identificacion-exterior':
      return checkForeign(id, 'exterior');
    default:
      return refuse('tipo', `${type} no es un tipo de identificación de comprador de Ecuador (ec-ruc, ec-cedula, ec-pasaporte, ec-consumidor-final, ec-identificacion-exterior)`);
  }
}
