// One dictionary per language (CONTRACT §14: Spanish first, English available).
// A missing English text falls back to Spanish, never to a key.
const es = {
  title: 'Sello — administración',
  language: 'Idioma',
  nav: { estado: 'Estado', libros: 'Libros', claves: 'Claves API', webhooks: 'Webhooks', firmas: 'Firmas pendientes', certificados: 'Certificados', carpetas: 'Carpetas', actividad: 'Actividad' },
  loading: 'Cargando…',
  noSession: 'No hay una sesión de administración. Abra el enlace de un solo uso que muestra «sello serve», o abra Sello desde la bandeja.',
  book: 'Libro',
  account: 'Cuenta (familia A)',
  environment: 'Entorno',
  none: 'No hay elementos.',
  yes: 'Sí',
  no: 'No',
  save: 'Guardar',
  cancel: 'Cancelar',
  required: 'Obligatorio.',
  slugRule: 'Use minúsculas, números y guiones (hasta 64 caracteres).',
  httpsRule: 'La URL debe empezar por https://',
  urlRule: 'No es una URL válida.',
  secretRule: 'El secreto debe tener al menos 8 caracteres.',
  scopeRule: 'Elija al menos un ámbito.',
  pinRule: 'Escriba el PIN del token.',
  shownOnce: 'Cópielo ahora: no se volverá a mostrar.',
  estado: { server: 'Servidor', version: 'Versión', modules: 'Módulos PKCS#11', tokens: 'Tokens conectados', pending: 'Firmas pendientes', failed: 'Entregas fallidas', lastErrors: 'Últimos errores', present: 'conectado', absent: 'no conectado' },
  libros: { slug: 'Identificador', tenant: 'Oficina (tenant)', name: 'Nombre', accountingApi: 'API contable (accounting_api)', create: 'Crear libro', created: 'Libro creado.' },
  claves: { name: 'Nombre', hint: 'Clave', scopes: 'Ámbitos', created: 'Creada', revoked: 'Revocada', revoke: 'Revocar', create: 'Crear clave', newKey: 'Clave nueva', active: 'activa', revokedDone: 'Clave revocada.' },
  webhooks: { url: 'URL', secret: 'Secreto (opcional: si lo deja vacío, Sello crea uno)', events: 'Eventos (ninguno = todos)', active: 'Activo', lastStatus: 'Último estado', create: 'Crear destino', newSecret: 'Secreto del destino', pause: 'Pausar', resume: 'Reanudar', rotate: 'Rotar secreto', remove: 'Eliminar', confirmRemove: '¿Eliminar este destino? No se enviará nada más a él.', confirmYes: 'Sí, eliminar', deliveries: 'Entregas', paused: 'pausado', attempts: 'Intentos', resend: 'Reenviar', resent: 'Entrega reenviada.', state: 'Estado', response: 'Respuesta' },
  firmas: { token: 'Token', tries: 'Intentos de PIN', request: 'Solicitud', pin: 'PIN', approve: 'Aprobar', reject: 'Rechazar', approved: 'Firma aprobada.', rejected: 'Firma rechazada.', software: 'Certificado de software' },
  certificados: { subject: 'Titular', type: 'Tipo', expiry: 'Vence', status: 'Estado', expiring: 'vence pronto', expired: 'vencido' },
  carpetas: { path: 'Carpeta', certificate: 'Certificado', queued: 'En cola' },
  actividad: { type: 'Tipo', all: 'Todo', events: 'Eventos de documentos', signing: 'Solicitudes de firma', at: 'Fecha', name: 'Qué', subject: 'Sobre' },
};

const en = {
  title: 'Sello — administration',
  language: 'Language',
  nav: { estado: 'Status', libros: 'Books', claves: 'API keys', webhooks: 'Webhooks', firmas: 'Pending signatures', certificados: 'Certificates', carpetas: 'Folders', actividad: 'Activity' },
  loading: 'Loading…',
  noSession: 'There is no admin session. Open the one-time link printed by "sello serve", or open Sello from the tray.',
  book: 'Book',
  account: 'Account (family A)',
  environment: 'Environment',
  none: 'Nothing here.',
  yes: 'Yes',
  no: 'No',
  save: 'Save',
  cancel: 'Cancel',
  required: 'Required.',
  slugRule: 'Use lowercase letters, digits and hyphens (up to 64 characters).',
  httpsRule: 'The URL must start with https://',
  urlRule: 'Not a valid URL.',
  secretRule: 'The secret must have at least 8 characters.',
  scopeRule: 'Choose at least one scope.',
  pinRule: 'Type the token PIN.',
  shownOnce: 'Copy it now: it will not be shown again.',
  estado: { server: 'Server', version: 'Version', modules: 'PKCS#11 modules', tokens: 'Connected tokens', pending: 'Pending signatures', failed: 'Failed deliveries', lastErrors: 'Last errors', present: 'connected', absent: 'not connected' },
  libros: { slug: 'Identifier', tenant: 'Office (tenant)', name: 'Name', accountingApi: 'Accounting API (accounting_api)', create: 'Create book', created: 'Book created.' },
  claves: { name: 'Name', hint: 'Key', scopes: 'Scopes', created: 'Created', revoked: 'Revoked', revoke: 'Revoke', create: 'Create key', newKey: 'New key', active: 'active', revokedDone: 'Key revoked.' },
  webhooks: { url: 'URL', secret: 'Secret (optional: left empty, Sello makes one)', events: 'Events (none = all)', active: 'Active', lastStatus: 'Last status', create: 'Create endpoint', newSecret: 'Endpoint secret', pause: 'Pause', resume: 'Resume', rotate: 'Rotate secret', remove: 'Delete', confirmRemove: 'Delete this endpoint? Nothing more will be sent to it.', confirmYes: 'Yes, delete', deliveries: 'Deliveries', paused: 'paused', attempts: 'Attempts', resend: 'Resend', resent: 'Delivery sent again.', state: 'State', response: 'Response' },
  firmas: { token: 'Token', tries: 'PIN tries', request: 'Request', pin: 'PIN', approve: 'Approve', reject: 'Reject', approved: 'Signature approved.', rejected: 'Signature rejected.', software: 'Software certificate' },
  certificados: { subject: 'Holder', type: 'Type', expiry: 'Expires', status: 'Status', expiring: 'expires soon', expired: 'expired' },
  carpetas: { path: 'Folder', certificate: 'Certificate', queued: 'Queued' },
  actividad: { type: 'Type', all: 'Everything', events: 'Document events', signing: 'Signing requests', at: 'Date', name: 'What', subject: 'About' },
};

const dictionaries = { es, en };

export const languages = [
  { code: 'es', name: 'Español' },
  { code: 'en', name: 'English' },
];

let current = 'es';
try {
  const saved = localStorage.getItem('sello.lang');
  if (saved === 'en' || saved === 'es') current = saved;
} catch {
  // Storage may be off; Spanish it is.
}

export function lang() {
  return current;
}

export function setLang(code) {
  current = code === 'en' ? 'en' : 'es';
  try {
    localStorage.setItem('sello.lang', current);
  } catch {
    // Not remembered; harmless.
  }
  document.documentElement.lang = current;
}

/** `t('webhooks.pause')`: the text in the current language, Spanish as fallback. */
export function t(key) {
  const find = (dict) => key.split('.').reduce((node, part) => (node && typeof node === 'object' ? node[part] : undefined), dict);
  return find(dictionaries[current]) ?? find(es) ?? key;
}
