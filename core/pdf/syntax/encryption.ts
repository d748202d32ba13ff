/**
 * Telling how a PDF is encrypted (PDF 32000-1:2008 §7.6, ISO 32000-2 §7.6.4 for AES-256).
 *
 * - `user`: a password is needed to open the file: it can't be read, so it can't be signed.
 * - `owner`: the user password is empty (anyone can open it) and only permissions are
 *   restricted. Sello refuses these too, for now: signing them would need every new string
 *   and stream encrypted with the document key (§7.6.2), and a refusal with a clear message
 *   is safer than a half-encrypted update.
 *
 * Only the standard security handler (§7.6.3) can be checked; any other handler is `user`.
 */
import { createCipheriv, createHash } from 'node:crypto';
import { SelloError } from '../../errors/index.js';
import type { PdfDocument } from './pdf-document.js';
import { PdfString, type PdfDict } from './pdf-objects.js';

export type EncryptionKind = 'none' | 'owner' | 'user';

/** §7.6.3.3 Algorithm 2 step a: the padding string. */
const PAD = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');

/**
 * Classifies the document's encryption by trying the empty user password.
 *
 * @example
 *   encryptionOf(doc) // 'none' for a plain file, 'owner' for `qpdf --encrypt '' secret 256`
 */
export function encryptionOf(doc: PdfDocument): EncryptionKind {
  if (!doc.trailer.has('Encrypt')) return 'none';
  const enc = doc.dict(doc.trailer.get('Encrypt'));
  if (!enc) return 'user';
  if (enc.name('Filter') !== 'Standard') return 'user';
  try {
    return emptyUserPasswordWorks(doc, enc) ? 'owner' : 'user';
  } catch {
    return 'user';
  }
}

/** The `pdf_encrypted` error for `kind`, with what the user can do about it. */
export function encryptedError(kind: Exclude<EncryptionKind, 'none'>, cause?: unknown): SelloError {
  return new SelloError('pdf_encrypted', {
    detail:
      kind === 'user'
        ? 'El PDF está protegido con contraseña de apertura. Guarde una copia sin contraseña (o imprímala a PDF) y fírmela.'
        : 'El PDF tiene restricciones de permisos (contraseña de propietario) y Sello aún no firma archivos cifrados. Guarde una copia sin protección y fírmela.',
    meta: { encryption: kind },
    ...(cause ? { cause } : {}),
  });
}

/**
 * Runs `read` on an encrypted document's structure: what fails there (encrypted object
 * streams can't be decoded without the key) is reported as `pdf_encrypted`, not as damage.
 */
export function readEncrypted<T>(kind: EncryptionKind, read: () => T): T {
  if (kind === 'none') return read();
  try {
    return read();
  } catch (err) {
    if (err instanceof SelloError && err.code !== 'pdf_damaged' && err.code !== 'pdf_invalid') throw err;
    throw encryptedError(kind, err);
  }
}

function bytes(doc: PdfDocument, d: PdfDict, key: string): Buffer {
  const v = doc.resolve(d.get(key));
  return v instanceof PdfString ? v.bytes : Buffer.alloc(0);
}

function emptyUserPasswordWorks(doc: PdfDocument, enc: PdfDict): boolean {
  const r = doc.number(enc.get('R')) ?? 0;
  const u = bytes(doc, enc, 'U');
  if (r >= 5) {
    // ISO 32000-2 Algorithm 11: hash(password ‖ validation salt) equals U[0..32].
    const salt = u.subarray(32, 40);
    const hash = r === 5 ? createHash('sha256').update(salt).digest() : hash2B(Buffer.alloc(0), salt, Buffer.alloc(0));
    return hash.equals(u.subarray(0, 32));
  }
  const o = bytes(doc, enc, 'O');
  const p = doc.number(enc.get('P')) ?? 0;
  const length = r === 2 ? 5 : (doc.number(enc.get('Length')) ?? 40) / 8;
  const ids = doc.array(doc.trailer.get('ID'));
  const id0 = ids && ids[0] instanceof PdfString ? ids[0].bytes : Buffer.alloc(0);
  // Algorithm 2: the file key from the (empty) password.
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(p | 0);
  const md5 = createHash('md5').update(PAD).update(o).update(pBytes).update(id0);
  if (r >= 4 && doc.resolve(enc.get('EncryptMetadata')) === false) md5.update(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  let key = md5.digest();
  if (r >= 3) for (let i = 0; i < 50; i++) key = createHash('md5').update(key.subarray(0, length)).digest();
  key = key.subarray(0, length);
  if (r === 2) return rc4(key, PAD).equals(u.subarray(0, 32)); // Algorithm 4
  // Algorithm 5.
  let x = rc4(key, createHash('md5').update(PAD).update(id0).digest());
  for (let i = 1; i <= 19; i++) x = rc4(Buffer.from(key.map((b) => b ^ i)), x);
  return x.equals(u.subarray(0, 16));
}

/** ISO 32000-2 Algorithm 2.B (R6). */
function hash2B(password: Buffer, salt: Buffer, udata: Buffer): Buffer {
  let k = createHash('sha256').update(password).update(salt).update(udata).digest();
  for (let i = 0; ; i++) {
    const k1 = Buffer.concat(Array(64).fill(Buffer.concat([password, k, udata])) as Buffer[]);
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    cipher.setAutoPadding(false);
    const e = Buffer.concat([cipher.update(k1), cipher.final()]);
    let sum = 0;
    for (let j = 0; j < 16; j++) sum += e[j]!;
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]!).update(e).digest();
    if (i >= 63 && e[e.length - 1]! <= i - 31) break; // pdf.js: while (i < 64 || E[last] > i - 32), i counted after the round
  }
  return k.subarray(0, 32);
}

/** RC4 (§7.6.2), written out because OpenSSL 3 no longer offers it by default. */
export function rc4(key: Buffer, data: Buffer): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.allocUnsafe(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}
