import { describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { appearanceMatrix, displayedSize, displayedToUser, placeStamp } from '../../../core/pdf/stamp/stamp-geometry.js';
import { stampDimensions } from '../../../core/pdf/stamp/stamp-appearance.js';
import type { Box } from '../../../core/pdf/syntax/page-tree.js';

const crop: Box = [30, 50, 580, 760]; // 550 × 710

/** Displayed direction of a user-space vector: the inverse of /Rotate (clockwise when displayed). */
function userToDisplayedVector(rotate: number, [x, y]: [number, number]): [number, number] {
  const a = displayedToUser(crop, rotate, 0, 0);
  // Solve by probing: displayed unit vectors map to user vectors; invert the 2×2.
  const ex = displayedToUser(crop, rotate, 1, 0).map((v, i) => v - a[i]!) as [number, number];
  const ey = displayedToUser(crop, rotate, 0, 1).map((v, i) => v - a[i]!) as [number, number];
  const det = ex[0] * ey[1] - ex[1] * ey[0];
  return [(x * ey[1] - y * ey[0]) / det, (ex[0] * y - ex[1] * x) / det];
}

describe('placeStamp', () => {
  it('swaps displayed width and height for /Rotate 90 and 270', () => {
    expect(displayedSize(crop, 0)).toEqual({ width: 550, height: 710 });
    expect(displayedSize(crop, 90)).toEqual({ width: 710, height: 550 });
    expect(displayedSize(crop, 270)).toEqual({ width: 710, height: 550 });
  });

  it('puts the displayed top-left corner where each rotation shows it', () => {
    expect(displayedToUser(crop, 0, 0, 0)).toEqual([30, 760]);
    expect(displayedToUser(crop, 90, 0, 0)).toEqual([30, 50]);
    expect(displayedToUser(crop, 180, 0, 0)).toEqual([580, 50]);
    expect(displayedToUser(crop, 270, 0, 0)).toEqual([580, 760]);
  });

  it('gives an unrotated page the obvious rectangle', () => {
    expect(placeStamp(crop, 0, 10, 20, 100, 50)).toEqual({ rect: [40, 690, 140, 740], matrix: [1, 0, 0, 1, 0, 0] });
  });

  for (const rotate of [0, 90, 180, 270]) {
    it(`makes the appearance read upright on a /Rotate ${rotate} page`, () => {
      const { rect, matrix } = placeStamp(crop, rotate, 10, 20, 100, 50);
      // The rect's size in user space is the stamp turned with the page.
      const w = rect[2] - rect[0];
      const h = rect[3] - rect[1];
      expect(rotate % 180 === 0 ? [w, h] : [h, w]).toEqual([100, 50]);
      // Form x axis → user space via /Matrix → displayed: must be displayed +x (left to right);
      // form y axis must be displayed "up" (negative y in top-down displayed coordinates).
      const fx = userToDisplayedVector(rotate, [matrix[0], matrix[1]]);
      const fy = userToDisplayedVector(rotate, [matrix[2], matrix[3]]);
      expect(fx.map((v) => Math.round(v) + 0)).toEqual([1, 0]);
      expect(fy.map((v) => Math.round(v) + 0)).toEqual([0, -1]);
    });
  }

  it('refuses a stamp not entirely inside the displayed crop box', () => {
    const dim = stampDimensions('s');
    expect(() => placeStamp(crop, 90, 710 - dim.width + 1, 0, dim.width, dim.height)).toThrow(SelloError);
    expect(() => placeStamp(crop, 90, 710 - dim.width, 550 - dim.height, dim.width, dim.height)).not.toThrow();
    expect(() => placeStamp(crop, 0, 0, -0.5, 10, 10)).toThrow(/no cabe/);
  });

  it('knows the three sizes of the spec and nothing else', () => {
    expect([stampDimensions('s').qr, stampDimensions('m').qr, stampDimensions('l').qr]).toEqual([150, 300, 450]);
    expect([stampDimensions('s').fontSize, stampDimensions('m').fontSize, stampDimensions('l').fontSize]).toEqual([9, 11, 15]);
    expect(() => stampDimensions('xl')).toThrow(expect.objectContaining({ code: 'invalid_stamp_size' }));
  });

  it('uses the matrix for each rotation', () => {
    expect(appearanceMatrix(90)).toEqual([0, 1, -1, 0, 0, 0]);
  });
});
