import type { Route } from './context.js';

/**
 * `/ui`: the admin UI arrives with the tray app (issue 7). Until then the page
 * says so plainly instead of pretending.
 */
export function uiRoutes(): Route[] {
  const page = `<!doctype html><html lang="es"><meta charset="utf-8"><title>Sello</title>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto">
<h1>Sello está en marcha</h1>
<p>La interfaz de administración todavía no está disponible en esta versión.
Use la línea de comandos (<code>npx sello --help</code>) y la API en <code>/api/v1</code>.</p>
</body></html>`;
  return [
    {
      method: 'GET',
      path: '/ui',
      surface: 'admin',
      auth: 'none',
      handler(ctx) {
        ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = page;
      },
    },
  ];
}
