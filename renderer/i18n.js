// One dictionary per language (CONTRACT §14: Spanish first, English available).
// A missing English text falls back to Spanish, never to a key.
const es = {
  title: 'Sello — administración',
  language: 'Idioma',
  nav: { estado: 'Estado', libros: 'Libros', claves: 'Claves API', webhooks: 'Webhooks', firmas: 'Firmas pendientes', certificados: 'Certificados', emisor: 'Emisor', comprobantes: 'Comprobantes', compras: 'Compras', carpetas: 'Carpetas', actividad: 'Actividad' },
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
  estado: { tlsFingerprint: 'Huella SHA-256 del certificado TLS', tlsCa: 'CA local (para los otros equipos)', tlsNames: 'Nombres del certificado', tlsUntil: 'Certificado válido hasta', localUrl: 'En este equipo (sin TLS)', server: 'Servidor', version: 'Versión', modules: 'Módulos PKCS#11', tokens: 'Tokens conectados', pending: 'Firmas pendientes', pendingInvoices: 'Comprobantes que esperan el PIN', failed: 'Entregas fallidas', lastErrors: 'Últimos errores', present: 'conectado', absent: 'no conectado' },
  libros: { slug: 'Identificador', tenant: 'Oficina (tenant)', name: 'Nombre', accountingApi: 'API contable (accounting_api)', create: 'Crear libro', created: 'Libro creado.' },
  claves: { name: 'Nombre', hint: 'Clave', scopes: 'Ámbitos', created: 'Creada', revoked: 'Revocada', revoke: 'Revocar', create: 'Crear clave', newKey: 'Clave nueva', active: 'activa', revokedDone: 'Clave revocada.' },
  webhooks: { url: 'URL', secret: 'Secreto (opcional: si lo deja vacío, Sello crea uno)', events: 'Eventos (ninguno = todos)', active: 'Activo', lastStatus: 'Último estado', create: 'Crear destino', newSecret: 'Secreto del destino', pause: 'Pausar', resume: 'Reanudar', rotate: 'Rotar secreto', remove: 'Eliminar', confirmRemove: '¿Eliminar este destino? No se enviará nada más a él.', confirmYes: 'Sí, eliminar', deliveries: 'Entregas', paused: 'pausado', attempts: 'Intentos', resend: 'Reenviar', resent: 'Entrega reenviada.', state: 'Estado', response: 'Respuesta' },
  firmas: { token: 'Token', tries: 'Intentos de PIN', request: 'Solicitud', pin: 'PIN', approve: 'Aprobar', reject: 'Rechazar', approved: 'Firma aprobada.', rejected: 'Firma rechazada.', software: 'Certificado de software',
    invoices: 'Comprobantes electrónicos que esperan el PIN', numero: 'Número', externalRef: 'Referencia del ERP', issued: 'Emitido', reason: 'Situación',
    triesState: { ok: 'sin fallos', low: 'quedan pocos', final_try: 'queda el último', locked: 'PIN bloqueado', unknown: 'desconocidos' },
    waitingToken: 'Esperando el token.', givePin: 'Firmar y enviar al SRI', pinGiven: 'PIN correcto. Comprobantes que ahora se firman y se envían al SRI:' },
  docTypes: { invoice: 'Factura', credit_note: 'Nota de crédito', debit_note: 'Nota de débito', purchase_invoice: 'Liquidación de compra', remission_guide: 'Guía de remisión', withholding: 'Comprobante de retención' },
  certificados: {
    subject: 'Titular', type: 'Tipo', expiry: 'Vence', status: 'Estado', expiring: 'vence pronto', expired: 'vencido', source: 'Origen',
    importTitle: 'Importar un archivo .p12', file: 'Archivo .p12 o .pfx', password: 'Contraseña del archivo', import: 'Importar', imported: 'Certificado importado:',
    fileRule: 'Elija el archivo .p12.', fileTooBig: 'El archivo es demasiado grande para ser un .p12 (más de 1 MB).', passwordRule: 'Escriba la contraseña del archivo .p12.',
    testTitle: 'Emitir un certificado de prueba', validity: 'Validez', days: 'días', firstName: 'Nombres', lastName: 'Apellidos', email: 'Correo electrónico', mobile: 'Teléfono móvil',
    legalIdType: 'Tipo de identificación', legalId: 'Número de identificación', line1: 'Dirección', locality: 'Parroquia o localidad', district1: 'Provincia (nivel 1)', district2: 'Cantón (nivel 2)', country: 'País',
    issue: 'Emitir certificado de prueba', issued: 'Certificado de prueba emitido:', emailRule: 'No es una dirección de correo válida.', instantRule: 'Los certificados …/instant solo admiten validez de 1 día.',
    mobileRule: 'Escriba solo números, con + y espacios si hace falta.',
  },
  emisor: {
    intro: 'Los datos con los que Sello firma y envía al SRI los comprobantes de este libro, uno por entorno: test (ambiente de pruebas del SRI) y live (producción).',
    none: 'Este libro no tiene emisor en este entorno: mientras no lo configure, Sello no emite comprobantes en él.',
    current: 'Emisor guardado', edit: 'Datos del emisor', updated: 'Actualizado',
    ruc: 'RUC', razonSocial: 'Razón social', nombreComercial: 'Nombre comercial (opcional)', dirMatriz: 'Dirección de la matriz', obligado: 'Obligado a llevar contabilidad',
    contribuyenteEspecial: 'Contribuyente especial: n.º de resolución (opcional)', agenteRetencion: 'Agente de retención: n.º de resolución (opcional)',
    regimen: 'Régimen', regimenNone: '— (no indicar)', general: 'General', rimpe_emprendedor: 'RIMPE emprendedor', rimpe_negocio_popular: 'RIMPE negocio popular',
    certificate: 'Certificado de firma', certHelpLive: 'En producción solo sirven certificados reales (de un token o de un archivo .p12).', certHelpTest: 'En pruebas sirve un certificado de prueba o uno real de la oficina.',
    establishments: 'Establecimientos', establishment: 'Establecimiento', code: 'Código', address: 'Dirección', points: 'Puntos de emisión (separados por comas)',
    addEstablishment: 'Añadir establecimiento', removeEstablishment: 'Quitar establecimiento', save: 'Guardar emisor', saved: 'Emisor guardado.', note: 'Aviso:', unusable: 'no sirve',
    rucRule: 'El RUC tiene 13 dígitos y termina en 001.', codeRule: 'Tres dígitos, de 001 a 999.', pointsRule: 'Escriba al menos un punto de emisión de tres dígitos (001 a 999), separados por comas.',
    duplicateRule: 'Código repetido.', oneEstablishment: 'Añada al menos un establecimiento.', contribuyenteRule: 'De 3 a 13 letras o dígitos, sin espacios.', agenteRule: 'De 1 a 8 dígitos.',
    certRule: 'Elija el certificado con el que se firman los comprobantes.', noCerts: 'No hay certificados que sirvan en este entorno: importe un .p12 o conecte el token en Certificados (en pruebas también sirve un certificado de prueba).',
  },
  comprobantes: {
    intro: 'Los comprobantes que Sello emitió al SRI en este libro y entorno, del más reciente al más antiguo, con su RIDE (PDF) y, una vez autorizados, su XML.',
    type: 'Tipo', numero: 'Número', date: 'Fecha de emisión', party: 'Cliente / proveedor', total: 'Total', status: 'Estado', files: 'Archivos', allStatuses: 'Todos',
    states: { pending: 'Por firmar', signed: 'Firmado, por enviar', sent: 'Recibido por el SRI, por autorizar', authorized: 'Autorizado', rejected: 'Rechazado', failed: 'Fallido' },
    ride: 'RIDE (PDF)', xml: 'XML', xmlNotReady: 'El XML de autorización se puede descargar cuando el SRI autoriza el comprobante.', sriSays: 'SRI:',
    more: 'Más', refresh: 'Actualizar', shown: 'Mostrando {n} de {total}.',
    none: 'Sello no ha emitido comprobantes en este libro y entorno.', noneStatus: 'No hay comprobantes en ese estado.',
  },
  compras: {
    title: 'Compras recibidas',
    intro: 'Las facturas que los proveedores emitieron al RUC del emisor de este libro, registradas en este entorno después de comprobar su autorización y su firma, de la más reciente a la más antigua, con los comprobantes de retención que Sello emitió por cada una.',
    record: 'Registrar compra',
    recordHelp: 'Escriba la clave de acceso de la factura (Sello la consulta al SRI) o elija el archivo XML que le llegó por correo. La factura debe estar emitida al RUC del emisor de este libro y ser del entorno elegido (test: ambiente de pruebas del SRI; live: producción).',
    accessKey: 'Clave de acceso (49 dígitos)', xml: 'XML de la factura recibido por correo (en lugar de la clave)', submit: 'Registrar compra',
    checking: 'Comprobando la factura…', recorded: 'Compra registrada:',
    oneRule: 'Escriba la clave de acceso o elija el XML de la factura.', bothRule: 'Indique la clave de acceso o el XML, no los dos.', keyRule: 'La clave de acceso tiene 49 dígitos.',
    fileEmpty: 'El archivo está vacío.', fileTooBig: 'El archivo es demasiado grande para ser una factura (más de 2 MB).',
    list: 'Compras registradas', supplier: 'Proveedor', ruc: 'RUC', numero: 'Número', date: 'Fecha de emisión', total: 'Total', withholdings: 'Retenciones emitidas', source: 'Origen',
    sources: { sri: 'SRI (clave de acceso)', xml: 'XML recibido' }, noWithholdings: 'Ninguna',
    none: 'No hay compras registradas en este libro y entorno.',
  },
  carpetas: {
    path: 'Carpeta', certificate: 'Certificado', queued: 'En cola', page: 'Página (número o last)', size: 'Tamaño del sello', x: 'X (puntos desde la izquierda; vacío = 36)', y: 'Y (puntos desde arriba; vacío = abajo)',
    poll: 'Revisar periódicamente (carpetas de red)', add: 'Vigilar carpeta', added: 'Carpeta añadida:', done: 'Firmados', waitingPin: 'Esperan PIN', failed: 'Con error', stamp: 'Sello',
    remove: 'Quitar', confirmRemove: '¿Dejar de vigilar esta carpeta? Los archivos que ya están en ella no se tocan.', confirmYes: 'Sí, dejar de vigilar', removed: 'Carpeta quitada:', refresh: 'Actualizar',
    pageRule: 'Escriba un número de página (1, 2, …) o last.', coordRule: 'Escriba un número mayor o igual a 0.', certRule: 'Elija un certificado.', noCerts: 'No hay certificados: importe un .p12 o emita uno de prueba en Certificados.',
    small: 's (pequeño)', medium: 'm (mediano)', large: 'l (grande)',
  },
  actividad: { type: 'Tipo', all: 'Todo', events: 'Eventos de documentos', signing: 'Solicitudes de firma', at: 'Fecha', name: 'Qué', subject: 'Sobre' },
};

const en = {
  title: 'Sello — administration',
  language: 'Language',
  nav: { estado: 'Status', libros: 'Books', claves: 'API keys', webhooks: 'Webhooks', firmas: 'Pending signatures', certificados: 'Certificates', emisor: 'Issuer', comprobantes: 'Documents', compras: 'Purchases', carpetas: 'Folders', actividad: 'Activity' },
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
  estado: { tlsFingerprint: 'TLS certificate SHA-256 fingerprint', tlsCa: 'Local CA (for the other computers)', tlsNames: 'Certificate names', tlsUntil: 'Certificate valid until', localUrl: 'On this computer (no TLS)', server: 'Server', version: 'Version', modules: 'PKCS#11 modules', tokens: 'Connected tokens', pending: 'Pending signatures', pendingInvoices: 'Documents waiting for the PIN', failed: 'Failed deliveries', lastErrors: 'Last errors', present: 'connected', absent: 'not connected' },
  libros: { slug: 'Identifier', tenant: 'Office (tenant)', name: 'Name', accountingApi: 'Accounting API (accounting_api)', create: 'Create book', created: 'Book created.' },
  claves: { name: 'Name', hint: 'Key', scopes: 'Scopes', created: 'Created', revoked: 'Revoked', revoke: 'Revoke', create: 'Create key', newKey: 'New key', active: 'active', revokedDone: 'Key revoked.' },
  webhooks: { url: 'URL', secret: 'Secret (optional: left empty, Sello makes one)', events: 'Events (none = all)', active: 'Active', lastStatus: 'Last status', create: 'Create endpoint', newSecret: 'Endpoint secret', pause: 'Pause', resume: 'Resume', rotate: 'Rotate secret', remove: 'Delete', confirmRemove: 'Delete this endpoint? Nothing more will be sent to it.', confirmYes: 'Yes, delete', deliveries: 'Deliveries', paused: 'paused', attempts: 'Attempts', resend: 'Resend', resent: 'Delivery sent again.', state: 'State', response: 'Response' },
  firmas: { token: 'Token', tries: 'PIN tries', request: 'Request', pin: 'PIN', approve: 'Approve', reject: 'Reject', approved: 'Signature approved.', rejected: 'Signature rejected.', software: 'Software certificate',
    invoices: 'Electronic tax documents waiting for the PIN', numero: 'Number', externalRef: 'ERP reference', issued: 'Issued', reason: 'Situation',
    triesState: { ok: 'no failures', low: 'few left', final_try: 'last try left', locked: 'PIN locked', unknown: 'unknown' },
    waitingToken: 'Waiting for the token.', givePin: 'Sign and send to the SRI', pinGiven: 'Right PIN. Documents now being signed and sent to the SRI:' },
  docTypes: { invoice: 'Invoice', credit_note: 'Credit note', debit_note: 'Debit note', purchase_invoice: 'Purchase settlement', remission_guide: 'Remission guide', withholding: 'Withholding receipt' },
  certificados: {
    subject: 'Holder', type: 'Type', expiry: 'Expires', status: 'Status', expiring: 'expires soon', expired: 'expired', source: 'Source',
    importTitle: 'Import a .p12 file', file: '.p12 or .pfx file', password: 'File password', import: 'Import', imported: 'Certificate imported:',
    fileRule: 'Choose the .p12 file.', fileTooBig: 'The file is too large to be a .p12 (over 1 MB).', passwordRule: 'Type the password of the .p12 file.',
    testTitle: 'Issue a test certificate', validity: 'Validity', days: 'days', firstName: 'First names', lastName: 'Last names', email: 'Email', mobile: 'Mobile phone',
    legalIdType: 'Identification type', legalId: 'Identification number', line1: 'Address', locality: 'Parish or locality', district1: 'Province (level 1)', district2: 'Canton (level 2)', country: 'Country',
    issue: 'Issue test certificate', issued: 'Test certificate issued:', emailRule: 'Not a valid email address.', instantRule: '…/instant certificates only allow a validity of 1 day.',
    mobileRule: 'Use digits only, with + and spaces if needed.',
  },
  emisor: {
    intro: 'What Sello signs and sends to the SRI with for this book’s documents, one per environment: test (the SRI’s test environment) and live (production).',
    none: 'This book has no issuer in this environment: until you configure one, Sello issues no documents in it.',
    current: 'Saved issuer', edit: 'Issuer details', updated: 'Updated',
    ruc: 'RUC', razonSocial: 'Legal name (razón social)', nombreComercial: 'Trade name (optional)', dirMatriz: 'Head office address', obligado: 'Required to keep accounts',
    contribuyenteEspecial: 'Special taxpayer: resolution no. (optional)', agenteRetencion: 'Withholding agent: resolution no. (optional)',
    regimen: 'Tax regime', regimenNone: '— (not stated)', general: 'General', rimpe_emprendedor: 'RIMPE entrepreneur', rimpe_negocio_popular: 'RIMPE popular business',
    certificate: 'Signing certificate', certHelpLive: 'Production only accepts real certificates (from a token or a .p12 file).', certHelpTest: 'Test accepts a test certificate or one of the office’s real ones.',
    establishments: 'Establishments', establishment: 'Establishment', code: 'Code', address: 'Address', points: 'Emission points (comma-separated)',
    addEstablishment: 'Add establishment', removeEstablishment: 'Remove establishment', save: 'Save issuer', saved: 'Issuer saved.', note: 'Note:', unusable: 'not usable',
    rucRule: 'A RUC has 13 digits and ends in 001.', codeRule: 'Three digits, 001 to 999.', pointsRule: 'Type at least one three-digit emission point (001 to 999), comma-separated.',
    duplicateRule: 'Repeated code.', oneEstablishment: 'Add at least one establishment.', contribuyenteRule: '3 to 13 letters or digits, no spaces.', agenteRule: '1 to 8 digits.',
    certRule: 'Choose the certificate that signs the documents.', noCerts: 'No certificate fits this environment: import a .p12 or plug in the token under Certificates (test also accepts a test certificate).',
  },
  comprobantes: {
    intro: 'The documents Sello issued to the SRI in this book and environment, newest first, with their RIDE (PDF) and, once authorized, their XML.',
    type: 'Type', numero: 'Number', date: 'Issue date', party: 'Customer / supplier', total: 'Total', status: 'State', files: 'Files', allStatuses: 'All',
    states: { pending: 'To be signed', signed: 'Signed, to be sent', sent: 'Received by the SRI, to be authorized', authorized: 'Authorized', rejected: 'Rejected', failed: 'Failed' },
    ride: 'RIDE (PDF)', xml: 'XML', xmlNotReady: 'The authorization XML can be downloaded once the SRI authorizes the document.', sriSays: 'SRI:',
    more: 'More', refresh: 'Refresh', shown: 'Showing {n} of {total}.',
    none: 'Sello has issued no documents in this book and environment.', noneStatus: 'No documents in that state.',
  },
  compras: {
    title: 'Received purchases',
    intro: 'The invoices suppliers issued to the RUC of this book’s issuer, recorded in this environment once their authorization and signature were checked, newest first, with the withholding receipts Sello issued for each.',
    record: 'Record a purchase',
    recordHelp: 'Type the invoice’s access key (Sello asks the SRI for it) or choose the XML file that came by e-mail. The invoice must be issued to the RUC of this book’s issuer and belong to the chosen environment (test: the SRI’s test environment; live: production).',
    accessKey: 'Access key (49 digits)', xml: 'Invoice XML received by e-mail (instead of the key)', submit: 'Record purchase',
    checking: 'Checking the invoice…', recorded: 'Purchase recorded:',
    oneRule: 'Type the access key or choose the invoice’s XML.', bothRule: 'Give the access key or the XML, not both.', keyRule: 'An access key has 49 digits.',
    fileEmpty: 'The file is empty.', fileTooBig: 'The file is too large to be an invoice (over 2 MB).',
    list: 'Recorded purchases', supplier: 'Supplier', ruc: 'RUC', numero: 'Number', date: 'Issue date', total: 'Total', withholdings: 'Withholdings issued', source: 'Source',
    sources: { sri: 'SRI (access key)', xml: 'XML received' }, noWithholdings: 'None',
    none: 'No purchases recorded in this book and environment.',
  },
  carpetas: {
    path: 'Folder', certificate: 'Certificate', queued: 'Queued', page: 'Page (number or last)', size: 'Stamp size', x: 'X (points from the left; empty = 36)', y: 'Y (points from the top; empty = bottom)',
    poll: 'Poll periodically (network shares)', add: 'Watch folder', added: 'Folder added:', done: 'Signed', waitingPin: 'Waiting for PIN', failed: 'Failed', stamp: 'Stamp',
    remove: 'Remove', confirmRemove: 'Stop watching this folder? Files already in it are left alone.', confirmYes: 'Yes, stop watching', removed: 'Folder removed:', refresh: 'Refresh',
    pageRule: 'Type a page number (1, 2, …) or last.', coordRule: 'Type a number greater than or equal to 0.', certRule: 'Choose a certificate.', noCerts: 'No certificates: import a .p12 or issue a test one under Certificates.',
    small: 's (small)', medium: 'm (medium)', large: 'l (large)',
  },
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
