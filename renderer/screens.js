// The screens of the admin UI (CONTRACT §14). Each is `async (root) => void`: it reads
// the admin API, draws into `root`, and redraws itself after a change.
import { api } from './api.js';
import { field, form, h, notice, shownOnce, SLUG, table } from './dom.js';
import { t } from './i18n.js';

let selectedBook = null;

/** The book picker of every per-book screen; `allowAccount` adds the Family A account. */
async function bookPicker(onChange, { allowAccount = false } = {}) {
  const books = (await api.get('/books')).data;
  const options = [...(allowAccount ? [{ value: '', label: t('account') }] : []), ...books.map((b) => ({ value: b.id, label: `${b.name} (${b.slug})` }))];
  if (selectedBook === null || !options.some((o) => o.value === selectedBook)) selectedBook = options[0]?.value ?? null;
  const picker = field('book', t('book'), { type: 'select', options: options.map((o) => h('option', { value: o.value, selected: o.value === selectedBook }, o.label)) });
  picker.input.addEventListener('change', () => {
    selectedBook = picker.input.value;
    onChange();
  });
  picker.el.classList.add('picker');
  return { el: picker.el, book: selectedBook, books };
}

const date = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

export async function estado(root) {
  const s = (await api.get('/status')).data;
  root.replaceChildren(
    h('h1', {}, t('nav.estado')),
    h(
      'dl',
      { className: 'facts' },
      h('dt', {}, t('estado.server')),
      h('dd', {}, s.base_url),
      h('dt', {}, t('estado.version')),
      h('dd', {}, s.version),
      h('dt', {}, t('estado.modules')),
      h('dd', {}, s.pkcs11_modules.length ? s.pkcs11_modules.join(', ') : '—'),
      h('dt', {}, t('estado.tokens')),
      h('dd', {}, s.tokens.length ? s.tokens.map((k) => `${k.label ?? k.serial} (${k.present ? t('estado.present') : t('estado.absent')})`).join(', ') : '—'),
      h('dt', {}, t('estado.pending')),
      h('dd', { 'data-testid': 'pending-count' }, String(s.pending_signatures)),
      h('dt', {}, t('estado.failed')),
      h('dd', { 'data-testid': 'failed-count' }, String(s.failed_deliveries)),
    ),
    h('h2', {}, t('estado.lastErrors')),
    table(
      [t('actividad.at'), t('webhooks.state'), t('actividad.name')],
      s.last_errors.map((e) => [date(e.at), e.status ?? '—', `${e.event ?? ''} ${e.error ?? ''}`.trim()]),
    ),
  );
}

export async function libros(root) {
  const books = (await api.get('/books')).data;
  const fields = {
    slug: field('slug', t('libros.slug')),
    tenant: field('tenant', t('libros.tenant')),
    name: field('name', t('libros.name')),
    accounting_api: field('accounting_api', t('libros.accountingApi'), { type: 'checkbox', input: { checked: true } }),
  };
  const slugProblem = (v) => (!v ? t('required') : SLUG.test(v) ? null : t('slugRule'));
  root.replaceChildren(
    h('h1', {}, t('nav.libros')),
    table(
      [t('libros.name'), t('libros.slug'), t('libros.tenant'), t('libros.accountingApi')],
      books.map((b) => [b.name, b.slug, b.tenant, b.accounting_api ? t('yes') : t('no')]),
    ),
    h('h2', {}, t('libros.create')),
    form({
      fields,
      submitLabel: t('libros.create'),
      validate: () => {
        const p = {};
        const slug = slugProblem(fields.slug.input.value.trim());
        const tenant = slugProblem(fields.tenant.input.value.trim());
        if (slug) p.slug = slug;
        if (tenant) p.tenant = tenant;
        return p;
      },
      send: () =>
        api.post('/books', {
          slug: fields.slug.input.value.trim(),
          tenant: fields.tenant.input.value.trim(),
          ...(fields.name.input.value.trim() ? { name: fields.name.input.value.trim() } : {}),
          accounting_api: fields.accounting_api.input.checked,
        }),
      onDone: () => libros(root),
    }),
  );
}

export async function claves(root) {
  const picker = await bookPicker(() => claves(root), { allowAccount: true });
  const keys = (await api.get(picker.book ? `/api-keys?book=${encodeURIComponent(picker.book)}` : '/api-keys')).data;
  const result = h('div', { className: 'result' });
  const fields = {
    name: field('name', t('claves.name')),
    environment: field('environment', t('environment'), { type: 'select', options: [h('option', { value: 'live' }, 'live'), h('option', { value: 'test' }, 'test')] }),
  };
  if (picker.book) {
    fields.scope_accounting = field('scope_accounting', 'accounting', { type: 'checkbox', input: { checked: true } });
    fields.scope_signing = field('scope_signing', 'signing', { type: 'checkbox', input: { checked: true } });
  }
  const revoke = (k) =>
    h('button', {
      type: 'button',
      'aria-label': `${t('claves.revoke')} ${k.name ?? k.hint}`,
      onclick: async () => {
        await api.post(`/api-keys/${k.id}/revoke`);
        await claves(root);
        root.querySelector('.result')?.replaceChildren(notice(t('claves.revokedDone')));
      },
    }, t('claves.revoke'));
  root.replaceChildren(
    h('h1', {}, t('nav.claves')),
    picker.el,
    table(
      [t('claves.name'), t('claves.hint'), t('environment'), t('claves.scopes'), t('claves.created'), ''],
      keys.map((k) => [k.name ?? '—', h('code', {}, k.hint), k.environment, k.scopes.join(', ') || '—', date(k.created_at), k.revoked_at ? `${t('claves.revoked')} ${date(k.revoked_at)}` : revoke(k)]),
    ),
    result,
    h('h2', {}, t('claves.create')),
    form({
      fields,
      submitLabel: t('claves.create'),
      validate: () => {
        const p = {};
        if (!fields.name.input.value.trim()) p.name = t('required');
        if (picker.book && !fields.scope_accounting.input.checked && !fields.scope_signing.input.checked) p.scope_signing = t('scopeRule');
        return p;
      },
      send: () =>
        api.post('/api-keys', {
          ...(picker.book ? { book: picker.book } : {}),
          environment: fields.environment.input.value,
          name: fields.name.input.value.trim(),
          ...(picker.book ? { scopes: ['accounting', 'signing'].filter((s) => fields[`scope_${s}`].input.checked) } : {}),
        }),
      onDone: async (created) => {
        await claves(root);
        root.querySelector('.result')?.replaceChildren(shownOnce(t('claves.newKey'), created.data.key));
      },
    }),
  );
}

let webhookEnv = 'live';

export async function webhooks(root) {
  const picker = await bookPicker(() => webhooks(root));
  const env = field('environment', t('environment'), {
    type: 'select',
    options: ['live', 'test'].map((e) => h('option', { value: e, selected: e === webhookEnv }, e)),
  });
  env.input.addEventListener('change', () => {
    webhookEnv = env.input.value;
    webhooks(root);
  });
  const endpoints = picker.book ? (await api.get(`/books/${encodeURIComponent(picker.book)}/webhook-endpoints?environment=${webhookEnv}`)).data : [];
  const result = h('div', { className: 'result' });
  const detail = h('div', { className: 'deliveries' });
  const redraw = async (message) => {
    await webhooks(root);
    if (message) root.querySelector('.result')?.replaceChildren(message);
  };
  const actions = (e) => {
    const box = h('div', { className: 'actions' });
    const b = (label, onclick) => h('button', { type: 'button', onclick, 'aria-label': `${label} ${e.url}` }, label);
    box.append(
      e.active ? b(t('webhooks.pause'), () => api.post(`/webhook-endpoints/${e.id}/pause`).then(() => redraw())) : b(t('webhooks.resume'), () => api.post(`/webhook-endpoints/${e.id}/resume`).then(() => redraw())),
      b(t('webhooks.rotate'), async () => {
        const r = await api.post(`/webhook-endpoints/${e.id}/rotate-secret`);
        await redraw(shownOnce(t('webhooks.newSecret'), r.data.secret));
      }),
      b(t('webhooks.deliveries'), () => showDeliveries(e, detail)),
      b(t('webhooks.remove'), () => {
        const yes = h('button', { type: 'button', className: 'danger', onclick: () => api.del(`/webhook-endpoints/${e.id}`).then(() => redraw()) }, t('webhooks.confirmYes'));
        const no = h('button', { type: 'button', onclick: () => redraw() }, t('cancel'));
        box.replaceChildren(h('span', { role: 'alert' }, t('webhooks.confirmRemove')), yes, no);
        yes.focus();
      }),
    );
    return box;
  };
  const fields = {
    url: field('url', t('webhooks.url'), { input: { placeholder: 'https://', inputmode: 'url' } }),
    secret: field('secret', t('webhooks.secret'), { input: { autocomplete: 'off' } }),
    ...Object.fromEntries(['document.authorized', 'document.rejected', 'document.failed'].map((ev) => [`ev_${ev}`, field(`ev_${ev}`, ev, { type: 'checkbox' })])),
  };
  root.replaceChildren(
    h('h1', {}, t('nav.webhooks')),
    h('div', { className: 'pickers' }, picker.el, env.el),
    table(
      [t('webhooks.url'), t('webhooks.active'), t('webhooks.lastStatus'), ''],
      endpoints.map((e) => [e.url, e.active ? t('yes') : t('webhooks.paused'), e.last_status ?? '—', actions(e)]),
    ),
    result,
    detail,
    h('h2', {}, t('webhooks.create')),
    form({
      fields,
      submitLabel: t('webhooks.create'),
      validate: () => {
        const p = {};
        const url = fields.url.input.value.trim();
        if (!url) p.url = t('required');
        else {
          try {
            if (new URL(url).protocol !== 'https:') p.url = t('httpsRule');
          } catch {
            p.url = t('urlRule');
          }
        }
        const secret = fields.secret.input.value;
        if (secret && secret.length < 8) p.secret = t('secretRule');
        if (!picker.book) p.url = t('book');
        return p;
      },
      send: () =>
        api.post(`/books/${encodeURIComponent(picker.book)}/webhook-endpoints`, {
          environment: webhookEnv,
          url: fields.url.input.value.trim(),
          ...(fields.secret.input.value ? { secret: fields.secret.input.value } : {}),
          events: ['document.authorized', 'document.rejected', 'document.failed'].filter((ev) => fields[`ev_${ev}`].input.checked),
        }),
      onDone: (created) => redraw(shownOnce(t('webhooks.newSecret'), created.data.secret)),
    }),
  );
}

async function showDeliveries(endpoint, box) {
  const list = (await api.get(`/webhook-endpoints/${endpoint.id}/deliveries`)).data;
  const rows = list.map((d) => [
    date(d.created_at),
    d.event ?? d.kind,
    h('span', { className: `state ${d.state}` }, d.state),
    h('ul', { className: 'attempts' }, d.attempts.map((a) => h('li', {}, `#${a.number} ${date(a.attempted_at)} — ${a.status ?? a.error ?? '—'}${a.response_body ? `: ${a.response_body.slice(0, 120)}` : ''}`))),
    d.state === 'failed'
      ? h('button', {
          type: 'button',
          onclick: async () => {
            await api.post(`/deliveries/${d.id}/resend`);
            await showDeliveries(endpoint, box);
            box.prepend(notice(t('webhooks.resent')));
          },
        }, t('webhooks.resend'))
      : '',
  ]);
  box.replaceChildren(h('h2', {}, `${t('webhooks.deliveries')}: ${endpoint.url}`), table([t('actividad.at'), t('actividad.name'), t('webhooks.state'), t('webhooks.attempts'), ''], rows));
}

export async function firmas(root) {
  const groups = (await api.get('/signing/pending')).data;
  const sections = groups.map((g) =>
    h(
      'section',
      { className: 'token' },
      h('h2', {}, g.token ? `${t('firmas.token')}: ${g.token.label ?? g.token.serial} (${g.token.present ? t('estado.present') : t('estado.absent')}) — ${t('firmas.tries')}: ${g.token.pin_tries}` : t('firmas.software')),
      g.signatures.map((s) => signatureRow(s, root)),
    ),
  );
  root.replaceChildren(h('h1', {}, t('nav.firmas')), h('div', { className: 'result' }), ...(sections.length ? sections : [h('p', { className: 'empty' }, t('none'))]));
}

function signatureRow(s, root) {
  const pin = field('pin', t('firmas.pin'), { type: 'password', input: { autocomplete: 'off', inputmode: 'numeric' } });
  const status = h('div', { className: 'form-status' });
  const approve = form({
    fields: { pin },
    submitLabel: t('firmas.approve'),
    errorField: 'pin',
    validate: () => (pin.input.value ? {} : { pin: t('pinRule') }),
    send: () => api.post(`/signing/pending/${s.id}/approve`, { pin: pin.input.value }),
    onDone: async (r) => {
      pin.input.value = '';
      const err = r.data.last_error;
      if (err) {
        // The request stays pending: say why beside the PIN, in Spanish from the server.
        pin.setError(err.message ?? err.code);
        pin.input.focus();
        return;
      }
      await firmas(root);
      root.querySelector('.result')?.replaceChildren(notice(t('firmas.approved')));
    },
  });
  const reject = h('button', {
    type: 'button',
    onclick: async () => {
      await api.post(`/signing/pending/${s.id}/reject`);
      await firmas(root);
      root.querySelector('.result')?.replaceChildren(notice(t('firmas.rejected')));
    },
  }, t('firmas.reject'));
  return h('div', { className: 'signature', 'data-signature': s.id }, h('p', {}, `${t('firmas.request')}: ${s.request_id}`), approve, reject, status);
}

export async function certificados(root) {
  const list = (await api.get('/certificates')).data;
  const soon = Date.now() + 30 * 24 * 3600 * 1000;
  root.replaceChildren(
    h('h1', {}, t('nav.certificados')),
    table(
      [t('certificados.subject'), t('certificados.type'), t('environment'), t('certificados.expiry'), t('certificados.status')],
      list.map((c) => {
        const expiry = Date.parse(c.expiry);
        const warn = expiry < Date.now() ? t('certificados.expired') : expiry < soon ? t('certificados.expiring') : '';
        return [c.principal?.name ?? c.id, c.type, c.environment, h('span', { className: warn ? 'warn' : '' }, `${date(c.expiry)} ${warn}`.trim()), c.status];
      }),
    ),
  );
}

export async function carpetas(root) {
  const list = (await api.get('/folders')).data;
  root.replaceChildren(
    h('h1', {}, t('nav.carpetas')),
    table([t('carpetas.path'), t('carpetas.certificate'), t('carpetas.queued')], list.map((f) => [f.path ?? f.id, f.certificate_id ?? '—', String(f.queued ?? f.counts?.queued ?? 0)])),
  );
}

let activityType = '';

export async function actividad(root) {
  const picker = await bookPicker(() => actividad(root), { allowAccount: false });
  const type = field('type', t('actividad.type'), {
    type: 'select',
    options: [['', t('actividad.all')], ['event', t('actividad.events')], ['signing', t('actividad.signing')]].map(([v, l]) => h('option', { value: v, selected: v === activityType }, l)),
  });
  type.input.addEventListener('change', () => {
    activityType = type.input.value;
    actividad(root);
  });
  const q = new URLSearchParams();
  if (picker.book) q.set('book', picker.book);
  if (activityType) q.set('type', activityType);
  const items = (await api.get(`/activity?${q}`)).data;
  root.replaceChildren(
    h('h1', {}, t('nav.actividad')),
    h('div', { className: 'pickers' }, picker.el, type.el),
    table([t('actividad.at'), t('actividad.name'), t('actividad.subject')], items.map((i) => [date(i.at), i.name, i.subject])),
  );
}
