// The shell of the admin UI: session, navigation by hash, language. Screens live in
// screens.js; every byte of data comes from the admin API (CONTRACT §14).
import { startSession } from './api.js';
import { h, notice } from './dom.js';
import { lang, languages, setLang, t } from './i18n.js';
import * as screens from './screens.js';

const order = ['estado', 'libros', 'claves', 'webhooks', 'firmas', 'certificados', 'emisor', 'comprobantes', 'compras', 'carpetas', 'actividad'];

function current() {
  const name = location.hash.replace(/^#\/?/, '');
  return order.includes(name) ? name : 'estado';
}

async function render() {
  const app = document.getElementById('app');
  document.title = t('title');
  const name = current();
  const main = h('main', { id: 'main', tabindex: '-1' }, h('p', {}, t('loading')));
  const select = h('select', { id: 'lang' }, languages.map((l) => h('option', { value: l.code, selected: l.code === lang() }, l.name)));
  select.addEventListener('change', () => {
    setLang(select.value);
    render();
  });
  app.replaceChildren(
    h('a', { className: 'skip', href: '#main' }, 'Ir al contenido'),
    h(
      'header',
      {},
      h('span', { className: 'brand' }, 'Sello'),
      h('nav', { 'aria-label': 'Secciones' }, h('ul', {}, order.map((s) => h('li', {}, h('a', { href: `#/${s}`, 'aria-current': s === name ? 'page' : undefined }, t(`nav.${s}`)))))),
      h('div', { className: 'lang' }, h('label', { for: 'lang' }, t('language')), select),
    ),
    main,
  );
  try {
    await screens[name](main);
  } catch (err) {
    main.replaceChildren(notice(err.message, 'error'));
  }
}

async function boot() {
  setLang(lang());
  if (!(await startSession())) {
    document.getElementById('app').replaceChildren(h('main', { className: 'narrow' }, h('h1', {}, 'Sello'), notice(t('noSession'), 'error')));
    return;
  }
  window.addEventListener('hashchange', async () => {
    await render();
    document.getElementById('main')?.focus();
  });
  await render();
}

boot();
