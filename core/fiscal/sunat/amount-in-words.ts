/**
 * The amount in words of a comprobante: the legend UBL carries as `cbc:Note languageLocaleID="1000"`
 * (catalog 52, "monto en letras").
 *
 * Form: `<integer part in words> CON <cents>/100 <currency>`, uppercase, e.g.
 * "CIENTO VEINTITRÉS CON 45/100 SOLES", "UNO CON 00/100 DÓLARES AMERICANOS".
 *
 * Conventions (greenter has no converter of its own: its legends are written by hand, e.g.
 * `packages/data/src/Data/Generator/InvoiceStore.php` "SON DOSCIENTOS TREINTA Y SEIS CON 00/100
 * SOLES", and its report names the currencies "SOLES" and "DÓLARES AMERICANOS",
 * `packages/report/src/Report/Filter/DocumentFilter.php`, f81df7d):
 * - No leading "SON": greenter's samples carry it, SUNAT does not ask for it, and the printed
 *   representation can add "SON:" as a label of its own.
 * - Accents (VEINTITRÉS, DIECISÉIS, VEINTIÚN, MILLÓN, DÓLARES): SUNAT takes the text as free text
 *   and accepts both spellings; greenter's own currency name has its accent, and none of its
 *   sample legends contains a word that would need one, so nothing there argues against correct
 *   Spanish. (A portal-issued factura among greenter's parser fixtures, `packages/xml-parser/tests/
 *   Resources/clavesol/FACTURAE001-17.xml`, writes "VEINTITRES" without accent and "Y 64/100": an
 *   older SUNAT style, not followed.)
 * - The number is the whole integer part in words and the cents always two digits over 100, also
 *   for 0 ("CERO CON 50/100 SOLES") and 1 ("UNO CON 00/100 SOLES"): the currency name stays
 *   plural, as a unit after the fraction.
 * - "UNO" is shortened before MIL and MILLÓN/MILLONES only ("VEINTIÚN MIL", "UN MILLÓN", "MIL UN
 *   MILLONES"), never at the end of the number ("VEINTIUNO CON…"); 1000 is "MIL", not "UN MIL";
 *   100 is "CIEN", 101–199 "CIENTO …".
 */

export type LegendCurrency = 'PEN' | 'USD';

const CURRENCY_NAMES: Readonly<Record<LegendCurrency, string>> = {
  PEN: 'SOLES',
  USD: 'DÓLARES AMERICANOS',
};

const UNITS = [
  '', 'UNO', 'DOS', 'TRES', 'CUATRO', 'CINCO', 'SEIS', 'SIETE', 'OCHO', 'NUEVE',
  'DIEZ', 'ONCE', 'DOCE', 'TRECE', 'CATORCE', 'QUINCE', 'DIECISÉIS', 'DIECISIETE', 'DIECIOCHO', 'DIECINUEVE',
  'VEINTE', 'VEINTIUNO', 'VEINTIDÓS', 'VEINTITRÉS', 'VEINTICUATRO', 'VEINTICINCO', 'VEINTISÉIS', 'VEINTISIETE', 'VEINTIOCHO', 'VEINTINUEVE',
] as const;

const TENS = ['', '', '', 'TREINTA', 'CUARENTA', 'CINCUENTA', 'SESENTA', 'SETENTA', 'OCHENTA', 'NOVENTA'] as const;

const HUNDREDS = ['', 'CIENTO', 'DOSCIENTOS', 'TRESCIENTOS', 'CUATROCIENTOS', 'QUINIENTOS', 'SEISCIENTOS', 'SETECIENTOS', 'OCHOCIENTOS', 'NOVECIENTOS'] as const;

/** 1–999 in words; `beforeMil` shortens a final UNO (before MIL or MILLÓN/MILLONES). */
function upTo999(n: number, beforeMil: boolean): string {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds > 0) words.push(hundreds === 1 && rest === 0 ? 'CIEN' : HUNDREDS[hundreds] ?? '');
  if (rest > 0) {
    if (rest < 30) {
      words.push(UNITS[rest] ?? '');
    } else {
      words.push(TENS[Math.floor(rest / 10)] ?? '');
      if (rest % 10 > 0) words.push('Y', UNITS[rest % 10] ?? '');
    }
  }
  const text = words.join(' ');
  if (!beforeMil) return text;
  if (text.endsWith('VEINTIUNO')) return `${text.slice(0, -'VEINTIUNO'.length)}VEINTIÚN`;
  if (text.endsWith('UNO')) return text.slice(0, -1);
  return text;
}

/** 1–999 999 in words. */
function upTo999999(n: number, beforeMil: boolean): string {
  const thousands = Math.floor(n / 1000);
  const rest = n % 1000;
  const words: string[] = [];
  if (thousands === 1) words.push('MIL');
  else if (thousands > 1) words.push(`${upTo999(thousands, true)} MIL`);
  if (rest > 0) words.push(upTo999(rest, beforeMil));
  return words.join(' ');
}

/** 0–999 999 999 999 in words. */
function integerInWords(n: number): string {
  if (n === 0) return 'CERO';
  const millions = Math.floor(n / 1_000_000);
  const rest = n % 1_000_000;
  const words: string[] = [];
  if (millions === 1) words.push('UN MILLÓN');
  else if (millions > 1) words.push(`${upTo999999(millions, true)} MILLONES`);
  if (rest > 0) words.push(upTo999999(rest, false));
  return words.join(' ');
}

/**
 * The legend 1000 for an amount with exactly two decimals, 0.00 to 999 999 999 999.99.
 * Anything else is a programming error (amounts reach here already computed and formatted).
 *
 * @example amountInWords('123.45', 'PEN') // 'CIENTO VEINTITRÉS CON 45/100 SOLES'
 * @example amountInWords('21000.00', 'USD') // 'VEINTIÚN MIL CON 00/100 DÓLARES AMERICANOS'
 */
export function amountInWords(amount: string, currency: LegendCurrency): string {
  const match = /^(0|[1-9]\d{0,11})\.(\d{2})$/.exec(amount);
  if (!match) throw new Error(`amountInWords: "${amount}" is not a decimal string with exactly two decimals between 0.00 and 999999999999.99`);
  const name = CURRENCY_NAMES[currency] as string | undefined;
  if (name === undefined) throw new Error(`amountInWords: unknown currency "${String(currency)}"`);
  return `${integerInWords(Number(match[1]))} CON ${match[2]}/100 ${name}`;
}
