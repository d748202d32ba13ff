/**
 * RFC 3161 timestamps for PAdES B-T (ETSI EN 319 142-1 §6.3, CONTRACT §12).
 *
 * The client sends a `TimeStampReq` over HTTP (RFC 3161 §3.4: POST with Content-Type
 * `application/timestamp-query`), checks the `PKIStatus`, that the token's `messageImprint`
 * is the hash it asked for and that the nonce came back, and returns the token
 * (a CMS `ContentInfo`) byte for byte, ready for the unsigned attribute id-aa-timeStampToken.
 *
 * Every failure is a `SelloError('timestamp_failed')`: the PDF is left unsigned rather
 * than silently downgraded from B-T to B-B.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { SelloError } from '../../errors/index.js';
import {
  OID,
  Type,
  algorithm,
  bool,
  children,
  content,
  decode,
  encode,
  int,
  isContext,
  isUniversal,
  octets,
  oidOf,
  seq,
  uintFromBytes,
  type Asn1Node,
} from './cms-asn1.js';

export interface TimestampRequestOptions {
  /** The TSA's URL (http or https). */
  url: string;
  /** The bytes to timestamp; the request carries SHA-256(data). For B-T: the signature value. */
  data: Buffer;
  /** Extra CA (PEM file) to trust for an HTTPS TSA, besides the system's. */
  caFile?: string;
  /** Give up after this long (default 15 s, like other outgoing calls of Sello). */
  timeoutMs?: number;
}

/** The fields of a token's `TSTInfo` (RFC 3161 §2.4.2) that Sello shows or checks. */
export interface TstInfo {
  policy: string;
  hashAlgorithm: string;
  messageImprint: Buffer;
  /** Hex, as in certificate serials. */
  serialNumber: string;
  genTime: Date;
  /** Hex of the nonce, when present. */
  nonce?: string;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Asks `url` for a timestamp token over SHA-256(`data`).
 *
 * @example
 *   const token = await requestTimestampToken({ url: 'http://tsa.example/tsr', data: signatureValue });
 */
export async function requestTimestampToken(opts: TimestampRequestOptions): Promise<Buffer> {
  const imprint = createHash('sha256').update(opts.data).digest();
  const nonce = randomBytes(8);
  nonce[0] = ((nonce[0] ?? 0) & 0x7f) | 0x01; // positive and of a fixed length, so the echo compares as bytes
  const request = encode(
    seq([
      int(1),
      seq([algorithm(OID.sha256, false), octets(imprint)]), // MessageImprint
      uintFromBytes(nonce),
      bool(true), // certReq: the TSA's certificate goes in the token, so verifiers need nothing else
    ]),
  );

  const ca = opts.caFile ? await readCaFile(opts.caFile) : undefined;
  const body = await postTimestampQuery(opts.url, request, ca, opts.timeoutMs ?? 15_000);
  return parseTimestampResponse(body, imprint, nonce);
}

/**
 * Checks a `TimeStampResp` and returns its token. Exported for tests.
 */
export function parseTimestampResponse(body: Buffer, expectedImprint: Buffer, expectedNonce?: Buffer): Buffer {
  let resp: Asn1Node[];
  try {
    resp = children(decode(body), 'TimeStampResp');
  } catch (err) {
    throw fail('La autoridad de sellado de tiempo devolvió una respuesta que no es RFC 3161.', err);
  }
  const statusBytes = safe(() => content(children(resp[0], 'PKIStatusInfo')[0], 'PKIStatus'));
  const status = statusBytes && statusBytes.length <= 6 ? statusBytes.readIntBE(0, statusBytes.length) : -1;
  // RFC 3161 §2.4.2: 0 granted, 1 grantedWithMods; anything else carries no token.
  if (status !== 0 && status !== 1) {
    throw fail(`La autoridad de sellado de tiempo rechazó la solicitud (estado PKIStatus ${status}). Revise la URL de la TSA o configure otra.`);
  }
  const tokenNode = resp[1];
  if (!tokenNode) throw fail('La autoridad de sellado de tiempo no incluyó el sello en su respuesta.');
  const token = encode(tokenNode);
  if (!body.includes(token)) throw fail('El sello de tiempo recibido no está codificado en DER.');

  let info: TstInfo;
  try {
    info = readTstInfo(token);
  } catch (err) {
    throw fail('El sello de tiempo recibido no tiene la estructura esperada (TSTInfo).', err);
  }
  if (info.hashAlgorithm !== OID.sha256 || !info.messageImprint.equals(expectedImprint)) {
    throw fail('El sello de tiempo no corresponde a la firma enviada (messageImprint distinto).');
  }
  if (expectedNonce && info.nonce !== stripZeros(expectedNonce).toString('hex')) {
    throw fail('El sello de tiempo no trae el nonce enviado; la respuesta no corresponde a esta solicitud.');
  }
  return token;
}

/**
 * Reads the `TSTInfo` inside a timestamp token (a SignedData whose eContentType is
 * id-ct-TSTInfo, RFC 3161 §2.4.2).
 *
 * @example
 *   readTstInfo(token).genTime // → 2026-11-21T23:40:00.000Z
 */
export function readTstInfo(token: Buffer): TstInfo {
  const ci = children(decode(token), 'ContentInfo');
  if (oidOf(ci[0], 'contentType') !== OID.signedData) throw new Error('el sello no es SignedData');
  const sd = children(children(ci[1], '[0]')[0], 'SignedData');
  const encap = children(sd[2], 'encapContentInfo');
  if (oidOf(encap[0], 'eContentType') !== OID.tstInfo) throw new Error('el sello no contiene TSTInfo');
  const eContent = children(encap[1], 'eContent')[0];
  const tst = children(decode(content(eContent, 'eContent')), 'TSTInfo');
  const imprint = children(tst[2], 'MessageImprint');
  const info: TstInfo = {
    policy: oidOf(tst[1], 'policy'),
    hashAlgorithm: oidOf(children(imprint[0], 'hashAlgorithm')[0], 'hashAlgorithm'),
    messageImprint: content(imprint[1], 'hashedMessage'),
    serialNumber: content(tst[3], 'serialNumber').toString('hex'),
    genTime: parseGeneralizedTime(content(tst[4], 'genTime').toString('latin1')),
  };
  // Optional fields after genTime: accuracy SEQUENCE, ordering BOOLEAN, nonce INTEGER, tsa [0], extensions [1].
  for (const node of tst.slice(5)) {
    if (isUniversal(node, Type.INTEGER)) info.nonce = stripZeros(content(node, 'nonce')).toString('hex');
    else if (isContext(node, 0) || isContext(node, 1)) break;
  }
  return info;
}

function parseGeneralizedTime(s: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\.\d+)?Z$/.exec(s);
  if (!m) throw new Error(`genTime no válido: ${s}`);
  const ms = m[7] ? Math.round(Number(`0${m[7]}`) * 1000) : 0;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms));
}

function stripZeros(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

function fail(detail: string, cause?: unknown): SelloError {
  return new SelloError('timestamp_failed', { detail, ...(cause === undefined ? {} : { cause }) });
}

async function readCaFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw fail(`No se pudo leer el archivo de CA de la TSA (${path}). Revise la configuración.`, err);
  }
}

function postTimestampQuery(url: string, request: Buffer, ca: Buffer | undefined, timeoutMs: number): Promise<Buffer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    return Promise.reject(fail(`La URL de la autoridad de sellado de tiempo no es válida: ${url}`, err));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.reject(fail('La URL de la autoridad de sellado de tiempo debe empezar por http:// o https://.'));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<Buffer>((resolve, reject) => {
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/timestamp-query',
          Accept: 'application/timestamp-reply',
          'Content-Length': request.length,
        },
        timeout: timeoutMs,
        ...(ca && target.protocol === 'https:' ? { ca: [...rootCertificates, ca.toString('utf8')] } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(fail('La respuesta de la autoridad de sellado de tiempo es demasiado grande.'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(fail(`La autoridad de sellado de tiempo respondió HTTP ${res.statusCode ?? '?'}. Revise la URL de la TSA.`));
            return;
          }
          resolve(Buffer.concat(chunks));
        });
        res.on('error', (err) => reject(fail('Se cortó la respuesta de la autoridad de sellado de tiempo.', err)));
      },
    );
    req.on('timeout', () => {
      req.destroy(fail(`La autoridad de sellado de tiempo no respondió en ${Math.round(timeoutMs / 1000)} s.`));
    });
    req.on('error', (err) => {
      reject(err instanceof SelloError ? err : fail(`No se pudo conectar con la autoridad de sellado de tiempo (${target.host}). Revise la conexión y la URL.`, err));
    });
    req.end(request);
  });
}

