// The only door to core: the admin API over HTTP, same origin (CONTRACT §14).
// The session is an HttpOnly cookie; state-changing calls carry the CSRF token.

let csrf = null;

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? 'http_error';
    /** Spanish messages by field, from the admin envelope `errors`. */
    this.fields = body?.errors ?? {};
  }
}

async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  const res = await fetch(`/admin/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return null;
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

/** Reads the session's CSRF token; false when there is no session. */
export async function startSession() {
  try {
    const body = await call('GET', '/session');
    csrf = body.data.csrf_token;
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return false;
    throw err;
  }
}

/**
 * A file of the admin API (a RIDE, an XML) as `{ blob, filename }`: fetched with the session
 * cookie like every call, so that an error comes back as an ApiError the screen can show,
 * never as a downloaded error page. The name is the server's (Content-Disposition), else `fallback`.
 */
async function file(path, fallback) {
  const res = await fetch(`/admin/api${path}`, { credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
  const named = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '');
  return { blob: await res.blob(), filename: named?.[1] ?? fallback };
}

export const api = {
  get: (path) => call('GET', path),
  file,
  post: (path, body) => call('POST', path, body ?? {}),
  put: (path, body) => call('PUT', path, body ?? {}),
  del: (path) => call('DELETE', path),
};
