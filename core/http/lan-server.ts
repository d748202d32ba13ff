/**
 * The listener for an address beyond loopback (CONTRACT §2): HTTPS for everyone; plain HTTP
 * only from this machine's own loopback addresses (the tray and a local ERP keep using
 * `http://127.0.0.1:PORT` when Sello listens on 0.0.0.0 or ::). Plain HTTP from another computer
 * gets one 400 `https_required` in the family's envelope and the connection is closed: never a
 * TLS handshake error it cannot read, never a hang.
 *
 * One https.Server does both. Its own `connection` listener (the TLS handshake) is taken off and
 * called only for connections whose first byte opens a TLS record (0x16, handshake); a plain
 * connection from loopback goes straight to the server's HTTP parser (`secureConnection`, where
 * https.Server attaches it), so both kinds share one set of timeouts, one connection list and one
 * `close()`.
 */
import https from 'node:https';
import type net from 'node:net';
import type http from 'node:http';
import type tls from 'node:tls';
import { SelloError } from '../errors/index.js';
import { isLoopbackAddress } from '../tls/index.js';
import { rawErrorResponse, requestPath } from './client-errors.js';

/** A connection that sends nothing is dropped after this long. */
const FIRST_BYTE_TIMEOUT_MS = 15_000;
/** A TLS record of type handshake (RFC 8446 §5.1): how every ClientHello starts. */
const TLS_HANDSHAKE = 0x16;

export function createLanServer(listener: http.RequestListener, secure: tls.SecureContextOptions): https.Server {
  const server = https.createServer({ ...secure, minVersion: 'TLSv1.2' }, listener);
  const [tlsConnection] = server.listeners('connection') as Array<(socket: net.Socket) => void>;
  if (!tlsConnection) throw new Error('https.Server without its connection listener');
  server.removeAllListeners('connection');
  server.on('connection', (socket: net.Socket) => {
    const onError = () => socket.destroy();
    socket.on('error', onError);
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    const sniff = () => {
      const chunk = socket.read() as Buffer | null;
      if (chunk === null) {
        if (socket.readableEnded) socket.destroy();
        else socket.once('readable', sniff);
        return;
      }
      socket.setTimeout(0);
      socket.off('error', onError);
      if (chunk[0] === TLS_HANDSHAKE) {
        socket.unshift(chunk);
        tlsConnection.call(server, socket);
      } else if (isLoopbackAddress(socket.remoteAddress)) {
        socket.unshift(chunk);
        server.emit('secureConnection', socket);
      } else {
        socket.on('error', () => socket.destroy());
        refusePlainHttp(socket, chunk);
      }
    };
    socket.once('readable', sniff);
  });
  return server;
}

/**
 * Answers a plain HTTP request from another computer with 400 `https_required` in the envelope of
 * the family its path belongs to, then closes. What the client still sends is read and dropped,
 * so the answer is not lost to a reset.
 */
function refusePlainHttp(socket: net.Socket, chunk: Buffer): void {
  const path = requestPath(chunk);
  if (path === undefined) {
    // Not HTTP either: nothing it could read.
    socket.destroy();
    return;
  }
  socket.resume();
  socket.end(rawErrorResponse(new SelloError('https_required'), path));
  setTimeout(() => socket.destroy(), 2_000).unref();
}
