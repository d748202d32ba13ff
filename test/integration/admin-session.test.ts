import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent?.close());

/** `sello_admin=…` out of a Set-Cookie header. */
function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  return set.split(';')[0] ?? '';
}

async function login(a: TestAgent): Promise<{ cookie: string; csrf: string }> {
  const issued = a.issueAdminCookie();
  const cookie = `${issued.name}=${issued.value}`;
  const res = await a.fetch('/admin/api/session', { headers: { Cookie: cookie } });
  const body = (await res.json()) as { data: { csrf_token: string } };
  return { cookie, csrf: body.data.csrf_token };
}

describe('the one-time admin URL (CONTRACT §14)', () => {
  it('trades its token once for an HttpOnly, SameSite=Strict cookie and redirects to /ui/', async () => {
    const url = new URL(agent.adminUrl);
    expect(url.searchParams.get('token')).not.toBe(agent.adminToken);
    const first = await fetch(agent.adminUrl, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/ui/');
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^sello_admin=[\w-]{43};/);
    expect(setCookie.toLowerCase()).toContain('httponly');
    expect(setCookie.toLowerCase()).toContain('samesite=strict');
    expect(setCookie.toLowerCase()).toContain('path=/');
    const status = await agent.fetch('/admin/api/certificates', { headers: { Cookie: cookieOf(first) } });
    expect(status.status).toBe(200);

    const again = await fetch(agent.adminUrl, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.text()).toContain('ya se usó');
  });

  it('refuses a wrong token on /ui/login', async () => {
    const res = await agent.fetch('/ui/login?token=nope', { redirect: 'manual' });
    expect(res.status).toBe(401);
  });

  it('serves /ui with a strict Content-Security-Policy and no inline script', async () => {
    const res = await agent.fetch('/ui/');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/https?:\/\//);
    expect((await agent.fetch('/ui/..%2Fpackage.json')).status).toBe(404);
  });

  it('refuses a foreign Host on /ui (421)', async () => {
    const { default: http } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.get(`${agent.baseUrl}/ui/`, { headers: { Host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    expect(status).toBe(421);
  });
});

describe('admin API calls', () => {
  it('are 401 without cookie or token, known and unknown paths alike', async () => {
    for (const [method, path] of [
      ['GET', '/admin/api/session'],
      ['GET', '/admin/api/certificates'],
      ['GET', '/admin/api/deliveries'],
      ['GET', '/admin/api/no-such-thing'],
      ['POST', '/admin/api/test-certificates'],
    ] as const) {
      const res = await agent.fetch(path, { method });
      expect(res.status, `${method} ${path}`).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unauthorized');
    }
    const wrongCookie = await agent.fetch('/admin/api/certificates', { headers: { Cookie: 'sello_admin=forged' } });
    expect(wrongCookie.status).toBe(401);
  });

  it('keep accepting the Bearer admin token without CSRF', async () => {
    const res = await agent.fetch('/admin/api/deliveries', { headers: { Authorization: `Bearer ${agent.adminToken}` } });
    expect(res.status).toBe(200);
  });

  it('need the session CSRF token on state-changing methods', async () => {
    const { cookie, csrf } = await login(agent);
    expect(csrf).toMatch(/^[\w-]{43}$/);
    const post = (headers: Record<string, string>) =>
      agent.fetch('/admin/api/test-certificates', { method: 'POST', headers: { Cookie: cookie, 'Content-Type': 'application/json', ...headers }, body: '{}' });
    const missing = await post({});
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('CSRF');
    expect((await post({ 'X-CSRF-Token': 'wrong' })).status).toBe(403);
    // With the right token the request reaches its handler (here: a validation error).
    expect((await post({ 'X-CSRF-Token': csrf })).status).toBe(422);
  });

  it('refuse a cross-site form POST with 403, even with the cookie and token', async () => {
    const { cookie, csrf } = await login(agent);
    const before = ((await (await agent.fetch('/admin/api/certificates', { headers: { Cookie: cookie } })).json()) as { data: unknown[] }).data.length;
    const crossSite: Array<Record<string, string>> = [
      { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'http://evil.example' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'null' },
    ];
    for (const headers of crossSite) {
      const res = await agent.fetch('/admin/api/test-certificates', {
        method: 'POST',
        headers: { Cookie: cookie, 'X-CSRF-Token': csrf, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: 'common_name=x',
      });
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    const after = ((await (await agent.fetch('/admin/api/certificates', { headers: { Cookie: cookie } })).json()) as { data: unknown[] }).data.length;
    expect(after).toBe(before);
  });

  it('ends the session on DELETE /admin/api/session', async () => {
    const { cookie, csrf } = await login(agent);
    expect((await agent.fetch('/admin/api/session', { method: 'DELETE', headers: { Cookie: cookie, 'X-CSRF-Token': csrf } })).status).toBe(204);
    expect((await agent.fetch('/admin/api/session', { headers: { Cookie: cookie } })).status).toBe(401);
  });
});
