/**
 * Decoding the streams the signer has to read: object streams (§7.5.7) and cross-reference
 * streams (§7.5.8). In practice these use FlateDecode (§7.4.4), for xref streams usually with
 * a PNG predictor (§7.4.4.4, Table 8). Content streams are never decoded.
 *
 * Inflation stops at the smallest of the per-stream limit, the ratio limit and what is left of
 * the document's allowance (`ReadBudget.inflateCap`): zlib itself refuses to produce more, so a
 * bomb costs its cap, not its claim. Predictor parameters are checked before anything is sized
 * from them.
 */
import { inflateSync, constants } from 'node:zlib';
import type { PdfStream } from './pdf-objects.js';
import { PdfDict, PdfName, type PdfObject } from './pdf-objects.js';
import { PdfSyntaxError } from './object-parser.js';
import { PDF_LIMITS, ReadBudget, isBitsPerComponent, tooComplex } from './limits.js';

/**
 * Returns the decoded data of `stream`, or throws PdfSyntaxError for a filter it can't undo or
 * parameters that don't fit the data, `pdf_too_complex` past the inflation limits.
 */
export function decodeStream(stream: PdfStream, budget: ReadBudget = new ReadBudget(stream.data.length)): Buffer {
  const filters = asList(stream.dict.get('Filter'));
  const parms = asList(stream.dict.get('DecodeParms') ?? stream.dict.get('DP'));
  let data = stream.data;
  filters.forEach((f, i) => {
    const fname = f instanceof PdfName ? f.name : '';
    const p = parms[i];
    if (fname === 'FlateDecode' || fname === 'Fl') {
      data = inflate(data, budget);
      if (p instanceof PdfDict) data = unpredict(data, p);
    } else {
      throw new PdfSyntaxError(`filtro no soportado ${fname}`, 0);
    }
  });
  return data;
}

function asList(v: PdfObject | undefined): PdfObject[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** Inflates within the budget's cap, tolerating a truncated or checksum-less tail as many readers do. */
function inflate(data: Buffer, budget: ReadBudget): Buffer {
  const maxOutputLength = budget.inflateCap(data.length);
  let out: Buffer;
  try {
    out = inflateSync(data, { maxOutputLength });
  } catch (err) {
    if (isTooLarge(err)) throw tooComplex('un stream comprimido se expande más de lo permitido');
    try {
      out = inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength });
    } catch (err2) {
      if (isTooLarge(err2)) throw tooComplex('un stream comprimido se expande más de lo permitido');
      throw new PdfSyntaxError('stream FlateDecode ilegible', 0);
    }
  }
  budget.inflate(out.length);
  return out;
}

/** zlib's refusal to go past `maxOutputLength` (Node: RangeError ERR_BUFFER_TOO_LARGE). */
function isTooLarge(err: unknown): boolean {
  return err instanceof RangeError && (err as RangeError & { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
}

/** §7.4.4.4: PNG predictors (10–15, a tag byte per row) and TIFF predictor 2. */
function unpredict(data: Buffer, parms: PdfDict): Buffer {
  const predictor = num(parms.get('Predictor'), 1);
  if (predictor === 1) return data;
  const colors = num(parms.get('Colors'), 1);
  const bpc = num(parms.get('BitsPerComponent'), 8);
  const columns = num(parms.get('Columns'), 1);
  // Table 8's ranges, and a row no longer than the data it is part of: nothing below is then
  // larger than the (already bounded) inflated data.
  if (!Number.isInteger(colors) || colors < 1 || colors > PDF_LIMITS.maxPredictorColors) throw new PdfSyntaxError(`/Colors inválido (${colors})`, 0);
  if (!isBitsPerComponent(bpc)) throw new PdfSyntaxError(`/BitsPerComponent inválido (${bpc})`, 0);
  if (!Number.isSafeInteger(columns) || columns < 1) throw new PdfSyntaxError(`/Columns inválido (${columns})`, 0);
  if (data.length === 0) return data;
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLen = Math.ceil((colors * bpc * columns) / 8);
  if (rowLen > data.length) throw new PdfSyntaxError(`/Columns ${columns} no corresponde a ${data.length} bytes de datos`, 0);
  if (predictor === 2) {
    if (bpc !== 8) throw new PdfSyntaxError('predictor TIFF no soportado', 0);
    const out = Buffer.from(data);
    for (let r = 0; r < out.length; r += rowLen) {
      for (let i = bpp; i < rowLen && r + i < out.length; i++) out[r + i] = (out[r + i]! + out[r + i - bpp]!) & 0xff;
    }
    return out;
  }
  const rows = Math.floor(data.length / (rowLen + 1));
  const out = Buffer.alloc(rows * rowLen);
  let prev = Buffer.alloc(rowLen);
  for (let r = 0; r < rows; r++) {
    const tag = data[r * (rowLen + 1)]!;
    const src = data.subarray(r * (rowLen + 1) + 1, (r + 1) * (rowLen + 1));
    const cur = out.subarray(r * rowLen, (r + 1) * rowLen);
    for (let i = 0; i < rowLen; i++) {
      const left = i >= bpp ? cur[i - bpp]! : 0;
      const up = prev[i]!;
      const upLeft = i >= bpp ? prev[i - bpp]! : 0;
      let v = src[i]!;
      switch (tag) {
        case 0: break;
        case 1: v += left; break;
        case 2: v += up; break;
        case 3: v += (left + up) >> 1; break;
        case 4: {
          const pa = Math.abs(up - upLeft);
          const pb = Math.abs(left - upLeft);
          const pc = Math.abs(left + up - 2 * upLeft);
          v += pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
          break;
        }
        default:
          throw new PdfSyntaxError(`predictor PNG desconocido ${tag}`, 0);
      }
      cur[i] = v & 0xff;
    }
    prev = cur;
  }
  return out;
}

function num(v: PdfObject | undefined, dflt: number): number {
  return typeof v === 'number' ? v : dflt;
}
