/**
 * A small layout kit for the RIDE on pdf-lib: blocks of text measured before they are drawn,
 * table rows with wrapped cells, and a page flow that starts new A4 pages (with their repeated
 * headers) when rows run out of room. Everything is measured first, so boxes can share a height
 * and rows can move whole to the next page.
 */
import { rgb, type PDFDocument, type PDFFont, type PDFPage } from 'pdf-lib';
import { toPrintable, wrapText, fittingSize } from './ride-text.js';

/** A4 in points (210 × 297 mm). */
export const PAGE_SIZE: [number, number] = [595.28, 841.89];
export const MARGIN = 28;
export const CONTENT_WIDTH = PAGE_SIZE[0] - 2 * MARGIN;
/** Room kept at the bottom of every page for "Página i de n". */
export const FOOTER_HEIGHT = 18;

const BLACK = rgb(0, 0, 0);
const HEADER_FILL = rgb(0.9, 0.9, 0.9);
const RULE = 0.6;
const CELL_PAD_X = 3;
const CELL_PAD_Y = 2.5;

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

export type Align = 'left' | 'center' | 'right';

export function lineHeight(size: number): number {
  return size * 1.22;
}

/** One line of printable text whose line box starts at `top` (room above for accented capitals). */
export function drawLine(page: PDFPage, text: string, font: PDFFont, size: number, x: number, top: number, width: number, align: Align = 'left'): void {
  const printable = toPrintable(text, font);
  const w = font.widthOfTextAtSize(printable, size);
  const dx = align === 'right' ? width - w : align === 'center' ? (width - w) / 2 : 0;
  page.drawText(printable, { x: x + dx, y: top - size * 0.95, size, font, color: BLACK });
}

/** A rectangle's outline, given by its top-left corner. */
export function drawFrame(page: PDFPage, x: number, top: number, width: number, height: number, fill = false): void {
  page.drawRectangle({
    x,
    y: top - height,
    width,
    height,
    borderColor: BLACK,
    borderWidth: RULE,
    ...(fill ? { color: HEADER_FILL } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Blocks: a column of items measured at a width, then drawn at a position.

export type BlockItem =
  /** A paragraph; `fit` shrinks it (down to 6 pt) to stay on one line before wrapping. */
  | { kind: 'text'; text: string; bold?: boolean; size: number; align?: Align; fit?: boolean; gap?: number }
  /** "Label: value", the label in bold in its own column, the value wrapped beside it. */
  | { kind: 'field'; label: string; value: string; size: number; labelWidth: number; gap?: number }
  /** Two items side by side, the left one taking `leftShare` of the width. */
  | { kind: 'pair'; left: BlockItem; right: BlockItem | null; leftShare: number; gap?: number }
  /** Anything else of a known height (the barcode). */
  | { kind: 'drawing'; height: number; gap?: number; draw: (page: PDFPage, x: number, top: number, width: number) => void };

export interface Laid {
  height: number;
  draw(page: PDFPage, x: number, top: number): void;
}

const PAIR_GAP = 8;

function layoutItem(item: BlockItem, width: number, fonts: Fonts): Laid {
  switch (item.kind) {
    case 'text': {
      const font = item.bold ? fonts.bold : fonts.regular;
      const size = item.fit ? fittingSize(item.text, font, item.size, width, 6) : item.size;
      const lines = wrapText(item.text, font, size, width);
      const lh = lineHeight(size);
      return {
        height: lines.length * lh,
        draw: (page, x, top) => lines.forEach((l, i) => drawLine(page, l, font, size, x, top - i * lh, width, item.align)),
      };
    }
    case 'field': {
      const lh = lineHeight(item.size);
      const labelLines = wrapText(item.label, fonts.bold, item.size, item.labelWidth - 4);
      const valueWidth = width - item.labelWidth;
      const valueLines = wrapText(item.value, fonts.regular, item.size, valueWidth);
      return {
        height: Math.max(labelLines.length, valueLines.length) * lh,
        draw: (page, x, top) => {
          labelLines.forEach((l, i) => drawLine(page, l, fonts.bold, item.size, x, top - i * lh, item.labelWidth));
          valueLines.forEach((l, i) => drawLine(page, l, fonts.regular, item.size, x + item.labelWidth, top - i * lh, valueWidth));
        },
      };
    }
    case 'pair': {
      const leftWidth = (width - PAIR_GAP) * item.leftShare;
      const rightWidth = width - PAIR_GAP - leftWidth;
      const left = layoutItem(item.left, leftWidth, fonts);
      const right = item.right ? layoutItem(item.right, rightWidth, fonts) : null;
      return {
        height: Math.max(left.height, right?.height ?? 0),
        draw: (page, x, top) => {
          left.draw(page, x, top);
          right?.draw(page, x + leftWidth + PAIR_GAP, top);
        },
      };
    }
    case 'drawing':
      return { height: item.height, draw: (page, x, top) => item.draw(page, x, top, width) };
  }
}

/** A column of items at `width`, each after its `gap` (default 2 pt; none before the first). */
export function layoutBlock(items: readonly BlockItem[], width: number, fonts: Fonts): Laid {
  const laid = items.map((item, i) => ({ gap: i === 0 ? 0 : (item.gap ?? 2), laid: layoutItem(item, width, fonts) }));
  return {
    height: laid.reduce((h, l) => h + l.gap + l.laid.height, 0),
    draw: (page, x, top) => {
      let y = top;
      for (const l of laid) {
        y -= l.gap;
        l.laid.draw(page, x, y);
        y -= l.laid.height;
      }
    },
  };
}

/** A block inside a frame with `pad` points of room on every side; `withHeight` stretches the frame (boxes side by side). */
export function boxed(block: (innerWidth: number) => Laid, width: number, pad: number): Laid & { withHeight(h: number): Laid } {
  const inner = block(width - 2 * pad);
  const make = (height: number): Laid => ({
    height,
    draw: (page, x, top) => {
      drawFrame(page, x, top, width, height);
      inner.draw(page, x + pad, top - pad);
    },
  });
  return { ...make(inner.height + 2 * pad), withHeight: (h) => make(Math.max(h, inner.height + 2 * pad)) };
}

// ---------------------------------------------------------------------------------------------
// Tables: rows of framed cells whose text wraps inside its column.

export interface Column {
  width: number;
  align: Align;
}

export interface Cell {
  text: string;
  bold?: boolean;
  /** Grey background (header rows). */
  fill?: boolean;
  /** Columns this cell spans (default 1). */
  span?: number;
  align?: Align;
}

interface LaidCell {
  dx: number;
  width: number;
  lines: string[];
  font: PDFFont;
  align: Align;
  fill: boolean;
}

export interface Row {
  height: number;
  size: number;
  cells: LaidCell[];
}

function rowHeight(cells: readonly LaidCell[], size: number): number {
  return Math.max(1, ...cells.map((c) => c.lines.length)) * lineHeight(size) + 2 * CELL_PAD_Y;
}

/** Measures a row of `cells` over `columns` at `size` points. */
export function layoutRow(cells: readonly Cell[], columns: readonly Column[], fonts: Fonts, size: number): Row {
  const laid: LaidCell[] = [];
  let col = 0;
  let dx = 0;
  for (const cell of cells) {
    const span = cell.span ?? 1;
    const cols = columns.slice(col, col + span);
    const width = cols.reduce((w, c) => w + c.width, 0);
    const font = cell.bold ? fonts.bold : fonts.regular;
    laid.push({
      dx,
      width,
      lines: wrapText(cell.text, font, size, width - 2 * CELL_PAD_X),
      font,
      align: cell.align ?? cols[0]?.align ?? 'left',
      fill: cell.fill ?? false,
    });
    col += span;
    dx += width;
  }
  return { height: rowHeight(laid, size), size, cells: laid };
}

export function drawRow(page: PDFPage, row: Row, x: number, top: number): void {
  const lh = lineHeight(row.size);
  for (const c of row.cells) {
    drawFrame(page, x + c.dx, top, c.width, row.height, c.fill);
    c.lines.forEach((l, i) =>
      drawLine(page, l, c.font, row.size, x + c.dx + CELL_PAD_X, top - CELL_PAD_Y - i * lh, c.width - 2 * CELL_PAD_X, c.align),
    );
  }
}

/** Cuts `row` after the lines that fit `height`: [head, rest], or null when not one line fits. */
export function splitRow(row: Row, height: number): [Row, Row] | null {
  const n = Math.floor((height - 2 * CELL_PAD_Y) / lineHeight(row.size));
  if (n < 1) return null;
  const head = row.cells.map((c) => ({ ...c, lines: c.lines.slice(0, n) }));
  const rest = row.cells.map((c) => ({ ...c, lines: c.lines.slice(n) }));
  return [
    { size: row.size, cells: head, height: rowHeight(head, row.size) },
    { size: row.size, cells: rest, height: rowHeight(rest, row.size) },
  ];
}

// ---------------------------------------------------------------------------------------------
// Pages.

/**
 * The pages of the document and a cursor `y` (top of what comes next) on the last one.
 * `onNewPage` draws what a continuation page starts with (a short header, the table header).
 */
export class PageFlow {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  y = 0;
  onNewPage: (flow: PageFlow) => void = () => {};
  /** `y` right after the last page's own header: nothing flowed onto it yet when `y` is here. */
  private pageStart = 0;

  constructor(private readonly doc: PDFDocument) {}

  get remaining(): number {
    return this.y - (MARGIN + FOOTER_HEIGHT);
  }

  addPage(): void {
    this.page = this.doc.addPage(PAGE_SIZE);
    this.pages.push(this.page);
    this.y = PAGE_SIZE[1] - MARGIN;
    this.onNewPage(this);
    this.pageStart = this.y;
  }

  /** Starts a new page unless `height` fits on this one. */
  ensure(height: number): void {
    if (this.remaining < height) this.addPage();
  }

  /**
   * Draws `rows` at `x` one under the other: a row that does not fit goes whole to a new page,
   * and only a row taller than a whole page is cut across pages.
   */
  flowRows(rows: readonly Row[], x: number): void {
    for (const first of rows) {
      let row: Row = first;
      for (;;) {
        if (row.height <= this.remaining) {
          drawRow(this.page, row, x, this.y);
          this.y -= row.height;
          break;
        }
        const fresh = this.y === this.pageStart;
        if (!fresh) {
          this.addPage();
          continue;
        }
        const parts = splitRow(row, this.remaining);
        if (!parts) {
          // Not one line fits an empty page: nothing better than drawing it anyway.
          drawRow(this.page, row, x, this.y);
          this.y -= row.height;
          break;
        }
        drawRow(this.page, parts[0], x, this.y);
        this.addPage();
        row = parts[1];
      }
    }
  }
}
