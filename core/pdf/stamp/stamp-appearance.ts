/**
 * The visible stamp's appearance stream (PDF 32000-1:2008 §12.5.5 /AP /N, a Form XObject
 * §8.10): a QR code drawn as filled rectangles (§8.5.3.1 `re`/`f`, no image needed) and beside
 * it "Firmado electrónicamente por:" and the signer's name in Helvetica/WinAnsiEncoding
 * (CONTRACT §12; sizes from the service interface's Signature table, 1 px = 1 pt).
 */
import { deflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { SelloError } from '../../errors/index.js';
import { formatNumber, formatString } from '../syntax/object-writer.js';
import { PdfDict, PdfName, PdfStream, PdfString, name } from '../syntax/pdf-objects.js';
import type { Matrix } from './stamp-geometry.js';
import { wrapText } from './winansi.js';

export type StampSize = 's' | 'm' | 'l';

export interface StampDimensions {
  /** Side of the QR square, quiet zone included. */
  qr: number;
  fontSize: number;
  /** Width of the text column beside the QR. */
  textWidth: number;
  gap: number;
  width: number;
  height: number;
}

/** Spec "Signature" table: s = QR 150 + font 9, m = 300 + 11, l = 450 + 15. */
const SIZES: Record<StampSize, { qr: number; fontSize: number }> = {
  s: { qr: 150, fontSize: 9 },
  m: { qr: 300, fontSize: 11 },
  l: { qr: 450, fontSize: 15 },
};

/** The text column is 14 em wide: room for about 28 characters a line. */
const TEXT_EMS = 14;

/**
 * The stamp's box for `size`; throws `invalid_stamp_size` for anything but s, m, l.
 *
 * @example
 *   stampDimensions('s') // { qr: 150, fontSize: 9, textWidth: 126, gap: 4.5, width: 280.5, height: 150 }
 */
export function stampDimensions(size: string): StampDimensions {
  if (size !== 's' && size !== 'm' && size !== 'l') {
    throw new SelloError('invalid_stamp_size', { detail: `El tamaño del sello "${String(size)}" no existe. Use s (QR de 150 pt), m (300 pt) o l (450 pt).` });
  }
  const { qr, fontSize } = SIZES[size];
  const textWidth = TEXT_EMS * fontSize;
  const gap = fontSize / 2;
  return { qr, fontSize, textWidth, gap, width: qr + gap + textWidth, height: qr };
}

export const STAMP_HEADING = 'Firmado electrónicamente por:';

/** QR quiet zone in modules (ISO/IEC 18004 §6.3.8 asks for 4). */
const QUIET = 4;

/**
 * The content stream (§8.2, operators of §8.5 and §9.4) of the stamp, in form space with its
 * origin at the stamp's bottom-left corner.
 */
export function stampContent(dim: StampDimensions, qrText: string, signerName: string): string {
  // One byte-mode segment: the text is a URL, which byte mode holds whole, and the library's
  // search for the cheapest mix of modes costs more than the rest of the QR together.
  const qr = QRCode.create([{ data: Buffer.from(qrText, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
  const n = qr.size;
  const m = dim.qr / (n + 2 * QUIET);
  const ops: string[] = [];
  // White ground under the QR so that it scans over any page content.
  ops.push('q 1 g', `0 0 ${f(dim.qr)} ${f(dim.qr)} re f`, '0 g');
  for (let r = 0; r < n; r++) {
    let c = 0;
    while (c < n) {
      if (!qr.get(r, c)) {
        c++;
        continue;
      }
      const start = c;
      while (c < n && qr.get(r, c)) c++;
      // One rectangle per run of dark modules in a row keeps the stream small.
      const x = (QUIET + start) * m;
      const y = dim.qr - (QUIET + r + 1) * m;
      ops.push(`${f(x)} ${f(y)} ${f((c - start) * m)} ${f(m)} re`);
    }
  }
  ops.push('f Q');

  const lead = dim.fontSize * 1.25;
  const heading = wrapText(STAMP_HEADING, dim.fontSize, dim.textWidth);
  const nameLines = wrapText(signerName, dim.fontSize, dim.textWidth);
  const maxLines = Math.floor(dim.height / lead);
  const lines = [...heading, ...nameLines].slice(0, maxLines);
  const x0 = dim.qr + dim.gap;
  const y0 = dim.height - dim.fontSize * 1.5;
  ops.push('BT', `/F1 ${f(dim.fontSize)} Tf`, `${f(lead)} TL`, `${f(x0)} ${f(y0)} Td`);
  lines.forEach((line, i) => ops.push(`${i === 0 ? '' : 'T* '}${formatString(new PdfString(line))} Tj`));
  ops.push('ET');
  return ops.join('\n');
}

function f(n: number): string {
  return formatNumber(Math.round(n * 1000) / 1000);
}

/**
 * The Form XObject for /AP /N: /BBox is the upright stamp, /Matrix turns it to match the page's
 * /Rotate; the font is the standard Helvetica with /WinAnsiEncoding (§9.6.6.1).
 */
export function stampAppearance(dim: StampDimensions, matrix: Matrix, qrText: string, signerName: string): PdfStream {
  const font = new PdfDict([
    ['Type', name('Font')],
    ['Subtype', name('Type1')],
    ['BaseFont', name('Helvetica')],
    ['Encoding', name('WinAnsiEncoding')],
  ]);
  const dict = new PdfDict([
    ['Type', name('XObject')],
    ['Subtype', name('Form')],
    ['BBox', [0, 0, dim.width, dim.height]],
    ['Matrix', matrix],
    ['Resources', new PdfDict([['Font', new PdfDict([['F1', font]])], ['ProcSet', [name('PDF'), name('Text')]]])],
    ['Filter', new PdfName('FlateDecode')],
  ]);
  return new PdfStream(dict, compressedContent(dim, qrText, signerName));
}

/**
 * The compressed content stream of recent stamps. Files signed together by one signer within
 * the same second (a folder's batch) carry the same stamp, QR included: its QR code (the
 * choice of mask alone is ~0.3 ms), its drawing and its compression are made once.
 */
const recentContents = new Map<string, Buffer>();
const RECENT_CONTENTS = 16;

function compressedContent(dim: StampDimensions, qrText: string, signerName: string): Buffer {
  const key = JSON.stringify([dim.qr, dim.fontSize, dim.textWidth, qrText, signerName]);
  let content = recentContents.get(key);
  if (!content) {
    // Level 1: a stamp's few kilobytes of rectangles compress to within 15 % of level 6's
    // size in a third of the time, paid at every signature.
    content = deflateSync(Buffer.from(stampContent(dim, qrText, signerName), 'latin1'), { level: 1 });
    if (recentContents.size >= RECENT_CONTENTS) recentContents.delete(recentContents.keys().next().value!);
    recentContents.set(key, content);
  }
  return content;
}

