/**
 * Decoding the streams the signer has to read: object streams (§7.5.7) and cross-reference
 * streams (§7.5.8). In practice these use FlateDecode (§7.4.4), for xref streams usually with
 * a PNG predictor (§7.4.4.4, Table 8). Content streams are never decoded.
 */
import { inflateSync, constants } from 'node:zlib';
import type { PdfStream} from './pdf-objects.js';
import { PdfDict, PdfName, type PdfObject } from './pdf-objects.js';
import { PdfSyntaxError } from './object-parser.js';

/** Returns the decoded data of `stream`, or throws PdfSyntaxError for a filter it can't undo. */
export function decodeStream(stream: PdfStream): Buffer {
  const filters = asList(stream.dict.get('Filter'));
  const parms = asList(stream.dict.get('DecodeParms') ?? stream.dict.get('DP'));
  let data = stream.data;
  filters.forEach((f, i) => {
    const fname = f instanceof PdfName ? f.name : '';
    const p = parms[i];
    if (fname === 'FlateDecode' || fname === 'Fl') {
      data = inflate(data);
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

/** Inflates, tolerating a truncated or checksum-less tail as many readers do. */
function inflate(data: Buffer): Buffer {
  try {
    return inflateSync(data);
  } catch {
    try {
      return inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      throw new PdfSyntaxError('stream FlateDecode ilegible', 0);
    }
  }
}

/** §7.4.4.4: PNG predictors (10–15, a tag byte per row) and TIFF predictor 2. */
function unpredict(data: Buffer, parms: PdfDict): Buffer {
  const predictor = num(parms.get('Predictor'), 1);
  if (predictor === 1) return data;
  const colors = num(parms.get('Colors'), 1);
  const bpc = num(parms.get('BitsPerComponent'), 8);
  const columns = num(parms.get('Columns'), 1);
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLen = Math.ceil((colors * bpc * columns) / 8);
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
