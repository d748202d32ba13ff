/**
 * Checks of Peruvian identity documents by their SUNAT catalog 06 code (the `schemeID` of
 * `cac:PartyIdentification/cbc:ID`): the customer of a comprobante and the issuer's RUC. A refusal
 * names the rule that failed, in Spanish, in the same shape as the SRI's checks
 * (`../sri/identification.ts`).
 *
 * Catalog 06 codes covered: 0 doc. trib. no dom. sin RUC, 1 DNI, 4 carné de extranjería, 6 RUC,
 * 7 pasaporte, and "-" sin documento (boletas of small amounts). The others (A cédula diplomática,
 * B doc. ident. país de residencia, C TIN, D IN, E TAM, F PTP…) are refused by name until Sello
 * issues to such customers.
 *
 * Rules:
 * - RUC: 11 digits; prefix 10 (persona natural con DNI), 15 (sucesiones, sociedades conyugales,
 *   extranjeros…), 16 (reserved), 17 (personas naturales inscritas 1993–2000) or 20 (personas
 *   jurídicas), as infoyupay lists them; digit 11 is the
 *   modulo-11 check of digits 1–10 with weights 5,4,3,2,7,6,5,4,3,2: 11 − (sum mod 11), where 10
 *   gives 0 and 11 gives 1. Sources that agree on the weights and on 10 → 0, 11 → 1:
 *   arthurdejong/python-stdnum `stdnum/pe/ruc.py` (5d4ad17; written `(11 − sum mod 11) mod 10`,
 *   the same map) with its real test numbers in `tests/test_pe_ruc.doctest`; and
 *   infoyupay/pe.validator.doi `RUCUtils.java`, which also lists prefix 16 ("valid but reserved";
 *   python-stdnum accepts only 10, 15, 17, 20). greenter has no RUC check of its own (its
 *   `ClientLoader` only limits `numDoc` to 15 characters).
 * - DNI: exactly 8 digits (the card's extra check character is not part of the number).
 * - Carné de extranjería and pasaporte: 1 to 12 letters or digits.
 * - Doc. trib. no dom. sin RUC (a foreign tax number): 1 to 15 visible characters without spaces
 *   (foreign numbers carry hyphens and dots; 15 is greenter's limit for any customer's number).
 * - Sin documento: the number is a single hyphen.
 */

export type PeruIdRule = 'formato' | 'prefijo' | 'digito_verificador' | 'tipo';

export type PeruIdKind = 'ruc' | 'dni' | 'carne_extranjeria' | 'pasaporte' | 'no_domiciliado' | 'sin_documento';

/** Same shape as the SRI's `IdCheck`; a name of its own so both can be exported side by side. */
export type PeruIdCheck = { ok: true; kind: PeruIdKind; note?: string } | { ok: false; rule: PeruIdRule; message: string };

/** The catalog 06 codes this module checks, with SUNAT's names for messages. */
export const PERU_ID_TYPES: Readonly<Record<string, string>> = {
  '0': 'doc. trib. no dom. sin RUC',
  '1': 'DNI',
  '4': 'carné de extranjería',
  '6': 'RUC',
  '7': 'pasaporte',
  '-': 'sin documento',
};

const refuse = (rule: PeruIdRule, message: string): PeruIdCheck => ({ ok: false, rule, message });

const RUC_PREFIXES = ['10', '15', '16', '17', '20'] as const;
const RUC_WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;

/**
 * The check digit of a RUC's first 10 digits (modulo 11, weights 5,4,3,2,7,6,5,4,3,2).
 *
 * @example rucCheckDigit('2051233379') // 7
 */
export function rucCheckDigit(first10: string): number {
  let sum = 0;
  RUC_WEIGHTS.forEach((w, i) => (sum += w * Number(first10[i])));
  const check = 11 - (sum % 11);
  return check === 11 ? 1 : check === 10 ? 0 : check;
}

/**
 * Checks a Peruvian RUC (11 digits): the customer's with code 6, and the issuer's.
 *
 * @example checkPeruRuc('20512333797') // { ok: true, kind: 'ruc' }
 * @example checkPeruRuc('20512333798') // { ok: false, rule: 'digito_verificador', … }
 */
export function checkPeruRuc(ruc: string): PeruIdCheck {
  if (!/^\d{11}$/.test(ruc)) return refuse('formato', 'un RUC tiene exactamente 11 dígitos, sin guiones ni espacios');
  if (!(RUC_PREFIXES as readonly string[]).includes(ruc.slice(0, 2))) {
    return refuse('prefijo', 'el RUC no es válido: empieza con 10, 15, 16 o 17 (personas naturales) o 20 (personas jurídicas)');
  }
  if (rucCheckDigit(ruc) !== Number(ruc[10])) {
    return refuse('digito_verificador', 'el RUC no es válido: el último dígito no es el verificador de los diez primeros (módulo 11, pesos 5,4,3,2,7,6,5,4,3,2)');
  }
  return { ok: true, kind: 'ruc' };
}

/**
 * Checks an identity document against its catalog 06 code.
 *
 * @example checkPeruId('1', '45678912') // { ok: true, kind: 'dni' }
 * @example checkPeruId('1', '4567891') // { ok: false, rule: 'formato', message: 'un DNI tiene exactamente 8 dígitos…' }
 * @example checkPeruId('A', 'X1') // { ok: false, rule: 'tipo', … }
 */
export function checkPeruId(typeCode: string, id: string): PeruIdCheck {
  switch (typeCode) {
    case '6':
      return checkPeruRuc(id);
    case '1':
      return /^\d{8}$/.test(id)
        ? { ok: true, kind: 'dni' }
        : refuse('formato', 'un DNI tiene exactamente 8 dígitos, sin guiones ni espacios');
    case '4':
      return /^[A-Za-z0-9]{1,12}$/.test(id)
        ? { ok: true, kind: 'carne_extranjeria' }
        : refuse('formato', 'un carné de extranjería tiene de 1 a 12 letras o dígitos, sin guiones ni espacios');
    case '7':
      return /^[A-Za-z0-9]{1,12}$/.test(id)
        ? { ok: true, kind: 'pasaporte' }
        : refuse('formato', 'un pasaporte tiene de 1 a 12 letras o dígitos, sin guiones ni espacios');
    case '0':
      return /^[\x21-\x7e]{1,15}$/.test(id)
        ? { ok: true, kind: 'no_domiciliado' }
        : refuse('formato', 'el documento tributario de un no domiciliado admite de 1 a 15 caracteres visibles (letras sin tilde, dígitos, guiones, puntos…), sin espacios');
    case '-':
      return id === '-'
        ? { ok: true, kind: 'sin_documento' }
        : refuse('formato', 'sin documento (tipo "-") el número es un guion: "-"; si el cliente tiene documento, use su tipo');
    default:
      return refuse('tipo', `"${typeCode}" no es un tipo de documento de identidad que Sello admita (catálogo 06 de SUNAT: 0 doc. trib. no dom. sin RUC, 1 DNI, 4 carné de extranjería, 6 RUC, 7 pasaporte, - sin documento)`);
  }
}
