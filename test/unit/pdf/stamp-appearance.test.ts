/**
 * The stamp's appearance (core/pdf/stamp/stamp-appearance.ts) and the QR text (core/signing/qr-text.ts):
 * the time is to the second, and a stamp made again with the same facts is the same stream,
 * made once.
 */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { stampAppearance, stampContent, stampDimensions } from '../../../core/pdf/stamp/stamp-appearance.js';
import type { Matrix } from '../../../core/pdf/stamp/stamp-geometry.js';
import { qrText } from '../../../core/signing/qr-text.js';

const upright: Matrix = [1, 0, 0, 1, 0, 0];

describe('qrText', () => {
  it('gives the signing time to the second, as the signature itself does', () => {
    const text = qrText({ signerName: 'ANA PÉREZ', signedAt: new Date('2026-11-22T04:55:45.678Z'), serialNumber: '4F3A' });
    expect(text).toBe('FIRMADO POR: ANA PÉREZ\nFECHA: 2026-11-22T04:55:45Z\nCERTIFICADO: 4F3A');
  });
});

describe('stampAppearance', () => {
  it('draws the same stamp once for the same size, QR text and signer, and a new one when any changes', () => {
    const s = stampDimensions('s');
    const text = qrText({ signerName: 'ANA PÉREZ', signedAt: new Date('2026-11-22T04:55:45Z'), serialNumber: '4F3A' });
    const first = stampAppearance(s, upright, text, 'ANA PÉREZ');
    const again = stampAppearance(s, [0, 1, -1, 0, 150, 0], text, 'ANA PÉREZ');
    expect(again.data).toBe(first.data); // the same bytes, not made again
    expect(again.dict.get('Matrix')).toEqual([0, 1, -1, 0, 150, 0]); // the placement is the stamp's own
    expect(inflateSync(first.data).toString('latin1')).toBe(stampContent(s, text, 'ANA PÉREZ'));
    const later = qrText({ signerName: 'ANA PÉREZ', signedAt: new Date('2026-11-22T04:55:46Z'), serialNumber: '4F3A' });
    expect(stampAppearance(s, upright, later, 'ANA PÉREZ').data).not.toBe(first.data);
    expect(stampAppearance(stampDimensions('m'), upright, text, 'ANA PÉREZ').data).not.toBe(first.data);
    expect(stampAppearance(s, upright, text, 'LUIS ANDRADE').data).not.toBe(first.data);
  });
});
