import type { IncomingMessage } from 'node:http';
import { SelloError } from '../errors/index.js';

/** Past this, an oversized body is not even drained: the connection is dropped. */
const DRAIN_CAP = 256 * 1024 * 1024;

/**
 * Reads a request body up to `limit` bytes. An oversized body is a 413; the rest
 * of it is read and discarded first (up to a cap), so that the client, still
 * writing, receives the 413 instead of a connection reset.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await drain(req, declared);
    throw tooLarge(limit);
  }
  // Not `for await`: leaving that loop early destroys the socket, and the client
  // would see a reset instead of the 413.
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  await new Promise<void>((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_CAP) {
        req.destroy();
        resolve();
      } else if (size > limit) {
        overflow = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', resolve);
    req.on('error', reject);
    req.on('close', resolve);
  });
  if (overflow || size > limit) throw tooLarge(limit);
  return Buffer.concat(chunks, size);
}

async function drain(req: IncomingMessage, declared: number): Promise<void> {
  if (declared > DRAIN_CAP || req.readableEnded) {
    req.destroy();
    return;
  }
  let seen = 0;
  await new Promise<void>((resolve) => {
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_CAP) {
        req.destroy();
        resolve();
      }
    });
    req.on('end', resolve);
    req.on('close', resolve);
    req.on('error', () => resolve());
    req.resume();
  });
}

function tooLarge(limit: number): SelloError {
  const mib = Math.round((limit / 1024 / 1024) * 10) / 10;
  return new SelloError('payload_too_large', {
    detail: `El cuerpo de la solicitud supera el máximo de ${mib} MiB.`,
    detailEn: `The request body exceeds the ${mib} MiB maximum.`,
  });
}

/** Parses JSON, turning a syntax error into a clear 400. */
export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) {
    throw new SelloError('invalid_json', { detail: 'El cuerpo de la solicitud está vacío; se esperaba JSON.', detailEn: 'The request body is empty; JSON was expected.' });
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (err) {
    throw new SelloError('invalid_json', {
      detail: `El cuerpo de la solicitud no es JSON válido: ${(err as Error).message}`,
      detailEn: `The request body is not valid JSON: ${(err as Error).message}`,
    });
  }
}
