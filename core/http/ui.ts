import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../paths.js';
import { ADMIN_COOKIE, type AdminSessions } from './admin-session.js';
import type { AppContext, Route } from './context.js';

/** The UI's files: plain ES modules and CSS, no build step (ENGINEERING: renderer/). */
export const defaultRendererDir = path.join(projectRoot, 'renderer');

/**
 * CONTRACT §14: a strict policy. Only this origin's scripts, styles and API; no inline
 * script or style, no frames, no external fonts, images or connections.
 */
export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** One path segment of a served file: no dots in front, no separators, a known type. */
const FILE = /^[a-z0-9][a-z0-9-]*\.(?:js|css|svg|png)$/;

function secure(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', UI_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  // The one-time token is in the URL of the first visit: never send it on as a Referer.
  ctx.set('Referrer-Policy', 'no-referrer');
}

function loginPage(ctx: AppContext, sessions: AdminSessions): boolean {
  const token = ctx.query.token;
  if (token === undefined) return false;
  const id = typeof token === 'string' ? sessions.exchange(token) : undefined;
  if (!id) {
    ctx.status = 401;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!doctype html><html lang="es"><meta charset="utf-8"><title>Sello</title><link rel="stylesheet" href="/ui/app.css">
<main class="narrow"><h1>Enlace no válido</h1><p>Este enlace de administración ya se usó o no es válido.
Reinicie <code>sello serve</code> para obtener uno nuevo, o abra Sello desde la bandeja.</p></main></html>`;
    return true;
  }
  ctx.cookies.set(ADMIN_COOKIE, id, { httpOnly: true, sameSite: 'strict', path: '/', overwrite: true });
  ctx.status = 303;
  ctx.redirect('/ui/');
  return true;
}

/**
 * `/ui`: the admin UI (CONTRACT §14). The first visit trades the one-time token for
 * the session cookie and lands on `/ui/` without it; `/admin/api/session` gives the page
 * its CSRF token. The files themselves hold nothing secret and are served to anyone
 * on an accepted Host.
 */
export function uiRoutes(sessions: AdminSessions, rendererDir = defaultRendererDir): Route[] {
  const ui = { surface: 'admin', auth: 'none' } as const;
  const sendFile = (ctx: AppContext, name: string) => {
    const file = path.join(rendererDir, name);
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'No encontrado.';
      return;
    }
    ctx.type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    ctx.body = body;
  };
  const index = (ctx: AppContext) => {
    secure(ctx);
    if (loginPage(ctx, sessions)) return;
    sendFile(ctx, 'index.html');
  };
  return [
    { ...ui, method: 'GET', path: '/ui', handler: index },
    { ...ui, method: 'GET', path: '/ui/login', handler: index },
    {
      ...ui,
      method: 'GET',
      path: '/ui/:file',
      handler(ctx) {
        secure(ctx);
        const name = ctx.state.params.file ?? '';
        if (!FILE.test(name)) {
          ctx.status = 404;
          ctx.type = 'text/plain; charset=utf-8';
          ctx.body = 'No encontrado.';
          return;
        }
        sendFile(ctx, name);
      },
    },
    {
      method: 'GET',
      path: '/admin/api/session',
      surface: 'admin',
      auth: 'admin',
      handler(ctx) {
        // With the Bearer token there is no cookie session and no CSRF token to give.
        ctx.body = { data: { csrf_token: sessions.csrfOf(ctx.cookies.get(ADMIN_COOKIE)) ?? null } };
      },
    },
    {
      method: 'DELETE',
      path: '/admin/api/session',
      surface: 'admin',
      auth: 'admin',
      handler(ctx) {
        sessions.end(ctx.cookies.get(ADMIN_COOKIE));
        ctx.cookies.set(ADMIN_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0, overwrite: true });
        ctx.status = 204;
      },
    },
  ];
}
