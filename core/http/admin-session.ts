import crypto from 'node:crypto';
import { SelloError } from '../errors/index.js';
import type { AppContext } from './context.js';

/** Name of the admin session cookie (CONTRACT §14). */
export const ADMIN_COOKIE = 'sello_admin';

/** What the Electron window sets on its session: `session.cookies.set({url, ...cookie})`. */
export interface AdminCookie {
  name: string;
  value: string;
  httpOnly: true;
  sameSite: 'strict';
  path: '/';
}

interface Session {
  csrf: string;
  createdAt: number;
}

export interface AdminSessions {
  /** The one-time login token of the printed URL (`/ui/?token=…`); works once. */
  readonly loginToken: string;
  /** Trades the one-time token for a new session id; undefined if wrong or already used. */
  exchange(token: string): string | undefined;
  /** A session handed directly to the Electron window as a cookie, without the URL. */
  issueCookie(): AdminCookie;
  /** The CSRF token of a session, or undefined when the id is unknown. */
  csrfOf(sessionId: string | undefined): string | undefined;
  /**
   * Checks an admin API call: the Bearer admin token (automation, tests) or the
   * session cookie; for state-changing methods with the cookie, the CSRF header and
   * a same-origin request. Throws 401 `unauthorized` or 403 `forbidden`.
   */
  assert(ctx: AppContext): void;
  /** Ends a session (logout). */
  end(sessionId: string | undefined): void;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_SESSIONS = 64;

function random(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** Constant-time equality of two strings of any length. */
function same(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

function bearer(header: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * A browser that sends `Sec-Fetch-Site: cross-site` or an `Origin` of another host is
 * another site posting at us (a form on evil.example): refused before anything else,
 * Syncthing-style. Requests without these headers (curl, tests) are judged by the CSRF token.
 */
export function isCrossSite(ctx: AppContext): boolean {
  const site = ctx.get('Sec-Fetch-Site').toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = ctx.get('Origin');
  if (!origin) return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host.toLowerCase() !== ctx.get('Host').toLowerCase();
  } catch {
    return true;
  }
}

/**
 * Sessions of the admin UI (CONTRACT §14), kept in memory for this run of the agent:
 * a restart prints a new one-time URL. Session ids and CSRF tokens are 256-bit random
 * values; `adminToken` (Bearer) stays valid for automation and never goes in a URL.
 */
export function createAdminSessions(adminToken: string): AdminSessions {
  let loginToken: string | undefined = random();
  const printed = loginToken;
  const sessions = new Map<string, Session>();

  const open = (): string => {
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    const id = random();
    sessions.set(id, { csrf: random(), createdAt: Date.now() });
    return id;
  };

  const unauthorized = () =>
    new SelloError('unauthorized', {
      detail: 'Falta la sesión de administración o no es válida. Abra el enlace que muestra «sello serve».',
      detailEn: 'The admin session is missing or invalid. Open the link printed by "sello serve".',
    });

  return {
    loginToken: printed,
    exchange(token) {
      if (loginToken === undefined || !same(token, loginToken)) return undefined;
      loginToken = undefined;
      return open();
    },
    issueCookie() {
      return { name: ADMIN_COOKIE, value: open(), httpOnly: true, sameSite: 'strict', path: '/' };
    },
    csrfOf(sessionId) {
      return sessionId ? sessions.get(sessionId)?.csrf : undefined;
    },
    end(sessionId) {
      if (sessionId) sessions.delete(sessionId);
    },
    assert(ctx) {
      const unsafe = !SAFE_METHODS.has(ctx.method);
      if (unsafe && isCrossSite(ctx)) {
        throw new SelloError('forbidden', {
          detail: 'Solicitud de otro sitio rechazada (protección CSRF).',
          detailEn: 'Cross-site request refused (CSRF protection).',
        });
      }
      const presented = bearer(ctx.get('Authorization'));
      if (presented !== undefined) {
        if (!same(presented, adminToken)) throw unauthorized();
        return;
      }
      const session = sessions.get(ctx.cookies.get(ADMIN_COOKIE) ?? '');
      if (!session) throw unauthorized();
      if (unsafe && !same(ctx.get('X-CSRF-Token'), session.csrf)) {
        throw new SelloError('forbidden', {
          detail: 'Falta el token CSRF o no coincide con la sesión. Recargue la página.',
          detailEn: 'The CSRF token is missing or does not match the session. Reload the page.',
        });
      }
    },
  };
}
