/**
 * Exact decimal arithmetic for invoice amounts: a value is a bigint counted in units of
 * 10^-scale ("12.50" at scale 2 is 1250n). No float ever holds an amount: 0.1 + 0.2 is not
 * 0.3 in binary, and the SRI compares totals to the cent. Inputs are non-negative decimal
 * strings already checked by the body's schema; rounding is half-up (0.005 → 0.01), the
 * commercial rule the SRI's own calculator follows.
 */

/** "12.5" at scale 2 → 1250n. Throws on more decimals than `scale` or on anything but digits and one dot. */
export function toUnits(text: string, scale: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match || (match[2] ?? '').length > scale) throw new Error(`"${text}" is not a decimal with at most ${scale} decimals`);
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(scale, '0')}`);
}

/** 1250n at scale 2 → "12.50". @example formatUnits(5n, 2) // "0.05" */
export function formatUnits(units: bigint, scale: number): string {
  const sign = units < 0n ? '-' : '';
  const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
  return scale === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** `units` (at `from` decimals) rounded half-up to `to` decimals (`to` ≤ `from`). @example roundHalfUp(12345n, 3, 2) // 1235n */
export function roundHalfUp(units: bigint, from: number, to: number): bigint {
  const divisor = 10n ** BigInt(from - to);
  const half = divisor / 2n;
  return units < 0n ? -((-units + half) / divisor) : (units + half) / divisor;
}

/** A rate in percent ("15", "12.5") times `cents`, rounded half-up to cents. @example percentOf(1003n, '15') // 150n (1.5045 → 1.50) */
export function percentOf(cents: bigint, rate: string): bigint {
  // Dollars at scale 2 × percent at scale 2 (the XSD's tarifa has two decimals) ÷ 100 = dollars at scale 6.
  return roundHalfUp(cents * toUnits(rate, 2), 6, 2);
}

/** "1.500000" → "1.5", "2.00" → "2": a decimal without trailing zeros. */
export function normalize(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
