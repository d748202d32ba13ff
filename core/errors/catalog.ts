/**
 * Every error Sello can return, by stable code: its HTTP status and its text in
 * Spanish (the default, CONTRACT §4) and English. Domain code throws
 * `new SelloError('pin_incorrect')`; the edge of each API family picks the envelope.
 *
 * A test checks that every code here is documented in docs/errors.md.
 */
export interface ErrorEntry {
  readonly status: number;
  readonly es: string;
  readonly en: string;
}

export const errorCatalog = {
  // ── request plumbing ────────────────────────────────────────────────────────
  misdirected_request: {
    status: 421,
    es: 'El encabezado Host no es uno de los nombres de este servidor.',
    en: 'The Host header is not one of this server’s names.',
  },
  payload_too_large: {
    status: 413,
    es: 'El cuerpo de la solicitud supera el tamaño máximo permitido.',
    en: 'The request body exceeds the maximum allowed size.',
  },
  invalid_json: {
    status: 400,
    es: 'El cuerpo de la solicitud no es JSON válido.',
    en: 'The request body is not valid JSON.',
  },
  unsupported_media_type: {
    status: 415,
    es: 'Tipo de contenido no admitido.',
    en: 'Unsupported content type.',
  },
  not_acceptable: {
    status: 406,
    es: 'El encabezado Accept no admite ningún tipo de respuesta que este servidor produzca.',
    en: 'The Accept header allows no response type this server produces.',
  },
  route_not_found: {
    status: 404,
    es: 'No existe esa ruta.',
    en: 'No such route.',
  },
  method_not_allowed: {
    status: 405,
    es: 'Método no permitido en esta ruta.',
    en: 'Method not allowed on this route.',
  },
  invalid_query: {
    status: 400,
    es: 'Parámetro de consulta no válido.',
    en: 'Invalid query parameter.',
  },
  headers_too_large: {
    status: 431,
    es: 'La dirección o los encabezados de la solicitud son demasiado largos.',
    en: 'The request URL or headers are too long.',
  },
  malformed_request: {
    status: 400,
    es: 'La solicitud HTTP está mal formada.',
    en: 'The HTTP request is malformed.',
  },
  https_required: {
    status: 400,
    es: 'Desde otros equipos, Sello solo acepta HTTPS en este puerto: use https:// en lugar de http://.',
    en: 'From other computers, Sello accepts only HTTPS on this port: use https:// instead of http://.',
  },
  internal_error: {
    status: 500,
    es: 'Error interno del servidor. El equipo de Sello puede consultar el registro con el id de la solicitud.',
    en: 'Internal server error. The request id identifies it in the log.',
  },
  // A fault of the machine, not of the request: the same request succeeds once it is fixed.
  storage_full: {
    status: 507,
    es: 'No queda espacio en el disco donde Sello guarda sus datos. Libere espacio y vuelva a enviar la solicitud.',
    en: 'The disk holding Sello’s data is full. Free some space and send the request again.',
  },
  storage_busy: {
    status: 503,
    es: 'La base de datos de Sello está bloqueada por otro programa (por ejemplo, una copia de seguridad). Vuelva a enviar la solicitud en unos segundos.',
    en: 'Sello’s database is locked by another program (a backup, for example). Send the request again in a few seconds.',
  },

  // ── authentication and limits (fiscal envelope on Family B) ────────────────
  unauthorized: {
    status: 401,
    es: 'Clave de API ausente, no válida o revocada.',
    en: 'API key missing, invalid or revoked.',
  },
  forbidden: {
    status: 403,
    es: 'La clave no tiene permiso para esta operación.',
    en: 'The key is not allowed to perform this operation.',
  },
  rate_limited: {
    status: 429,
    es: 'Se superó el límite de solicitudes. Espere el tiempo indicado en Retry-After.',
    en: 'Request limit exceeded. Wait for the time given in Retry-After.',
  },

  // ── fiscal (documents) ──────────────────────────────────────────────────────
  not_found: {
    status: 404,
    es: 'El registro no existe.',
    en: 'The record does not exist.',
  },
  not_ready: {
    status: 404,
    es: 'El documento todavía no tiene XML.',
    en: 'The document has no XML yet.',
  },
  // CONTRACT §15: a fiscal write needs the issuer of its book and environment.
  emisor_not_configured: {
    status: 422,
    es: 'Este libro no tiene emisor configurado en este ambiente. Configúrelo con PUT /api/v1/issuer.',
    en: 'This book has no issuer configured in this environment. Configure it with PUT /api/v1/issuer.',
  },
  book_not_configured: {
    status: 422,
    es: 'Este libro no tiene emisor configurado en este ambiente: no se pueden registrar compras a su nombre. Configúrelo con PUT /api/v1/issuer.',
    en: 'This book has no issuer configured in this environment: purchases cannot be recorded for it. Configure it with PUT /api/v1/issuer.',
  },
  // CONTRACT §15: a withholding the purchase's facts or the law do not allow; `errors` says why by field.
  withholding_failed: {
    status: 422,
    es: 'No se pudo emitir la retención.',
    en: 'The withholding could not be issued.',
  },
  // CONTRACT §15: the SRI's authorization service could not be asked (a received purchase by key).
  sri_unavailable: {
    status: 503,
    es: 'No se pudo consultar al SRI. Vuelva a intentarlo en unos minutos.',
    en: 'The SRI could not be reached. Try again in a few minutes.',
  },
  in_progress: {
    status: 409,
    es: 'Una operación con el mismo external_ref está en curso; reintente en unos segundos.',
    en: 'An operation with the same external_ref is running; retry in a few seconds.',
  },
  validation_failed: {
    status: 422,
    es: 'Los datos enviados no son válidos.',
    en: 'The submitted data is not valid.',
  },

  // ── JSON:API ────────────────────────────────────────────────────────────────
  invalid_body: {
    status: 400,
    es: 'El cuerpo no cumple el esquema del recurso.',
    en: 'The body does not match the resource schema.',
  },
  invalid_attribute: {
    status: 422,
    es: 'Valor de atributo no válido.',
    en: 'Invalid attribute value.',
  },
  invalid_filter: {
    status: 400,
    es: 'Filtro no válido.',
    en: 'Invalid filter.',
  },
  invalid_sort: {
    status: 400,
    es: 'Campo de orden no válido.',
    en: 'Invalid sort field.',
  },
  invalid_field: {
    status: 400,
    es: 'Campo no válido en el conjunto de campos solicitado.',
    en: 'Invalid field in the requested fieldset.',
  },
  invalid_pagination: {
    status: 400,
    es: 'Parámetro de paginación no válido.',
    en: 'Invalid pagination parameter.',
  },
  resource_not_found: {
    status: 404,
    es: 'El recurso no existe.',
    en: 'The resource does not exist.',
  },
  type_conflict: {
    status: 409,
    es: 'El tipo o el id del recurso no corresponde a esta colección.',
    en: 'The resource type or id does not match this collection.',
  },
  client_id_not_supported: {
    status: 403,
    es: 'No se admiten ids generados por el cliente al crear recursos.',
    en: 'Client-generated ids are not supported.',
  },

  // ── deliveries (CONTRACT §9, admin API) ─────────────────────────────────────
  delivery_not_resendable: {
    status: 409,
    es: 'Solo se reenvían las entregas fallidas de destinos que todavía existen.',
    en: 'Only failed deliveries of endpoints that still exist can be sent again.',
  },

  // ── PDF and signatures (CONTRACT §11, §12) ──────────────────────────────────
  pdf_invalid: {
    status: 400,
    es: 'El archivo no es un PDF válido.',
    en: 'The file is not a valid PDF.',
  },
  pdf_damaged: {
    status: 400,
    es: 'El PDF está dañado o incompleto y no se puede firmar sin alterar su contenido. Vuelva a generarlo desde el programa original.',
    en: 'The PDF is damaged or truncated and cannot be signed without altering it. Generate it again from the original program.',
  },
  pdf_encrypted: {
    status: 400,
    es: 'El PDF está protegido con contraseña. Quite la protección y vuelva a intentarlo.',
    en: 'The PDF is password-protected. Remove the protection and try again.',
  },
  pdf_changes_forbidden: {
    status: 400,
    es: 'El PDF está certificado y no admite más cambios ni firmas (DocMDP P=1).',
    en: 'The PDF is certified and allows no further changes or signatures (DocMDP P=1).',
  },
  pdf_too_complex: {
    status: 400,
    es: 'El PDF supera los límites de lectura de Sello (tamaño, memoria o tiempo): puede estar construido para bloquear a quien lo abra. Vuelva a generarlo o imprímalo a PDF desde el programa original.',
    en: 'The PDF exceeds Sello’s reading limits (size, memory or time): it may be built to exhaust whoever opens it. Generate it again or print it to PDF from the original program.',
  },
  pdf_output_unreadable: {
    status: 400,
    es: 'La copia firmada no se pudo leer de vuelta con la firma en su lugar; no se entrega. El PDF original tiene una estructura que Sello no puede completar sin riesgo.',
    en: 'The signed copy could not be read back with its signature in place; it is not delivered. The original PDF has a structure Sello cannot extend safely.',
  },
  page_out_of_range: {
    status: 400,
    es: 'La página indicada no existe en el PDF.',
    en: 'The given page does not exist in the PDF.',
  },
  stamp_outside_page: {
    status: 400,
    es: 'El sello de firma queda fuera del área visible de la página.',
    en: 'The signature stamp falls outside the visible area of the page.',
  },
  invalid_stamp_size: {
    status: 400,
    es: 'El tamaño del sello debe ser s, m o l.',
    en: 'The stamp size must be s, m or l.',
  },

  // ── signing requests (CONTRACT §11) ──────────────────────────────────────
  request_not_draft: {
    status: 409,
    es: 'La solicitud de firma ya fue enviada; solo se envía una solicitud en borrador.',
    en: 'The signing request was already sent; only a draft can be sent.',
  },
  signature_not_pending: {
    status: 409,
    es: 'La firma no está pendiente de aprobación.',
    en: 'The signature is not waiting for approval.',
  },

  // ── certificates and keys ──────────────────────────────────────────────────
  certificate_not_found: {
    status: 404,
    es: 'El certificado no existe.',
    en: 'The certificate does not exist.',
  },
  certificate_expired: {
    status: 400,
    es: 'El certificado está caducado o todavía no es válido.',
    en: 'The certificate has expired or is not yet valid.',
  },
  certificate_not_issued: {
    status: 400,
    es: 'El certificado todavía no está emitido (estado draft o processing).',
    en: 'The certificate is not issued yet (status draft or processing).',
  },
  p12_bad_password: {
    status: 400,
    es: 'La contraseña del archivo .p12 no es correcta.',
    en: 'The .p12 password is wrong.',
  },
  p12_invalid: {
    status: 400,
    es: 'El archivo no es un .p12 (PKCS#12) válido o no contiene una clave y su certificado.',
    en: 'The file is not a valid .p12 (PKCS#12) or holds no key with its certificate.',
  },
  // The SRI refuses such certificates (error 39): said before signing, not after sending.
  certificate_key_usage: {
    status: 422,
    es: 'El uso de clave del certificado no incluye la firma digital (digitalSignature); el SRI rechaza las firmas hechas con él.',
    en: 'The certificate’s key usage does not include digital signature (digitalSignature); the SRI refuses signatures made with it.',
  },
  certificate_key_type: {
    status: 422,
    es: 'La clave del certificado no es RSA; las firmas XAdES de comprobantes electrónicos solo admiten claves RSA.',
    en: 'The certificate’s key is not RSA; XAdES signatures of electronic tax documents only allow RSA keys.',
  },

  // ── XML of tax documents ───────────────────────────────────────────────────
  xml_invalid: {
    status: 400,
    es: 'El archivo no es un XML que Sello pueda firmar (mal formado, demasiado grande, con DOCTYPE o sin id="comprobante").',
    en: 'The file is not an XML Sello can sign (malformed, too large, with a DOCTYPE or without id="comprobante").',
  },

  // ── PKCS#11 tokens ─────────────────────────────────────────────────────────
  pkcs11_module_not_found: {
    status: 400,
    es: 'No se encontró el controlador PKCS#11 del token en la ruta indicada.',
    en: 'The PKCS#11 token driver was not found at the given path.',
  },
  pkcs11_error: {
    status: 500,
    es: 'El token devolvió un error inesperado.',
    en: 'The token returned an unexpected error.',
  },
  token_not_present: {
    status: 409,
    es: 'El token no está conectado. Conéctelo y vuelva a intentarlo.',
    en: 'The token is not connected. Plug it in and try again.',
  },
  token_removed: {
    status: 409,
    es: 'El token se retiró durante la firma. Vuelva a conectarlo; el documento no se modificó.',
    en: 'The token was removed while signing. Plug it in again; the document was not changed.',
  },
  pin_required: {
    status: 409,
    es: 'Se necesita el PIN del token.',
    en: 'The token PIN is required.',
  },
  pin_incorrect: {
    status: 400,
    es: 'PIN incorrecto. No se volverá a intentar automáticamente.',
    en: 'Wrong PIN. It will not be retried automatically.',
  },
  pin_locked: {
    status: 409,
    es: 'El PIN del token está bloqueado. Desbloquéelo con la herramienta del fabricante.',
    en: 'The token PIN is locked. Unlock it with the vendor’s tool.',
  },
  timestamp_failed: {
    status: 502,
    es: 'La autoridad de sellado de tiempo no respondió correctamente.',
    en: 'The timestamp authority did not answer correctly.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof errorCatalog;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalog, code);
}
