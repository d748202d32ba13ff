// The screens of the admin UI (CONTRACT §14). Each is `async (root) => void`: it reads
// the admin API, draws into `root`, and redraws itself after a change.
import { api, ApiError } from './api.js';
import { field, form, h, notice, readFileBase64, saveFile, shownOnce, SLUG, table } from './dom.js';
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
      // CONTRACT §2: on the LAN, HTTPS; the fingerprint is what another computer checks it against.
      ...(s.tls
        ? [
            h('dt', {}, t('estado.localUrl')),
            h('dd', {}, s.local_url),
            h('dt', {}, t('estado.tlsFingerprint')),
            h('dd', { 'data-testid': 'tls-fingerprint', className: 'fingerprint' }, s.tls.fingerprint),
            ...(s.tls.ca_file ? [h('dt', {}, t('estado.tlsCa')), h('dd', {}, `${s.tls.ca_file} (SHA-256 ${s.tls.ca_fingerprint})`)] : []),
            h('dt', {}, t('estado.tlsNames')),
            h('dd', {}, s.tls.names.join(', ')),
            h('dt', {}, t('estado.tlsUntil')),
            h('dd', {}, date(s.tls.not_after)),
          ]
        : []),
      h('dt', {}, t('estado.version')),
      h('dd', {}, s.version),
      h('dt', {}, t('estado.modules')),
      h('dd', {}, s.pkcs11_modules.length ? s.pkcs11_modules.join(', ') : '—'),
      h('dt', {}, t('estado.tokens')),
      h('dd', {}, s.tokens.length ? s.tokens.map((k) => `${k.label ?? k.serial} (${k.present ? t('estado.present') : t('estado.absent')})`).join(', ') : '—'),
      h('dt', {}, t('estado.pending')),
      h('dd', { 'data-testid': 'pending-count' }, String(s.pending_signatures)),
      h('dt', {}, t('estado.pendingInvoices')),
      h('dd', { 'data-testid': 'pending-invoices-count' }, String(s.pending_invoices ?? 0)),
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

/** A token as the queue names it: label, plugged in or not, the PIN tries it reports. */
const tokenTitle = (token) =>
  `${t('firmas.token')}: ${token.label ?? token.serial} (${token.present ? t('estado.present') : t('estado.absent')}) — ${t('firmas.tries')}: ${t(`firmas.triesState.${token.pin_tries}`)}`;

export async function firmas(root) {
  const [groups, invoiceGroups] = await Promise.all([api.get('/signing/pending'), api.get('/fiscal/pending')]).then((r) => r.map((x) => x.data));
  const sections = groups.map((g) =>
    h('section', { className: 'token' }, h('h2', {}, g.token ? tokenTitle(g.token) : t('firmas.software')), g.signatures.map((s) => signatureRow(s, root))),
  );
  // CONTRACT §15: comprobantes whose issuer's certificate is on a token wait for its PIN too.
  const invoiceSections = invoiceGroups.map((g) => invoicesWaiting(g, root));
  const all = [...sections, ...invoiceSections];
  root.replaceChildren(h('h1', {}, t('nav.firmas')), h('div', { className: 'result' }), ...(all.length ? all : [h('p', { className: 'empty' }, t('none'))]));
}

/** A comprobante's type as the office calls it ("Factura", "Nota de crédito"…); the doc_type itself when unknown. */
function docTypeName(docType) {
  const names = t('docTypes');
  return (names && names[docType]) || docType;
}

/** The comprobantes waiting on one token, and the PIN that lets them all be signed and sent. */
function invoicesWaiting(g, root) {
  const pin = field('pin', t('firmas.pin'), { type: 'password', input: { autocomplete: 'off', inputmode: 'numeric' } });
  const give = form({
    fields: { pin },
    submitLabel: t('firmas.givePin'),
    errorField: 'pin',
    validate: () => (pin.input.value ? {} : { pin: t('pinRule') }),
    send: () => api.post('/fiscal/token-pin', { token_serial: g.token.serial, pin: pin.input.value }),
    onDone: async (r) => {
      await firmas(root);
      root.querySelector('.result')?.replaceChildren(notice(`${t('firmas.pinGiven')} ${r.data.waiting_invoices}`));
    },
  });
  const rows = g.invoices.map((i) => [[docTypeName(i.doc_type), ' ', h('code', {}, i.numero)], i.book, i.external_ref, i.environment, date(i.created_at), i.reason ?? t('firmas.waitingToken')]);
  return h(
    'section',
    { className: 'token invoices', 'data-token-invoices': g.token.serial ?? '' },
    h('h2', {}, `${t('firmas.invoices')} — ${tokenTitle(g.token)}`),
    table([t('firmas.numero'), t('book'), t('firmas.externalRef'), t('environment'), t('firmas.issued'), t('firmas.reason')], rows),
    give,
  );
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

/** A certificate's holder as people read it: names, else the id. */
const holder = (c) => [c.principal?.first_name, c.principal?.last_name].filter(Boolean).join(' ') || c.id;

/** The types the test form offers: those that need no organization and no RUC (spec, Certificate). */
const TEST_TYPES = ['ec/instant', 'ec/individual', 'jm/instant', 'pa/instant', 'pe/instant', 'br/instant', 'bo/instant', 'sv/instant', 'gt/instant', 'hn/instant', 'ni/instant'];
const VALIDITY_DAYS = [1, 365, 732, 1095, 1825];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const P12_MAX_BYTES = 1024 * 1024;

export async function certificados(root) {
  const [list, idTypes] = await Promise.all([api.get('/certificates').then((r) => r.data), api.get('/identification-types').then((r) => r.data)]);
  const soon = Date.now() + 30 * 24 * 3600 * 1000;
  const result = h('div', { className: 'result' });
  const redraw = async (message) => {
    await certificados(root);
    if (message) root.querySelector('.result')?.replaceChildren(message);
  };

  const p12 = {
    file_base64: field('file_base64', t('certificados.file'), { type: 'file', input: { accept: '.p12,.pfx,application/x-pkcs12' } }),
    password: field('password', t('certificados.password'), { type: 'password', input: { autocomplete: 'off' } }),
  };
  const importForm = form({
    fields: p12,
    submitLabel: t('certificados.import'),
    errorField: 'password',
    validate: () => {
      const p = {};
      const file = p12.file_base64.input.files?.[0];
      if (!file || file.size === 0) p.file_base64 = t('certificados.fileRule');
      else if (file.size > P12_MAX_BYTES) p.file_base64 = t('certificados.fileTooBig');
      if (!p12.password.input.value) p.password = t('certificados.passwordRule');
      return p;
    },
    send: async () => api.post('/certificates/p12', { file_base64: await readFileBase64(p12.file_base64.input.files[0]), password: p12.password.input.value }),
    onDone: (r) => redraw(notice(`${t('certificados.imported')} ${holder(r.data)}`)),
  });

  const option = (value, label, selected) => h('option', { value, selected }, label);
  const ec = idTypes.filter((i) => i.country === 'EC');
  const f = {
    type: field('type', t('certificados.type'), { type: 'select', options: TEST_TYPES.map((v) => option(v, v, v === 'ec/individual')) }),
    validity: field('validity', t('certificados.validity'), { type: 'select', options: VALIDITY_DAYS.map((d) => option(String(d), `${d} ${t('certificados.days')}`, d === 365)) }),
    'principal.first_name': field('principal.first_name', t('certificados.firstName'), { input: { autocomplete: 'off' } }),
    'principal.last_name': field('principal.last_name', t('certificados.lastName'), { input: { autocomplete: 'off' } }),
    'principal.email': field('principal.email', t('certificados.email'), { type: 'email', input: { autocomplete: 'off' } }),
    'principal.mobile_phone': field('principal.mobile_phone', t('certificados.mobile'), { type: 'tel', input: { autocomplete: 'off', placeholder: '+593 99 123 4567' } }),
    'principal.legal_id_type': field('principal.legal_id_type', t('certificados.legalIdType'), {
      type: 'select',
      options: [...ec, ...idTypes.filter((i) => i.country !== 'EC')].map((i) => option(i.code, `${i.name} (${i.country} ${i.authority_code})`, i.code === 'ec-cedula')),
    }),
    'principal.legal_id': field('principal.legal_id', t('certificados.legalId'), { input: { autocomplete: 'off', inputmode: 'numeric' } }),
    'principal.address.line_1': field('principal.address.line_1', t('certificados.line1')),
    'principal.address.locality': field('principal.address.locality', t('certificados.locality')),
    'principal.address.administrative_district_level_1': field('principal.address.administrative_district_level_1', t('certificados.district1')),
    'principal.address.administrative_district_level_2': field('principal.address.administrative_district_level_2', t('certificados.district2')),
    'principal.address.country': field('principal.address.country', t('certificados.country'), {
      type: 'select',
      options: [option('EC', 'Ecuador', true), option('PE', 'Perú')],
    }),
  };
  const value = (name) => f[name].input.value.trim();
  const issueForm = form({
    fields: f,
    submitLabel: t('certificados.issue'),
    validate: () => {
      const p = {};
      for (const name of Object.keys(f)) if (!value(name)) p[name] = t('required');
      if (value('principal.email') && !EMAIL.test(value('principal.email'))) p['principal.email'] = t('certificados.emailRule');
      if (value('principal.mobile_phone') && !/^\+?[\d ]{6,20}$/.test(value('principal.mobile_phone'))) p['principal.mobile_phone'] = t('certificados.mobileRule');
      if (value('type').endsWith('/instant') && value('validity') !== '1') p.validity = t('certificados.instantRule');
      return p;
    },
    send: () => {
      const idType = idTypes.find((i) => i.code === value('principal.legal_id_type'));
      const country = value('principal.address.country');
      return api.post('/test-certificates', {
        type: value('type'),
        validity: Number(value('validity')),
        principal: {
          first_name: value('principal.first_name'),
          last_name: value('principal.last_name'),
          email: value('principal.email'),
          mobile_phone: value('principal.mobile_phone'),
          legal_id: value('principal.legal_id'),
          legal_id_type: { type: idType.code, code: idType.authority_code, name: idType.name },
          address: {
            line_1: value('principal.address.line_1'),
            locality: value('principal.address.locality'),
            administrative_district_level_1: value('principal.address.administrative_district_level_1'),
            administrative_district_level_2: value('principal.address.administrative_district_level_2'),
            country: { code: country, name: country === 'PE' ? 'Perú' : 'Ecuador' },
          },
        },
      });
    },
    onDone: (r) => redraw(notice(`${t('certificados.issued')} ${holder(r.data ?? r)}`)),
  });

  root.replaceChildren(
    h('h1', {}, t('nav.certificados')),
    table(
      [t('certificados.subject'), t('certificados.type'), t('environment'), t('certificados.expiry'), t('certificados.status')],
      list.map((c) => {
        const expiry = Date.parse(c.expiry);
        const warn = expiry < Date.now() ? t('certificados.expired') : expiry < soon ? t('certificados.expiring') : '';
        return [holder(c), c.type, c.environment, h('span', { className: warn ? 'warn' : '' }, `${date(c.expiry)} ${warn}`.trim()), c.status];
      }),
    ),
    result,
    h('h2', {}, t('certificados.importTitle')),
    importForm,
    h('h2', {}, t('certificados.testTitle')),
    issueForm,
  );
}

let issuerEnv = 'live';

const SERIES = /^(?!000)\d{3}$/;
const REGIMES = ['general', 'rimpe_emprendedor', 'rimpe_negocio_popular'];

/** The issuer of a book and environment, or null when it has none (404). */
async function readIssuer(book, environment) {
  try {
    return (await api.get(`/books/${encodeURIComponent(book)}/issuer?environment=${environment}`)).data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** "001, 002 002;003" → ['001', '002', '002', '003'] */
const pointsOf = (text) => text.split(/[\s,;]+/).filter(Boolean);

/**
 * The Emisor screen (CONTRACT §15): the issuer of the chosen book and environment, and a form
 * that stores it through the same checks as `PUT /api/v1/issuer` (errors land beside their
 * fields, `establishments[0].emission_points[1]` beside that establishment's points).
 */
export async function emisor(root) {
  const picker = await bookPicker(() => emisor(root));
  const env = field('environment', t('environment'), {
    type: 'select',
    options: ['live', 'test'].map((e) => h('option', { value: e, selected: e === issuerEnv }, e)),
  });
  env.input.addEventListener('change', () => {
    issuerEnv = env.input.value;
    emisor(root);
  });
  const [certs, current] = await Promise.all([api.get('/certificates').then((r) => r.data), picker.book ? readIssuer(picker.book, issuerEnv) : null]);
  const result = h('div', { className: 'result' });
  const redraw = async (...messages) => {
    await emisor(root);
    root.querySelector('.result')?.replaceChildren(...messages);
  };

  // A live issuer signs with live certificates; a test one with test or live ones (CONTRACT §15).
  const usable = (c) => c.status === 'issued' && Date.parse(c.expiry) > Date.now() && (issuerEnv === 'test' || c.environment === 'live');
  const choices = certs.filter((c) => usable(c) || c.id === current?.certificate_id).sort((a, b) => (a.environment === issuerEnv ? -1 : 0) - (b.environment === issuerEnv ? -1 : 0));
  const certLabel = (c) => `${holder(c)} — ${c.type} (${c.environment}), ${t('certificados.expiry').toLowerCase()} ${date(c.expiry)}${usable(c) ? '' : ` — ${t('emisor.unusable')}`}`;
  const text = (name, label, value, attrs = {}) => field(name, label, { input: { autocomplete: 'off', value: value ?? '', ...attrs } });

  const fields = {
    ruc: text('ruc', t('emisor.ruc'), current?.ruc, { inputmode: 'numeric', maxlength: 13 }),
    razon_social: text('razon_social', t('emisor.razonSocial'), current?.razon_social, { maxlength: 300 }),
    nombre_comercial: text('nombre_comercial', t('emisor.nombreComercial'), current?.nombre_comercial, { maxlength: 300 }),
    dir_matriz: text('dir_matriz', t('emisor.dirMatriz'), current?.dir_matriz, { maxlength: 300 }),
    obligado_contabilidad: field('obligado_contabilidad', t('emisor.obligado'), { type: 'checkbox', input: { checked: current?.obligado_contabilidad ?? false } }),
    contribuyente_especial: text('contribuyente_especial', t('emisor.contribuyenteEspecial'), current?.contribuyente_especial, { maxlength: 13 }),
    agente_retencion: text('agente_retencion', t('emisor.agenteRetencion'), current?.agente_retencion, { inputmode: 'numeric', maxlength: 8 }),
    regimen: field('regimen', t('emisor.regimen'), {
      type: 'select',
      options: [h('option', { value: '' }, t('emisor.regimenNone')), ...REGIMES.map((r) => h('option', { value: r, selected: r === current?.regimen }, t(`emisor.${r}`)))],
    }),
    certificate_id: field('certificate_id', t('emisor.certificate'), {
      type: 'select',
      options: [h('option', { value: '' }, '—'), ...choices.map((c) => h('option', { value: c.id, selected: c.id === current?.certificate_id }, certLabel(c)))],
    }),
  };

  // Establishments: rows drawn from `rows`; each row's fields join `fields` under their server
  // path (`establishments[0].code`) so that errors of either side land beside them.
  let rows = (current?.establishments ?? [{ code: '001', address: '', emission_points: ['001'] }]).map((e) => ({ code: e.code, address: e.address, points: e.emission_points.join(', ') }));
  const list = h('div', { className: 'establishment-list' });
  const add = h('button', { type: 'button', onclick: () => drawRows([...readRows(), { code: '', address: '', points: '001' }], true) }, t('emisor.addEstablishment'));
  const listError = h('span', { className: 'field-error', id: 'establishments-error', 'data-field-error': 'establishments', role: 'alert' });
  fields.establishments = {
    el: h('fieldset', { className: 'establishments' }, h('legend', {}, t('emisor.establishments')), list, add, listError),
    input: add,
    setError: (message) => {
      listError.textContent = message ?? '';
    },
  };
  const rowKeys = (i) => [`establishments[${i}].code`, `establishments[${i}].address`, `establishments[${i}].emission_points`];
  const readRows = () =>
    rows.map((_, i) => {
      const [code, address, points] = rowKeys(i).map((k) => fields[k].input.value);
      return { code, address, points };
    });
  const drawRows = (next, focusLast = false) => {
    rows.forEach((_, i) => rowKeys(i).forEach((k) => delete fields[k]));
    rows = next;
    list.replaceChildren(
      ...rows.map((row, i) => {
        const [codeKey, addressKey, pointsKey] = rowKeys(i);
        fields[codeKey] = text(codeKey, t('emisor.code'), row.code, { inputmode: 'numeric', maxlength: 3, placeholder: '001' });
        fields[addressKey] = text(addressKey, t('emisor.address'), row.address, { maxlength: 300 });
        fields[pointsKey] = text(pointsKey, t('emisor.points'), row.points, { placeholder: '001, 002' });
        const remove = h('button', { type: 'button', className: 'secondary', onclick: () => drawRows(readRows().filter((__, j) => j !== i)) }, t('emisor.removeEstablishment'));
        return h('fieldset', { className: 'establishment', 'data-establishment': i }, h('legend', {}, `${t('emisor.establishment')} ${i + 1}`), fields[codeKey].el, fields[addressKey].el, fields[pointsKey].el, remove);
      }),
    );
    if (focusLast && rows.length) fields[rowKeys(rows.length - 1)[0]].input.focus();
  };

  const v = (name) => fields[name].input.value.trim();
  const validate = () => {
    const p = {};
    if (!v('ruc')) p.ruc = t('required');
    else if (!/^\d{10}001$/.test(v('ruc'))) p.ruc = t('emisor.rucRule');
    for (const name of ['razon_social', 'dir_matriz']) if (!v(name)) p[name] = t('required');
    if (v('contribuyente_especial') && !/^[A-Za-z0-9]{3,13}$/.test(v('contribuyente_especial'))) p.contribuyente_especial = t('emisor.contribuyenteRule');
    if (v('agente_retencion') && !/^\d{1,8}$/.test(v('agente_retencion'))) p.agente_retencion = t('emisor.agenteRule');
    if (!v('certificate_id')) p.certificate_id = t('emisor.certRule');
    if (rows.length === 0) p.establishments = t('emisor.oneEstablishment');
    const codes = new Set();
    rows.forEach((_, i) => {
      const [codeKey, addressKey, pointsKey] = rowKeys(i);
      if (!SERIES.test(v(codeKey))) p[codeKey] = t('emisor.codeRule');
      else if (codes.has(v(codeKey))) p[codeKey] = t('emisor.duplicateRule');
      codes.add(v(codeKey));
      if (!v(addressKey)) p[addressKey] = t('required');
      const points = pointsOf(v(pointsKey));
      if (points.length === 0 || !points.every((x) => SERIES.test(x))) p[pointsKey] = t('emisor.pointsRule');
      else if (new Set(points).size !== points.length) p[pointsKey] = t('emisor.duplicateRule');
    });
    return p;
  };
  const optional = (name) => (v(name) ? { [name]: v(name) } : {});
  const send = () =>
    api.put(`/books/${encodeURIComponent(picker.book)}/issuer?environment=${issuerEnv}`, {
      country: 'EC',
      ruc: v('ruc'),
      razon_social: v('razon_social'),
      ...optional('nombre_comercial'),
      dir_matriz: v('dir_matriz'),
      establishments: rows.map((_, i) => {
        const [codeKey, addressKey, pointsKey] = rowKeys(i);
        return { code: v(codeKey), address: v(addressKey), emission_points: pointsOf(v(pointsKey)) };
      }),
      obligado_contabilidad: fields.obligado_contabilidad.input.checked,
      ...optional('contribuyente_especial'),
      ...optional('agente_retencion'),
      ...optional('regimen'),
      certificate_id: v('certificate_id'),
    });
  const editor = picker.book
    ? form({
        fields,
        submitLabel: t('emisor.save'),
        validate,
        send,
        onDone: (r) => redraw(notice(t('emisor.saved')), ...Object.values(r.meta?.notes ?? {}).map((n) => notice(`${t('emisor.note')} ${n}`, 'warn'))),
      })
    : '';
  drawRows(rows);

  const byId = new Map(certs.map((c) => [c.id, c]));
  const summary = current
    ? h(
        'dl',
        { className: 'facts', 'data-testid': 'issuer' },
        h('dt', {}, t('emisor.ruc')),
        h('dd', {}, current.ruc),
        h('dt', {}, t('emisor.razonSocial')),
        h('dd', {}, current.razon_social),
        h('dt', {}, t('emisor.establishments')),
        h('dd', {}, current.establishments.map((e) => `${e.code} (${e.emission_points.join(', ')})`).join('; ')),
        h('dt', {}, t('emisor.certificate')),
        h('dd', {}, byId.has(current.certificate_id) ? certLabel(byId.get(current.certificate_id)) : current.certificate_id),
        h('dt', {}, t('emisor.updated')),
        h('dd', {}, date(current.updated_at)),
      )
    : h('p', { className: 'empty' }, t('emisor.none'));

  root.replaceChildren(
    h('h1', {}, t('nav.emisor')),
    h('p', {}, t('emisor.intro')),
    h('div', { className: 'pickers' }, picker.el, env.el),
    current ? h('h2', {}, t('emisor.current')) : '',
    summary,
    result,
    h('h2', {}, t('emisor.edit')),
    h('p', { className: 'empty' }, issuerEnv === 'live' ? t('emisor.certHelpLive') : t('emisor.certHelpTest')),
    choices.length ? '' : notice(t('emisor.noCerts'), 'error'),
    editor,
  );
}

let comprobantesEnv = 'live';
let comprobantesStatus = '';

const COMPROBANTES_PAGE = 50;
const COMPROBANTE_STATUSES = ['pending', 'signed', 'sent', 'authorized', 'rejected', 'failed'];

/** `2026-03-10` as the office reads a date, without the time zone moving it a day. */
const issueDate = (ymd) => (/^\d{4}-\d{2}-\d{2}$/.test(ymd) ? new Date(`${ymd}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC' }) : ymd);

/**
 * The Comprobantes screen (CONTRACT §14, §15): what Sello issued to the SRI in the chosen book
 * and environment, newest first, filtered by state, a page at a time ("Más"); each with its
 * state (and the SRI's message when it went wrong), its RIDE and, once authorized, its XML.
 * Files are fetched with the session and saved from the page, so an error shows here.
 */
export async function comprobantes(root) {
  const picker = await bookPicker(() => comprobantes(root));
  const env = field('environment', t('environment'), {
    type: 'select',
    options: ['live', 'test'].map((e) => h('option', { value: e, selected: e === comprobantesEnv }, e)),
  });
  env.input.addEventListener('change', () => {
    comprobantesEnv = env.input.value;
    comprobantes(root);
  });
  const status = field('status', t('comprobantes.status'), {
    type: 'select',
    options: [h('option', { value: '' }, t('comprobantes.allStatuses')), ...COMPROBANTE_STATUSES.map((s) => h('option', { value: s, selected: s === comprobantesStatus }, t(`comprobantes.states.${s}`)))],
  });
  status.input.addEventListener('change', () => {
    comprobantesStatus = status.input.value;
    comprobantes(root);
  });
  const heading = [h('h1', {}, t('nav.comprobantes')), h('p', {}, t('comprobantes.intro')), h('div', { className: 'pickers' }, picker.el, env.el, status.el)];
  if (!picker.book) {
    root.replaceChildren(...heading, h('p', { className: 'empty' }, t('comprobantes.none')));
    return;
  }

  const path = (offset) => {
    const q = new URLSearchParams({ book: picker.book, environment: comprobantesEnv, limit: String(COMPROBANTES_PAGE), offset: String(offset) });
    if (comprobantesStatus) q.set('status', comprobantesStatus);
    return `/fiscal/comprobantes?${q}`;
  };
  const result = h('div', { className: 'result' });
  const list = await pagedList({ path, row: (c) => comprobanteRow(c, result), result });

  const headers = [t('comprobantes.type'), t('comprobantes.numero'), t('comprobantes.date'), t('comprobantes.party'), t('comprobantes.total'), t('comprobantes.status'), t('comprobantes.files')];
  root.replaceChildren(
    ...heading,
    h('div', { className: 'actions' }, h('button', { type: 'button', onclick: () => comprobantes(root) }, t('comprobantes.refresh'))),
    result,
    ...(list.total === 0
      ? [h('p', { className: 'empty' }, comprobantesStatus ? t('comprobantes.noneStatus') : t('comprobantes.none'))]
      : [
          h('table', { className: 'comprobantes' }, h('thead', {}, h('tr', {}, headers.map((x, i) => h('th', { scope: 'col', className: i === 4 ? 'amount' : undefined }, x)))), list.tbody),
          list.footer,
        ]),
  );
}

/**
 * A list of the admin API read a page at a time: `path(offset)` is the page's address, `row`
 * draws one item. Resolves once the first page is in, with `total` (as the server counted it),
 * the `tbody` that grows, and the footer with "Mostrando n de total" and "Más".
 */
async function pagedList({ path, row, result }) {
  const first = await api.get(path(0));
  const tbody = h('tbody');
  const shown = h('p', { className: 'empty', role: 'status' });
  const more = h('button', { type: 'button' }, t('comprobantes.more'));
  // Rows asked for so far (the next page's offset), and those shown: an item added meanwhile
  // moves the older ones down a place, and one already shown is not shown twice.
  let fetched = 0;
  const seen = new Set();
  const add = (page) => {
    const fresh = page.data.filter((item) => !seen.has(item.id));
    for (const item of fresh) seen.add(item.id);
    tbody.append(...fresh.map(row));
    fetched += page.data.length;
    shown.textContent = t('comprobantes.shown').replace('{n}', String(seen.size)).replace('{total}', String(page.meta.total));
    more.hidden = fetched >= page.meta.total || page.data.length === 0;
  };
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      add(await api.get(path(fetched)));
    } catch (err) {
      result.replaceChildren(notice(err.message, 'error'));
    } finally {
      more.disabled = false;
    }
    // The button goes away with the last page: focus stays near, on the count.
    if (more.hidden) {
      shown.tabIndex = -1;
      shown.focus();
    }
  });
  add(first);
  return { total: first.meta.total, tbody, footer: h('div', { className: 'list-footer' }, shown, more) };
}

/** One comprobante: type, number, date, party, total, state with the SRI's word, and its files. */
function comprobanteRow(c, result) {
  const name = `${docTypeName(c.doc_type)} ${c.numero}`;
  const download = (what, extension) => async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    result.replaceChildren();
    try {
      saveFile(await api.file(`/fiscal/comprobantes/${encodeURIComponent(c.id)}/${what}`, `${c.doc_type}-${c.numero}.${extension}`));
    } catch (err) {
      result.replaceChildren(notice(`${name}: ${err.message}`, 'error'));
    } finally {
      button.disabled = false;
      // Disabling the focused button may have dropped the focus: give it back.
      if (document.activeElement === document.body) button.focus();
    }
  };
  const authorized = c.status === 'authorized';
  const problem = c.status === 'rejected' || c.status === 'failed' ? c.failure_reason || c.sri?.last_error : null;
  // A comprobante on its way may carry why it waits (the SRI out of reach, a token without its PIN).
  const note = !problem && !authorized ? c.sri?.last_error : null;
  const cells = [
    docTypeName(c.doc_type),
    h('code', { className: 'numero' }, c.numero),
    issueDate(c.issue_date),
    c.party ? [c.party.name, c.party.tax_id ? h('span', { className: 'sub' }, c.party.tax_id) : ''] : '—',
    // A remission guide carries goods, not amounts.
    c.kind === 'remission_guide' ? '—' : `${c.grand_total} ${c.currency}`,
    [
      h('span', { className: `state ${c.status}`, 'data-status': c.status }, t(`comprobantes.states.${c.status}`)),
      // A rejection is the SRI's word; a failure may be Sello's (a certificate that could not sign).
      problem ? h('span', { className: 'sub sri-error' }, c.status === 'rejected' ? `${t('comprobantes.sriSays')} ${problem}` : problem) : '',
      note ? h('span', { className: 'sub' }, note) : '',
    ],
    h(
      'div',
      { className: 'actions' },
      h('button', { type: 'button', 'aria-label': `${t('comprobantes.ride')} — ${name}`, onclick: download('ride', 'pdf') }, t('comprobantes.ride')),
      h('button', {
        type: 'button',
        'aria-label': `${t('comprobantes.xml')} — ${name}`,
        disabled: !authorized,
        title: authorized ? undefined : t('comprobantes.xmlNotReady'),
        onclick: download('xml', 'xml'),
      }, t('comprobantes.xml')),
    ),
  ];
  return h('tr', { 'data-comprobante': c.id }, cells.map((cell, i) => h('td', { className: i === 4 ? 'amount' : undefined }, cell)));
}

let comprasEnv = 'live';

const PURCHASES_PAGE = 50;
const ACCESS_KEY = /^\d{49}$/;
/** What `POST /api/v1/purchases` takes as `xml`: 2 MB of text (CONTRACT §15). */
const PURCHASE_XML_MAX_BYTES = 2 * 1024 * 1024;

/**
 * The Compras recibidas screen (CONTRACT §14, §15): the facturas suppliers issued to the chosen
 * book, recorded in the chosen environment, newest first, a page at a time ("Más"), each with
 * the comprobantes de retención Sello issued for it; and "Registrar compra", by access key
 * (Sello asks the SRI) or by the XML received by e-mail (read here as text). The server's
 * reasons for refusing one land beside the field they are about.
 */
export async function compras(root) {
  const picker = await bookPicker(() => compras(root));
  const env = field('environment', t('environment'), {
    type: 'select',
    options: ['live', 'test'].map((e) => h('option', { value: e, selected: e === comprasEnv }, e)),
  });
  env.input.addEventListener('change', () => {
    comprasEnv = env.input.value;
    compras(root);
  });
  const heading = [h('h1', {}, t('compras.title')), h('p', {}, t('compras.intro')), h('div', { className: 'pickers' }, picker.el, env.el)];
  if (!picker.book) {
    root.replaceChildren(...heading, h('p', { className: 'empty' }, t('compras.none')));
    return;
  }
  const book = picker.book;
  const environment = comprasEnv;
  const result = h('div', { className: 'result' });
  const redraw = async (message) => {
    await compras(root);
    if (message) root.querySelector('.result')?.replaceChildren(message);
  };

  const f = {
    access_key: field('access_key', t('compras.accessKey'), { input: { inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false' } }),
    xml: field('xml', t('compras.xml'), { type: 'file', input: { accept: '.xml,application/xml,text/xml' } }),
  };
  // A key copied from a RIDE or an e-mail may come with spaces or line breaks.
  const key = () => f.access_key.input.value.replace(/\s+/g, '');
  const recordForm = form({
    fields: f,
    submitLabel: t('compras.submit'),
    validate: () => {
      const file = f.xml.input.files?.[0];
      if (!key() && !file) return { access_key: t('compras.oneRule') };
      if (key() && file) return { access_key: t('compras.bothRule') };
      if (key() && !ACCESS_KEY.test(key())) return { access_key: t('compras.keyRule') };
      if (file && file.size === 0) return { xml: t('compras.fileEmpty') };
      if (file && file.size > PURCHASE_XML_MAX_BYTES) return { xml: t('compras.fileTooBig') };
      return {};
    },
    send: async () => {
      // Asking the SRI may take a few seconds: say so, where the answer will be.
      result.replaceChildren(notice(t('compras.checking')));
      try {
        const body = key() ? { book, environment, access_key: key() } : { book, environment, xml: await f.xml.input.files[0].text() };
        return await api.post('/fiscal/purchases', body);
      } finally {
        result.replaceChildren();
      }
    },
    onDone: (r) => redraw(notice(`${t('compras.recorded')} ${docTypeName(r.data.doc_type)} ${r.data.numero} — ${r.data.supplier.name} (${r.data.grand_total} ${r.data.currency}).`)),
  });

  const path = (offset) => `/fiscal/purchases?${new URLSearchParams({ book, environment, limit: String(PURCHASES_PAGE), offset: String(offset) })}`;
  const list = await pagedList({ path, row: purchaseRow, result });
  const headers = [t('compras.supplier'), t('compras.ruc'), t('compras.numero'), t('compras.date'), t('compras.total'), t('compras.withholdings'), t('compras.source')];
  root.replaceChildren(
    ...heading,
    h('h2', {}, t('compras.record')),
    h('p', {}, t('compras.recordHelp')),
    recordForm,
    result,
    h('h2', {}, t('compras.list')),
    h('div', { className: 'actions' }, h('button', { type: 'button', onclick: () => compras(root) }, t('comprobantes.refresh'))),
    ...(list.total === 0
      ? [h('p', { className: 'empty' }, t('compras.none'))]
      : [
          h('table', { className: 'compras' }, h('thead', {}, h('tr', {}, headers.map((x, i) => h('th', { scope: 'col', className: i === 4 ? 'amount' : undefined }, x)))), list.tbody),
          list.footer,
        ]),
  );
}

/** One purchase: supplier, RUC, number, date, total, the withholdings issued for it with their state, and where Sello read it. */
function purchaseRow(p) {
  const withholdings = p.withholdings.length
    ? h(
        'ul',
        { className: 'withholdings' },
        p.withholdings.map((w) =>
          h('li', { 'data-withholding': w.id }, h('code', { className: 'numero' }, w.numero), ' ', h('span', { className: `state ${w.status}`, 'data-status': w.status }, t(`comprobantes.states.${w.status}`))),
        ),
      )
    : h('span', { className: 'empty' }, t('compras.noWithholdings'));
  const cells = [
    [p.supplier.name, p.supplier.trade_name && p.supplier.trade_name !== p.supplier.name ? h('span', { className: 'sub' }, p.supplier.trade_name) : ''],
    h('code', {}, p.supplier.ruc),
    h('code', { className: 'numero' }, p.numero),
    issueDate(p.issue_date),
    `${p.grand_total} ${p.currency}`,
    withholdings,
    t(`compras.sources.${p.source}`),
  ];
  return h('tr', { 'data-purchase': p.id }, cells.map((cell, i) => h('td', { className: i === 4 ? 'amount' : undefined }, cell)));
}

const PAGE = /^(?:last|[1-9]\d*)$/;
const COORD = /^\d+(?:\.\d+)?$/;

export async function carpetas(root) {
  const [list, certs] = await Promise.all([api.get('/folders').then((r) => r.data), api.get('/certificates').then((r) => r.data)]);
  const byId = new Map(certs.map((c) => [c.id, c]));
  const usable = certs.filter((c) => c.status === 'issued' && Date.parse(c.expiry) > Date.now());
  const result = h('div', { className: 'result' });
  const redraw = async (message) => {
    await carpetas(root);
    if (message) root.querySelector('.result')?.replaceChildren(message);
  };
  const count = (f, kind, n) => h('span', { className: `count ${kind}`, 'data-count': kind, 'data-folder': f.folder }, String(n));
  const actions = (f) => {
    const box = h('div', { className: 'actions' });
    box.append(
      h('button', {
        type: 'button',
        'aria-label': `${t('carpetas.remove')} ${f.folder}`,
        onclick: () => {
          const yes = h('button', { type: 'button', className: 'danger', onclick: () => api.del(`/folders/${encodeURIComponent(f.id)}`).then(() => redraw(notice(`${t('carpetas.removed')} ${f.folder}`))) }, t('carpetas.confirmYes'));
          const no = h('button', { type: 'button', onclick: () => redraw() }, t('cancel'));
          box.replaceChildren(h('span', { role: 'alert' }, t('carpetas.confirmRemove')), yes, no);
          yes.focus();
        },
      }, t('carpetas.remove')),
    );
    return box;
  };
  const fields = {
    folder: field('folder', t('carpetas.path'), { input: { autocomplete: 'off', placeholder: '/srv/facturas' } }),
    certificate: field('certificate', t('carpetas.certificate'), {
      type: 'select',
      options: [h('option', { value: '' }, '—'), ...usable.map((c) => h('option', { value: c.id }, `${holder(c)} — ${c.type} (${c.environment}), ${t('certificados.expiry').toLowerCase()} ${date(c.expiry)}`))],
    }),
    page: field('page', t('carpetas.page'), { input: { value: '1', autocomplete: 'off' } }),
    x: field('x', t('carpetas.x'), { input: { inputmode: 'decimal', autocomplete: 'off' } }),
    y: field('y', t('carpetas.y'), { input: { inputmode: 'decimal', autocomplete: 'off' } }),
    size: field('size', t('carpetas.size'), {
      type: 'select',
      options: [['s', t('carpetas.small')], ['m', t('carpetas.medium')], ['l', t('carpetas.large')]].map(([v, l]) => h('option', { value: v }, l)),
    }),
    poll: field('poll', t('carpetas.poll'), { type: 'checkbox' }),
  };
  const v = (name) => fields[name].input.value.trim();
  root.replaceChildren(
    h('h1', {}, t('nav.carpetas')),
    h('div', { className: 'actions' }, h('button', { type: 'button', onclick: () => redraw() }, t('carpetas.refresh'))),
    table(
      [t('carpetas.path'), t('carpetas.certificate'), t('carpetas.stamp'), t('carpetas.done'), t('carpetas.waitingPin'), t('carpetas.failed'), t('carpetas.queued'), ''],
      list.map((f) => {
        const c = byId.get(f.certificate);
        return [
          h('code', {}, f.folder),
          c ? holder(c) : f.certificate,
          `${f.page}, ${f.x}, ${f.y}, ${f.size}${f.poll ? ' · poll' : ''}`,
          count(f, 'done', f.done ?? 0),
          count(f, 'waiting_pin', f.pending?.waiting_pin ?? 0),
          count(f, 'failed', f.failed ?? 0),
          count(f, 'queued', f.pending?.queued ?? 0),
          actions(f),
        ];
      }),
    ),
    result,
    h('h2', {}, t('carpetas.add')),
    usable.length ? '' : notice(t('carpetas.noCerts'), 'error'),
    form({
      fields,
      submitLabel: t('carpetas.add'),
      validate: () => {
        const p = {};
        if (!v('folder')) p.folder = t('required');
        if (!v('certificate')) p.certificate = t('carpetas.certRule');
        if (!PAGE.test(v('page'))) p.page = v('page') ? t('carpetas.pageRule') : t('required');
        for (const k of ['x', 'y']) if (v(k) && !COORD.test(v(k))) p[k] = t('carpetas.coordRule');
        return p;
      },
      send: () =>
        api.post('/folders', {
          folder: v('folder'),
          certificate: v('certificate'),
          page: v('page') === 'last' ? 'last' : Number(v('page')),
          ...(v('x') ? { x: Number(v('x')) } : {}),
          ...(v('y') ? { y: Number(v('y')) } : {}),
          size: v('size'),
          poll: fields.poll.input.checked,
        }),
      onDone: (r) => redraw(notice(`${t('carpetas.added')} ${r.data.folder}`)),
    }),
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
