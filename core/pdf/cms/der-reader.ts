/**
 * A minimal ASN.1 BER/DER reader (ITU-T X.690 §8.1) that gives byte positions, not copies.
 * Verification needs the exact bytes of the signed attributes as they were signed
 * (RFC 5652 §5.4), which a decode/re-encode round trip (node-forge) can't promise for
 * non-DER input; so the CMS is walked here and node:crypto does the cryptography.
 */

export interface Tlv {
  /** The identifier octet (tag class, constructed bit, number ≤ 30). */
  tag: number;
  start: number;
  /** Where the contents start. */
  contentStart: number;
  /** Where the contents end (before the end-of-contents octets of an indefinite length). */
  contentEnd: number;
  /** Where the whole element ends. */
  end: number;
}

export class DerError extends Error {}

/** Reads the element at `pos` (X.690 §8.1.2–8.1.5), accepting BER indefinite lengths. */
export function readTlv(buf: Buffer, pos: number, limit = buf.length): Tlv {
  if (pos + 2 > limit) throw new DerError('ASN.1 truncado');
  const tag = buf[pos]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('etiqueta ASN.1 de varios bytes no soportada');
  let p = pos + 1;
  const first = buf[p++]!;
  if (first === 0x80) {
    if (!(tag & 0x20)) throw new DerError('longitud indefinida en un tipo primitivo');
    let q = p;
    while (q + 2 <= limit && !(buf[q] === 0 && buf[q + 1] === 0)) q = readTlv(buf, q, limit).end;
    if (q + 2 > limit) throw new DerError('ASN.1 indefinido sin fin');
    return { tag, start: pos, contentStart: p, contentEnd: q, end: q + 2 };
  }
  let len = first;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n > 4) throw new DerError('longitud ASN.1 demasiado grande');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p++]!;
  }
  if (p + len > limit) throw new DerError('ASN.1 truncado');
  return { tag, start: pos, contentStart: p, contentEnd: p + len, end: p + len };
}

/** The elements inside a constructed element. */
export function childrenOf(buf: Buffer, tlv: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let p = tlv.contentStart; p < tlv.contentEnd; ) {
    const c = readTlv(buf, p, tlv.contentEnd);
    out.push(c);
    p = c.end;
  }
  return out;
}

/** The contents bytes of a primitive element (a view). */
export function contentOf(buf: Buffer, tlv: Tlv): Buffer {
  return buf.subarray(tlv.contentStart, tlv.contentEnd);
}

/** The contents of an OCTET STRING, joining the segments of a constructed (BER) one. */
export function octetsOf(buf: Buffer, tlv: Tlv): Buffer {
  if (tlv.tag === 0x24) return Buffer.concat(childrenOf(buf, tlv).map((c) => octetsOf(buf, c)));
  return contentOf(buf, tlv);
}

/** X.690 §8.19: dotted text of an OBJECT IDENTIFIER. */
export function oidOf(buf: Buffer, tlv: Tlv): string {
  if (tlv.tag !== 0x06) throw new DerError('se esperaba un OID');
  const b = contentOf(buf, tlv);
  const parts: number[] = [];
  let v = 0;
  for (const byte of b) {
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      if (parts.length === 0) parts.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
      else parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}
