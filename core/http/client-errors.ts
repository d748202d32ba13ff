import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { SelloError } from '../errors/index.js';
import { renderError } from './envelopes.js';
import { surfaceForPath } from './router.js';

/**
 * Requests Node's HTTP parser refuses before Koa sees them (a URL or headers over the
 * parser's limit, a malformed request line) would get a bare status with no body. Answer
 * them in the envelope of the path's family instead (CONTRACT §4: never a page without
 * the envelope), then close the connection.
 */
export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  socket.end(rawErrorResponse(new SelloError(tooLarge ? 'headers_too_large' : 'malformed_request'), requestPath(err.rawPacket) ?? '/'));
}

/** The path of a raw request's first line (`GET /api/v1/x HTTP/1.1`), when it got that far. */
export function requestPath(raw: Buffer | undefined): string | undefined {
  return /^[A-Z]+ (\/\S*)/.exec(raw?.subarray(0, 2048).toString('latin1') ?? '')?.[1];
}

/**
 * A whole HTTP/1.1 answer, written by hand for a connection Koa never sees: the error in the
 * envelope of the family `path` belongs to, and `Connection: close`.
 */
export function rawErrorResponse(error: SelloError, path: string): Buffer {
  const rendered = renderError(error, surfaceForPath(path), 'es');
  const body = Buffer.from(typeof rendered.body === 'string' ? rendered.body : JSON.stringify(rendered.body), 'utf8');
  return Buffer.concat([
    Buffer.from(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
        `Content-Type: ${rendered.contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      'latin1',
    ),
    body,
  ]);
}
