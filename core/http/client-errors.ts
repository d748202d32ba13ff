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
  const error = new SelloError(tooLarge ? 'headers_too_large' : 'malformed_request');
  // The request line, when it got that far, tells which family was called.
  const path = /^[A-Z]+ (\/\S*)/.exec(err.rawPacket?.subarray(0, 2048).toString('latin1') ?? '')?.[1] ?? '/';
  const rendered = renderError(error, surfaceForPath(path), 'es');
  const body = Buffer.from(typeof rendered.body === 'string' ? rendered.body : JSON.stringify(rendered.body), 'utf8');
  socket.end(
    Buffer.concat([
      Buffer.from(
        `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
          `Content-Type: ${rendered.contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        'latin1',
      ),
      body,
    ]),
  );
}
