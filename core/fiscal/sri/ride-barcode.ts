/**
 * The access key as a Code 128 barcode drawn with vector rectangles.
 *
 * bwip-js (BWIPP) does the encoding (start code, code set C for digit pairs and the switch for
 * the odd 49th digit, modulo-103 check, stop); we only turn its module widths into filled
 * rectangles. Vectors rather than an embedded image: every bar edge stays exact at whatever
 * resolution a printer or a scanner sees the page (an image gets resampled, and bars of uneven
 * width are what makes Code 128 unreadable), the file stays small and the output deterministic.
 */
import bwipjs from 'bwip-js';
import { rgb, type PDFPage } from 'pdf-lib';

/** Code 128 asks for a quiet zone of at least ten modules on each side (ISO/IEC 15417 §4.3). */
export const QUIET_ZONE_MODULES = 10;

/**
 * The widths in modules of the bars and spaces of `text` as Code 128, alternating and starting
 * with a bar (start code through stop pattern, without quiet zones).
 */
export function code128Widths(text: string): number[] {
  const symbols = bwipjs.raw({ bcid: 'code128', text });
  const first = symbols[0];
  if (!first || !('sbs' in first)) throw new Error('bwip-js did not return a linear symbol for code128');
  return first.sbs;
}

export interface BarcodeBox {
  /** Left edge of the area, quiet zones included. */
  x: number;
  /** Bottom edge of the bars. */
  y: number;
  /** Width of the area, quiet zones included: the bars are scaled to fill it. */
  width: number;
  height: number;
}

/**
 * The grid bars are laid on, in points: 0.72 pt is a whole number of dots at 100, 200, 300 and
 * 600 dpi (1, 2, 3 and 6). A module of a fractional number of dots makes the rasteriser draw
 * some bars a dot wider than others of the same width, and at 200 dpi that left about one key in
 * fifteen unreadable (zbarimg); on the grid every bar of one width comes out the same.
 */
export const BAR_GRID_PT = 0.72;

/**
 * Draws `text` as Code 128 in `box` (its quiet zones inside the box, left white) and returns the
 * module width used, in points: the widest whole number of grid steps that fits, the symbol
 * centred on the grid; only a box too narrow for one step per module gets a fractional module.
 */
export function drawCode128(page: PDFPage, text: string, box: BarcodeBox): number {
  const widths = code128Widths(text);
  const modules = widths.reduce((a, b) => a + b, 0) + 2 * QUIET_ZONE_MODULES;
  const steps = Math.floor(box.width / modules / BAR_GRID_PT);
  const module = steps >= 1 ? steps * BAR_GRID_PT : box.width / modules;
  const left = box.x + (box.width - modules * module) / 2;
  let x = (steps >= 1 ? Math.round(left / BAR_GRID_PT) * BAR_GRID_PT : left) + QUIET_ZONE_MODULES * module;
  const black = rgb(0, 0, 0);
  widths.forEach((w, i) => {
    if (i % 2 === 0) page.drawRectangle({ x, y: box.y, width: w * module, height: box.height, color: black });
    x += w * module;
  });
  return module;
}
