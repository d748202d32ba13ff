import { describe, expect, it } from 'vitest';
import { amountInWords } from '../../../core/fiscal/sunat/amount-in-words.js';

/** The integer part's words alone: the legend less " CON 00/100 SOLES". */
const words = (n: number): string => amountInWords(`${n}.00`, 'PEN').replace(/ CON 00\/100 SOLES$/, '');

describe('amountInWords', () => {
  it('writes the legend 1000: words, CON, cents/100, the currency', () => {
    expect(amountInWords('123.45', 'PEN')).toBe('CIENTO VEINTITRÉS CON 45/100 SOLES');
    expect(amountInWords('1.00', 'PEN')).toBe('UNO CON 00/100 SOLES');
    expect(amountInWords('0.00', 'PEN')).toBe('CERO CON 00/100 SOLES');
    expect(amountInWords('0.05', 'PEN')).toBe('CERO CON 05/100 SOLES');
    expect(amountInWords('236.00', 'PEN')).toBe('DOSCIENTOS TREINTA Y SEIS CON 00/100 SOLES'); // greenter's sample legend, less "SON"
    expect(amountInWords('118.00', 'PEN')).toBe('CIENTO DIECIOCHO CON 00/100 SOLES');
    expect(amountInWords('236.64', 'PEN')).toBe('DOSCIENTOS TREINTA Y SEIS CON 64/100 SOLES');
    expect(amountInWords('1500.00', 'PEN')).toBe('MIL QUINIENTOS CON 00/100 SOLES');
    expect(amountInWords('6723.64', 'PEN')).toBe('SEIS MIL SETECIENTOS VEINTITRÉS CON 64/100 SOLES');
    expect(amountInWords('14699.21', 'PEN')).toBe('CATORCE MIL SEISCIENTOS NOVENTA Y NUEVE CON 21/100 SOLES');
  });

  it('names dollars as DÓLARES AMERICANOS', () => {
    expect(amountInWords('1.00', 'USD')).toBe('UNO CON 00/100 DÓLARES AMERICANOS');
    expect(amountInWords('21000.99', 'USD')).toBe('VEINTIÚN MIL CON 99/100 DÓLARES AMERICANOS');
    expect(amountInWords('100.10', 'USD')).toBe('CIEN CON 10/100 DÓLARES AMERICANOS');
  });

  it('writes 0 to 30 as single words', () => {
    const expected = [
      'CERO', 'UNO', 'DOS', 'TRES', 'CUATRO', 'CINCO', 'SEIS', 'SIETE', 'OCHO', 'NUEVE',
      'DIEZ', 'ONCE', 'DOCE', 'TRECE', 'CATORCE', 'QUINCE', 'DIECISÉIS', 'DIECISIETE', 'DIECIOCHO', 'DIECINUEVE',
      'VEINTE', 'VEINTIUNO', 'VEINTIDÓS', 'VEINTITRÉS', 'VEINTICUATRO', 'VEINTICINCO', 'VEINTISÉIS', 'VEINTISIETE', 'VEINTIOCHO', 'VEINTINUEVE',
      'TREINTA',
    ];
    expected.forEach((w, n) => expect(words(n), String(n)).toBe(w));
  });

  it('joins tens and units with Y from 31', () => {
    const cases: Array<[number, string]> = [
      [31, 'TREINTA Y UNO'], [40, 'CUARENTA'], [45, 'CUARENTA Y CINCO'], [50, 'CINCUENTA'], [66, 'SESENTA Y SEIS'],
      [70, 'SETENTA'], [82, 'OCHENTA Y DOS'], [99, 'NOVENTA Y NUEVE'],
    ];
    for (const [n, w] of cases) expect(words(n), String(n)).toBe(w);
  });

  it('writes hundreds: CIEN alone, CIENTO before more, the irregular ones', () => {
    const cases: Array<[number, string]> = [
      [100, 'CIEN'], [101, 'CIENTO UNO'], [110, 'CIENTO DIEZ'], [121, 'CIENTO VEINTIUNO'], [199, 'CIENTO NOVENTA Y NUEVE'],
      [200, 'DOSCIENTOS'], [300, 'TRESCIENTOS'], [400, 'CUATROCIENTOS'], [500, 'QUINIENTOS'], [555, 'QUINIENTOS CINCUENTA Y CINCO'],
      [600, 'SEISCIENTOS'], [700, 'SETECIENTOS'], [716, 'SETECIENTOS DIECISÉIS'], [800, 'OCHOCIENTOS'], [900, 'NOVECIENTOS'],
      [999, 'NOVECIENTOS NOVENTA Y NUEVE'],
    ];
    for (const [n, w] of cases) expect(words(n), String(n)).toBe(w);
  });

  it('writes thousands: MIL without UN, UN and VEINTIÚN before MIL', () => {
    const cases: Array<[number, string]> = [
      [1000, 'MIL'], [1001, 'MIL UNO'], [1021, 'MIL VEINTIUNO'], [1100, 'MIL CIEN'], [1999, 'MIL NOVECIENTOS NOVENTA Y NUEVE'],
      [2000, 'DOS MIL'], [2001, 'DOS MIL UNO'], [10000, 'DIEZ MIL'], [16000, 'DIECISÉIS MIL'],
      [21000, 'VEINTIÚN MIL'], [21021, 'VEINTIÚN MIL VEINTIUNO'], [22000, 'VEINTIDÓS MIL'], [31000, 'TREINTA Y UN MIL'],
      [41001, 'CUARENTA Y UN MIL UNO'], [100000, 'CIEN MIL'], [101000, 'CIENTO UN MIL'], [121000, 'CIENTO VEINTIÚN MIL'],
      [200000, 'DOSCIENTOS MIL'], [500500, 'QUINIENTOS MIL QUINIENTOS'], [999999, 'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE'],
    ];
    for (const [n, w] of cases) expect(words(n), String(n)).toBe(w);
  });

  it('writes millions: UN MILLÓN, MILLONES, and thousands of millions', () => {
    const cases: Array<[number, string]> = [
      [1_000_000, 'UN MILLÓN'], [1_000_001, 'UN MILLÓN UNO'], [1_001_000, 'UN MILLÓN MIL'], [1_021_000, 'UN MILLÓN VEINTIÚN MIL'],
      [2_000_000, 'DOS MILLONES'], [2_500_000, 'DOS MILLONES QUINIENTOS MIL'], [21_000_000, 'VEINTIÚN MILLONES'],
      [31_000_021, 'TREINTA Y UN MILLONES VEINTIUNO'], [100_000_000, 'CIEN MILLONES'], [101_000_000, 'CIENTO UN MILLONES'],
      [1_000_000_000, 'MIL MILLONES'], [1_001_000_000, 'MIL UN MILLONES'], [2_000_000_000, 'DOS MIL MILLONES'],
      [21_000_000_000, 'VEINTIÚN MIL MILLONES'], [21_021_000_000, 'VEINTIÚN MIL VEINTIÚN MILLONES'], [100_000_000_000, 'CIEN MIL MILLONES'],
      [1_234_567_890, 'MIL DOSCIENTOS TREINTA Y CUATRO MILLONES QUINIENTOS SESENTA Y SIETE MIL OCHOCIENTOS NOVENTA'],
    ];
    for (const [n, w] of cases) expect(words(n), String(n)).toBe(w);
  });

  it('reaches 999 999 999 999.99', () => {
    expect(amountInWords('999999999999.99', 'PEN')).toBe(
      'NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE MILLONES NOVECIENTOS NOVENTA Y NUEVE MIL NOVECIENTOS NOVENTA Y NUEVE CON 99/100 SOLES',
    );
  });

  it('never leaves double spaces, a trailing UN, or an empty word', () => {
    for (let n = 0; n <= 2_100_000; n += n < 3000 ? 1 : 997) {
      const w = words(n);
      expect(w, String(n)).toMatch(/^[A-ZÁÉÍÓÚ]+( [A-ZÁÉÍÓÚ]+)*$/);
      expect(w, String(n)).not.toMatch(/\bUN$|VEINTIÚN$/);
      expect(w, String(n)).not.toMatch(/\bUNO (MIL|MILLÓN|MILLONES)\b|VEINTIUNO MIL/);
    }
  });

  it('throws on anything but a decimal string with exactly two decimals in range', () => {
    const bad = ['', '1', '1.0', '1.000', '1,00', '-1.00', '+1.00', '01.00', '00.00', '.50', '1.', ' 1.00', '1.00 ', '1e3.00',
      '1000000000000.00', 'NaN', '1_000.00', '１.00'];
    for (const amount of bad) expect(() => amountInWords(amount, 'PEN'), JSON.stringify(amount)).toThrow(Error);
    expect(() => amountInWords('1.00', 'EUR' as 'PEN')).toThrow(/currency/);
  });
});
