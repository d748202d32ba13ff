/**
 * Ecuador's access key (clave de acceso, SRI "Ficha técnica de comprobantes
 * electrónicos"): 49 digits = issue date ddmmaaaa (8) · document type (2) · RUC (13) ·
 * environment (1: 1 pruebas, 2 producción) · series (6) · sequence (9) · numeric code (8) ·
 * emission type (1) · check digit (1, modulo 11).
 */
export const ACCESS_KEY_LENGTH = 49;
const ENVIRONMENT_INDEX = 23;

/** The modulo-11 check digit of the first 48 digits: weights 2…7 from the right, 11 → 0, 10 → 1. */
export function accessKeyCheckDigit(first48: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = first48.length - 1; i >= 0; i--) {
    sum += Number(first48[i]) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const digit = 11 - (sum % 11);
  return digit === 11 ? 0 : digit === 10 ? 1 : digit;
}

export type AccessKeyProblem = 'length' | 'digits' | 'check_digit' | 'environment';

/** What is wrong with an Ecuadorian access key for a key of `environment`, or null. */
export function accessKeyProblem(key: string, environment: 'test' | 'live'): AccessKeyProblem | null {
  if (!/^\d*$/.test(key)) return 'digits';
  if (key.length !== ACCESS_KEY_LENGTH) return 'length';
  if (accessKeyCheckDigit(key.slice(0, 48)) !== Number(key[48])) return 'check_digit';
  const expected = environment === 'live' ? '2' : '1';
  if (key[ENVIRONMENT_INDEX] !== expected) return 'environment';
  return null;
}

/** Builds a valid key from its first 48 digits (tests and tools). */
export function withCheckDigit(first48: string): string {
  return `${first48}${accessKeyCheckDigit(first48)}`;
}
