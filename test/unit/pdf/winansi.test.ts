import { describe, expect, it } from 'vitest';
import { helveticaWidth, toWinAnsi, wrapText } from '../../../core/pdf/stamp/winansi.js';

describe('toWinAnsi', () => {
  it('encodes Spanish letters as their CP1252 bytes (Annex D.2)', () => {
    expect([...toWinAnsi('áéíóúñÑü')]).toEqual([0xe1, 0xe9, 0xed, 0xf3, 0xfa, 0xf1, 0xd1, 0xfc]);
  });

  it('maps the 0x80–0x9F specials and composes decomposed accents', () => {
    expect([...toWinAnsi('€Œ“”')]).toEqual([0x80, 0x8c, 0x93, 0x94]);
    expect([...toWinAnsi('n\u0303')]).toEqual([0xf1]);
  });

  it('drops accents WinAnsi lacks and replaces the rest with ?', () => {
    expect(toWinAnsi('Ăș中').toString('latin1')).toBe('As?');
  });
});

describe('wrapText', () => {
  it('measures with the Helvetica AFM widths', () => {
    expect(helveticaWidth(Buffer.from('A'), 10)).toBeCloseTo(6.67, 2);
  });

  it('breaks at spaces within the width, and inside a word only when it must', () => {
    const lines = wrapText('María José Peña Núñez de la Santísima Trinidad', 9, 100);
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(helveticaWidth(l, 9)).toBeLessThanOrEqual(100);
    expect(Buffer.concat(lines.flatMap((l) => [l, Buffer.from(' ')])).toString('latin1').trim()).toBe(toWinAnsi('María José Peña Núñez de la Santísima Trinidad').toString('latin1'));
    const long = wrapText('Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 9, 50);
    expect(long.length).toBeGreaterThan(1);
    for (const l of long) expect(helveticaWidth(l, 9)).toBeLessThanOrEqual(50);
  });
});
