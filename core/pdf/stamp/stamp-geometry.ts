/**
 * Where the stamp goes. Callers give `x`, `y` in points from the top-left corner of the crop
 * box as the page is displayed (CONTRACT §12), so /Rotate (PDF 32000-1:2008 §7.7.3.3, clockwise)
 * has to be undone: the widget's /Rect is in unrotated default user space (§12.5.2), and the
 * appearance gets a /Matrix that turns it so it reads upright (§12.5.5, §8.10.1 Form XObjects).
 */
import { SelloError } from '../../errors/index.js';
import type { Box } from '../syntax/page-tree.js';

export type Matrix = [number, number, number, number, number, number];

export interface StampPlacement {
  /** The widget annotation's /Rect, in default user space. */
  rect: Box;
  /** The appearance stream's /Matrix: form space (upright, BBox [0 0 w h]) → user space orientation. */
  matrix: Matrix;
}

/** Displayed width and height of a page: rotated by 90 or 270 they swap. */
export function displayedSize(cropBox: Box, rotate: number): { width: number; height: number } {
  const w = cropBox[2] - cropBox[0];
  const h = cropBox[3] - cropBox[1];
  return rotate === 90 || rotate === 270 ? { width: h, height: w } : { width: w, height: h };
}

/**
 * Maps a displayed point (from the top-left of the crop box, y down) to default user space.
 * /Rotate 90 shows the page turned clockwise: its displayed top-left is the user-space
 * bottom-left corner, and so on round the box.
 */
export function displayedToUser(cropBox: Box, rotate: number, dx: number, dy: number): [number, number] {
  const [llx, lly, urx, ury] = cropBox;
  switch (rotate) {
    case 90:
      return [llx + dy, lly + dx];
    case 180:
      return [urx - dx, lly + dy];
    case 270:
      return [urx - dy, ury - dx];
    default:
      return [llx + dx, ury - dy];
  }
}

/** Rotation of the appearance so that, once the page is rotated for display, it reads upright. */
export function appearanceMatrix(rotate: number): Matrix {
  switch (rotate) {
    case 90:
      return [0, 1, -1, 0, 0, 0];
    case 180:
      return [-1, 0, 0, -1, 0, 0];
    case 270:
      return [0, -1, 1, 0, 0, 0];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

const EPSILON = 0.01;

/**
 * Places a `width` × `height` stamp at displayed (`x`, `y`). Throws `stamp_outside_page` unless
 * it lies entirely inside the crop box.
 *
 * @example
 *   placeStamp([0, 0, 612, 792], 90, 10, 10, 280, 150)
 *   // → { rect: [10, 10, 160, 290], matrix: [0, 1, -1, 0, 0, 0] }
 */
export function placeStamp(cropBox: Box, rotate: number, x: number, y: number, width: number, height: number): StampPlacement {
  const page = displayedSize(cropBox, rotate);
  if (!Number.isFinite(x) || !Number.isFinite(y) || x < -EPSILON || y < -EPSILON || x + width > page.width + EPSILON || y + height > page.height + EPSILON) {
    throw new SelloError('stamp_outside_page', {
      detail: `El sello de ${fmt(width)}×${fmt(height)} pt en x=${fmt(x)}, y=${fmt(y)} no cabe en la página visible de ${fmt(page.width)}×${fmt(page.height)} pt. Use x entre 0 y ${fmt(Math.max(0, page.width - width))} e y entre 0 y ${fmt(Math.max(0, page.height - height))}, o un tamaño menor.`,
    });
  }
  const a = displayedToUser(cropBox, rotate, x, y);
  const b = displayedToUser(cropBox, rotate, x + width, y + height);
  const rect: Box = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
  return { rect, matrix: appearanceMatrix(rotate) };
}

function fmt(n: number): string {
  return String(Math.round(n * 100) / 100);
}
