/**
 * Issue 15 point 6: an unexpected error reaches a person as `internal_error` with the request id
 * in its message, and the log line with that id holds the stack; the raw message never leaves.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { State } from '../../../core/http/context.js';
import { errorMiddleware } from '../../../core/http/middleware/errors.js';
import { requestMiddleware } from '../../../core/http/middleware/request.js';
import { createLogger } from '../../../core/log/index.js';

const lines: string[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  const log = createLogger('error', (line) => lines.push(line));
  const app = new Koa<State>();
  app.use(requestMiddleware(log));
  app.use(errorMiddleware(log));
  app.use(() => {
    throw new TypeError("Cannot read properties of undefined (reading 'secreto')");
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('an unexpected error', () => {
  it('is internal_error naming the request id, with the stack in the log under that id', async () => {
    for (const [path, lang] of [['/api/v1/documents', 'es'], ['/v1/certificates', 'en']] as const) {
      const res = await fetch(`${base}${path}`, { headers: { 'Accept-Language': lang } });
      expect(res.status).toBe(500);
      const id = res.headers.get('x-request-id')!;
      const text = await res.text();
      expect(text).toContain(id);
      expect(text).not.toMatch(/secreto|TypeError/);
      const logged = lines.map((l) => JSON.parse(l) as { requestId?: string; err?: { stack?: string } }).find((l) => l.requestId === id);
      expect(logged?.err?.stack).toMatch(/TypeError: Cannot read properties/);
    }
  });
});
