import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSONAPI, jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

/** A raw request, so that headers fetch would rewrite (Host) go out as written. */
function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('transport', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  it('refuses a foreign Host header with 421 and changes nothing', async () => {
    const before = snapshot(agent);
    const res = await rawRequest(agent.baseUrl, {
      method: 'POST',
      path: '/api/v1/webhook-endpoints',
      headers: { Host: 'evil.example', ...jsonApiHeaders(agent.liveKey) },
      body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example', secret: '12345678' } } }),
    });
    expect(res.status).toBe(421);
    expect(JSON.parse(res.body)).toMatchObject({ errors: [{ status: '421', code: 'misdirected_request' }] });
    expect(snapshot(agent)).toBe(before);
  });

  it('accepts localhost and [::1] host names on the port it listens on, or without a port; another port is 421', async () => {
    const port = Number(new URL(agent.baseUrl).port);
    for (const host of [`localhost:${port}`, '127.0.0.1', `[::1]:${port}`, 'LOCALHOST']) {
      const res = await rawRequest(agent.baseUrl, { path: '/api/v1/tax-types', headers: { Host: host, Authorization: `Bearer ${agent.liveKey}` } });
      expect(res.status, host).toBe(200);
    }
    for (const host of [`localhost:${port + 1}`, '[::1]:1234']) {
      const res = await rawRequest(agent.baseUrl, { path: '/api/v1/tax-types', headers: { Host: host, Authorization: `Bearer ${agent.liveKey}` } });
      expect(res.status, host).toBe(421);
    }
  });

  it('answers a 10 MiB body with 413 in the JSON:API envelope and changes nothing', async () => {
    const before = snapshot(agent);
    const body = JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example', secret: 'x'.repeat(10 * 1024 * 1024) } } });
    const res = await agent.fetch('/api/v1/webhook-endpoints', { method: 'POST', headers: jsonApiHeaders(agent.liveKey), body });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ errors: [{ status: '413', code: 'payload_too_large' }] });
    expect(snapshot(agent)).toBe(before);
  });

  it('answers a 10 MiB chunked body (no Content-Length) with 413 too', async () => {
    const url = new URL(agent.baseUrl);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/webhook-endpoints', headers: jsonApiHeaders(agent.liveKey) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      for (let i = 0; i < 10; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(413);
  });

  it('answers malformed JSON with 400 invalid_json and changes nothing', async () => {
    const before = snapshot(agent);
    const res = await agent.fetch('/api/v1/webhook-endpoints', { method: 'POST', headers: jsonApiHeaders(agent.liveKey), body: '{"data": {' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ code: string; detail: string }> };
    expect(body.errors[0]).toMatchObject({ code: 'invalid_json' });
    expect(body.errors[0]!.detail).toMatch(/JSON válido/);
    expect(snapshot(agent)).toBe(before);
  });

  it('answers a wrong content type with 415 and changes nothing', async () => {
    const before = snapshot(agent);
    for (const type of ['application/json', 'text/plain', `${JSONAPI}; charset=utf-8`]) {
      const res = await agent.fetch('/api/v1/webhook-endpoints', {
        method: 'POST',
        headers: jsonApiHeaders(agent.liveKey, { 'Content-Type': type }),
        body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example', secret: '12345678' } } }),
      });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toMatchObject({ errors: [{ code: 'unsupported_media_type' }] });
    }
    expect(snapshot(agent)).toBe(before);
  });

  it('accepts the JSON:API media type with ext and profile parameters', async () => {
    const res = await agent.fetch('/api/v1/webhook-endpoints', {
      method: 'POST',
      headers: jsonApiHeaders(agent.liveKey, { 'Content-Type': `${JSONAPI}; profile="https://example.com/p"` }),
      body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example', secret: '12345678' } } }),
    });
    expect(res.status).toBe(201);
  });

  it('answers an Accept that allows no JSON:API type with 406', async () => {
    for (const accept of ['text/html', `${JSONAPI}; charset=utf-8`, 'application/json']) {
      const res = await agent.fetch('/api/v1/webhook-endpoints', { headers: { Authorization: `Bearer ${agent.liveKey}`, Accept: accept } });
      expect(res.status, accept).toBe(406);
      expect(await res.json()).toMatchObject({ errors: [{ code: 'not_acceptable' }] });
    }
    for (const accept of ['*/*', 'application/*', `text/html, ${JSONAPI}`]) {
      const res = await agent.fetch('/api/v1/webhook-endpoints', { headers: { Authorization: `Bearer ${agent.liveKey}`, Accept: accept } });
      expect(res.status, accept).toBe(200);
    }
  });

  it('answers unknown routes with 404 in the envelope of the path’s family', async () => {
    const jsonapi = await agent.fetch('/api/v1/nothing-here', { headers: { Authorization: `Bearer ${agent.liveKey}` } });
    expect(jsonapi.status).toBe(404);
    expect(await jsonapi.json()).toMatchObject({ errors: [{ code: 'route_not_found' }] });
    const familyA = await agent.fetch('/nothing-here', { headers: { 'X-Api-Key': agent.liveApiKey } });
    expect(familyA.status).toBe(404);
    expect(await familyA.json()).toMatchObject({ type: 'invalid_request_error' });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await agent.fetch('/api/v1/tax-types', { method: 'DELETE', headers: { Authorization: `Bearer ${agent.liveKey}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('gives every response a request id', async () => {
    const res = await agent.fetch('/api/v1/openapi');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('speaks English when Accept-Language prefers it', async () => {
    const res = await agent.fetch('/api/v1/webhook-endpoints?sort=nope', { headers: { Authorization: `Bearer ${agent.liveKey}`, 'Accept-Language': 'en-US,en;q=0.9,es;q=0.5' } });
    const body = (await res.json()) as { errors: Array<{ detail: string }> };
    expect(body.errors[0]!.detail).toMatch(/^Cannot sort by "nope"/);
  });
});

describe('requests the HTTP parser refuses', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  async function raw(text: string): Promise<{ head: string; body: string }> {
    const url = new URL(agent.baseUrl);
    const net = await import('node:net');
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.end(text));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => {
        const all = Buffer.concat(chunks).toString('utf8');
        const split = all.indexOf('\r\n\r\n');
        resolve({ head: all.slice(0, split), body: all.slice(split + 4) });
      });
    });
  }

  it('answers a URL longer than the parser allows with 431 in the path family’s envelope', async () => {
    const res = await raw(`GET /api/v1/webhook-endpoints?filter[url][contains]=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(res.head).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(res.body)).toMatchObject({ errors: [{ status: '431', code: 'headers_too_large' }] });
    const familyA = await raw(`GET /d/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(JSON.parse(familyA.body)).toMatchObject({ type: 'invalid_request_error' });
  });

  it('answers a malformed request line with 400 and a JSON body', async () => {
    const res = await raw('GARBAGE\r\n\r\n');
    expect(res.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(res.body)).toMatchObject({ type: 'invalid_request_error' });
  });
});
