/**
 * The RIDE's Code 128 is drawn on a grid of whole printer dots (ride-barcode.ts, BAR_GRID_PT):
 * every bar's edges and widths are multiples of 0.72 pt, inside the box with its quiet zones.
 * Three access keys that rasterised unreadably at 200 dpi with fractional modules are decoded by
 * zbarimg from pdftoppm's image.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PDFPage } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { BAR_GRID_PT, code128Widths, drawCode128, QUIET_ZONE_MODULES } from '../../../core/fiscal/sri/ride-barcode.js';
import { renderRide } from '../../../core/fiscal/sri/ride.js';
import { sampleAuthorization, sampleInvoice, sampleIssuer } from '../../helpers/sri-invoices.js';

const KEYS = ['2511202601179001234400110010010000004854955228311', '2511202601179001234400110010010000002771155249914', '2511202601179001234400110010010000001172225410217'];
const onGrid = (v: number) => Math.abs(v / BAR_GRID_PT - Math.round(v / BAR_GRID_PT)) < 1e-6;

describe('drawCode128', () => {
  it('lays every bar on the 0.72 pt grid, inside the box, quiet zones kept', () => {
    const rects: Array<{ x: number; width: number }> = [];
    const page = { drawRectangle: (r: { x: number; width: number }) => rects.push(r) } as unknown as PDFPage;
    const box = { x: 333.37, y: 700, width: 261.3, height: 40 };
    const module = drawCode128(page, KEYS[0]!, box);
    expect(onGrid(module)).toBe(true);
    expect(rects.length).toBeGreaterThan(20);
    for (const r of rects) {
      expect(onGrid(r.x), String(r.x)).toBe(true);
      expect(onGrid(r.width), String(r.width)).toBe(true);
    }
    expect(rects[0]!.x).toBeGreaterThanOrEqual(box.x + QUIET_ZONE_MODULES * module - 1e-6);
    const last = rects[rects.length - 1]!;
    expect(last.x + last.width).toBeLessThanOrEqual(box.x + box.width - QUIET_ZONE_MODULES * module + 1e-6);
    expect(code128Widths(KEYS[0]!).reduce((a, b) => a + b, 0) * module).toBeCloseTo(last.x + last.width - rects[0]!.x, 6);
  });

  it('reads back from the RIDE at 200 dpi for keys that fractional modules made unreadable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-barcode-'));
    try {
      for (const key of KEYS) {
        const numbering = { ambiente: 1 as const, secuencial: key.slice(30, 39), numero: `001-001-${key.slice(30, 39)}`, accessKey: key };
        const pdf = await renderRide({ kind: 'invoice', issuer: sampleIssuer({ ruc: key.slice(10, 23) }), document: { ...sampleInvoice(2), issueDate: '2026-11-25' }, numbering, authorization: sampleAuthorization(numbering), environment: 'PRUEBAS', emission: 'NORMAL' });
        const file = path.join(dir, `${key}.pdf`);
        fs.writeFileSync(file, pdf);
        execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', file, path.join(dir, key)]);
        const png = fs.readdirSync(dir).find((f) => f.startsWith(key) && f.endsWith('.png'))!;
        expect(execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' }).trim()).toBe(key);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
