// Small DOM helpers: elements are built, never parsed from strings, so data from the
// server can't inject markup (and the CSP forbids inline script anyway).
import { t } from './i18n.js';

/** `h('button', { type: 'button', onclick }, 'Guardar')` */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'className') el.className = value;
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A table with a header row; `rows` are arrays of cells. */
export function table(headers, rows) {
  if (rows.length === 0) return h('p', { className: 'empty' }, t('none'));
  return h('table', {}, h('thead', {}, h('tr', {}, headers.map((x) => h('th', { scope: 'col' }, x)))), h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c))))));
}

/** A status line announced to screen readers. */
export function notice(text, kind = 'ok') {
  return h('p', { className: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** A value the user must copy now (a new key or secret): selectable, announced. */
export function shownOnce(label, value) {
  return h('div', { className: 'shown-once', role: 'status' }, h('p', {}, h('strong', {}, label), ' — ', t('shownOnce')), h('code', { className: 'secret', 'data-testid': 'shown-once' }, value));
}

let fieldCounter = 0;

/**
 * A labelled field with its error slot beside it: `{ el, input, setError }`.
 * `type: 'checkbox'` puts the box before its label.
 */
export function field(name, label, attrs = {}) {
  const id = `f-${name}-${++fieldCounter}`;
  const errorId = `${id}-error`;
  const input = attrs.type === 'select' ? h('select', { id, name }, attrs.options) : h('input', { id, name, type: attrs.type ?? 'text', ...attrs.input });
  input.setAttribute('aria-describedby', errorId);
  const error = h('span', { className: 'field-error', id: errorId, 'data-field-error': name });
  const setError = (message) => {
    error.textContent = message ?? '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  const el =
    attrs.type === 'checkbox'
      ? h('div', { className: 'field checkbox' }, input, h('label', { for: id }, label), error)
      : h('div', { className: 'field' }, h('label', { for: id }, label), input, error);
  return { el, input, setError };
}

/**
 * Runs `validate` (field name → message) before sending: nothing invalid leaves the
 * page. Server errors by field land beside the same fields; others beside `errorField`.
 */
export function form({ fields, submitLabel, validate, send, onDone, errorField }) {
  const status = h('div', { className: 'form-status' });
  const button = h('button', { type: 'submit' }, submitLabel);
  const el = h('form', { novalidate: true }, Object.values(fields).map((f) => f.el), button, status);
  el.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.replaceChildren();
    for (const f of Object.values(fields)) f.setError(null);
    const problems = validate();
    const names = Object.keys(problems);
    if (names.length > 0) {
      for (const name of names) fields[name]?.setError(problems[name]);
      fields[names[0]]?.input.focus();
      return;
    }
    button.disabled = true;
    try {
      const result = await send();
      await onDone(result, status);
    } catch (err) {
      const byField = err?.fields ?? {};
      let placed = false;
      for (const [name, messages] of Object.entries(byField)) {
        const f = fieldFor(fields, name);
        if (f) {
          f.setError(messages.join(' '));
          placed = true;
        }
      }
      // An error about the form as a whole (a wrong PIN) goes beside its main field.
      if (!placed && errorField && fields[errorField]) {
        fields[errorField].setError(err.message);
        fields[errorField].input.focus();
      } else if (!placed) status.replaceChildren(notice(err.message, 'error'));
    } finally {
      button.disabled = false;
    }
  });
  return el;
}

/**
 * The form field a server error path belongs to: the field named exactly so
 * (`principal.first_name`), else the nearest enclosing one (`principal.address.country.code`
 * → `principal.address.country`), else the first segment (`events[0]` → `events`).
 */
function fieldFor(fields, path) {
  const parts = path.split(/\.|(?=\[)/);
  for (let n = parts.length; n > 0; n--) {
    const f = fields[parts.slice(0, n).join('.').replace(/\.\[/g, '[')];
    if (f) return f;
  }
  return undefined;
}

/** A file chosen in an `<input type="file">`, as base64 without the data-URL prefix. */
export function readFileBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('No se pudo leer el archivo.'));
    reader.readAsDataURL(file);
  });
}

/**
 * Saves `{ blob, filename }` (from `api.file`) as a download: an object URL on a link with
 * `download`, clicked and let go. The same in a browser and in the Electron window.
 */
export function saveFile({ blob, filename }) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
