/**
 * The `NAME.error.txt` written beside a file moved to the error folder (CONTRACT §13: "saying
 * why, in Spanish"): what happened, and what to do about it, for the people who dropped it.
 */

/** Why a file could not be signed: a stable code and the detail of the moment. */
export interface FileFailure {
  code: string;
  detail: string;
}

const advice: Record<string, string> = {
  not_pdf: 'El archivo no es un PDF (quizá solo tiene la extensión .pdf). Guarde o exporte el documento como PDF y vuelva a copiarlo en la carpeta.',
  pdf_damaged:
    'El PDF está dañado o incompleto y no se puede leer. Ábralo en un visor de PDF; si no abre, vuelva a generarlo o a escanearlo y cópielo otra vez en la carpeta.',
  pdf_encrypted:
    'El PDF está protegido con contraseña o cifrado. Ábralo, guárdelo sin contraseña (o "Imprimir como PDF") y vuelva a copiarlo en la carpeta.',
  pdf_changes_forbidden:
    'El PDF está certificado sin permitir cambios: no admite más firmas. Pida el documento sin certificar a quien lo emitió.',
  page_out_of_range:
    'La página configurada para el sello no existe en este documento. Cambie la página de la carpeta (por ejemplo --page last) o firme este documento aparte.',
  stamp_outside_page:
    'El sello no cabe en la página en la posición configurada. Cambie x, y o el tamaño del sello de la carpeta, o firme este documento aparte.',
  certificate_expired:
    'El certificado configurado para esta carpeta está vencido. Renuévelo, importe el nuevo, configure la carpeta con él (sello folders add … --cert NUEVO) y vuelva a copiar el archivo.',
  certificate_not_issued: 'El certificado de la carpeta todavía no es válido (su fecha de inicio es futura). Espere a esa fecha y vuelva a copiar el archivo.',
  certificate_not_found:
    'El certificado de la carpeta ya no existe en Sello. Configure la carpeta con otro certificado (sello certs list) y vuelva a copiar el archivo.',
  pin_incorrect: 'El PIN del token fue incorrecto. Vuelva a copiar el archivo en la carpeta y apruebe la firma con el PIN correcto (el token se bloquea tras varios intentos fallidos).',
  pin_locked: 'El PIN del token está bloqueado. Desbloquéelo con la herramienta del proveedor del token y vuelva a copiar el archivo en la carpeta.',
  rejected: 'Una persona rechazó la firma de este archivo en la cola de firmas de Sello. Si debía firmarse, vuelva a copiarlo en la carpeta.',
  token_error: 'El token no pudo firmar. Compruebe que está conectado, y vuelva a copiar el archivo en la carpeta.',
  pdf_too_complex:
    'Sello dejó de leer este PDF porque superó el tiempo o la memoria que dedica a un archivo: puede estar dañado o construido para bloquear a quien lo abra. Vuelva a generarlo desde el programa original (o imprímalo a PDF) y cópielo otra vez en la carpeta.',
  pdf_output_unreadable:
    'Sello no entregó la copia firmada porque no pudo leerla de vuelta con la firma en su lugar. Vuelva a generar el PDF desde el programa original (o imprímalo a PDF) y cópielo otra vez en la carpeta.',
  internal_error: 'Sello tuvo un error interno con este archivo. Vuelva a copiarlo en la carpeta; si el problema sigue, el registro de Sello tiene el detalle.',
  symlink:
    'Sello solo firma archivos que están en la carpeta, no enlaces a archivos de otro lugar. Copie el documento mismo en la carpeta (no un enlace ni un acceso directo).',
  not_regular_file: 'Sello solo firma archivos comunes. Guarde o copie el documento como un archivo en la carpeta.',
  hard_link:
    'Sello solo firma archivos que tienen un solo nombre, el de la carpeta: un enlace duro es el mismo archivo que otro que puede estar en cualquier otra carpeta. Copie el documento en la carpeta (una copia, no un enlace).',
};

const headline: Record<string, string> = {
  not_pdf: 'No es un PDF.',
  pdf_damaged: 'El PDF está dañado.',
  pdf_encrypted: 'El PDF está protegido con contraseña.',
  pdf_changes_forbidden: 'El PDF está certificado y no admite firmas.',
  page_out_of_range: 'La página del sello no existe.',
  stamp_outside_page: 'El sello no cabe en la página.',
  certificate_expired: 'El certificado está vencido.',
  certificate_not_issued: 'El certificado todavía no es válido.',
  certificate_not_found: 'El certificado no existe.',
  pin_incorrect: 'PIN incorrecto.',
  pin_locked: 'PIN bloqueado.',
  rejected: 'Firma rechazada.',
  pdf_too_complex: 'El PDF supera los límites de lectura de Sello.',
  pdf_output_unreadable: 'La copia firmada no se pudo leer de vuelta.',
  internal_error: 'Error interno de Sello.',
  symlink: 'Es un enlace a otro archivo, no un archivo de la carpeta.',
  not_regular_file: 'No es un archivo común.',
  hard_link: 'Es un enlace duro a otro archivo.',
};

/**
 * The text of `NAME.error.txt`.
 *
 * @example
 *   errorText('factura.pdf', { code: 'pdf_encrypted', detail: 'el PDF está cifrado' }, new Date())
 *   // "No se firmó «factura.pdf»: El PDF está protegido con contraseña.\n…Qué hacer: Ábralo, guárdelo sin contraseña…"
 */
export function errorText(fileName: string, failure: FileFailure, at: Date): string {
  const title = headline[failure.code] ?? 'No se pudo firmar.';
  const todo =
    advice[failure.code] ??
    'Revise el detalle, corrija el documento o la configuración de la carpeta y vuelva a copiar el archivo. Si el problema sigue, consulte el registro de actividad de Sello.';
  return [
    `No se firmó «${fileName}»: ${title}`,
    '',
    `Detalle: ${failure.detail}`,
    '',
    `Qué hacer: ${todo}`,
    '',
    `Fecha: ${at.toISOString()}`,
    `Código: ${failure.code}`,
    '',
  ].join('\r\n');
}

/**
 * Maps a signing-request validation problem (core/signing/requests, by field) to a code
 * with advice: the messages there are for an API caller, the advice here for a person.
 */
export function failureFromFields(fields: Record<string, string[]>): FileFailure {
  const entries = Object.entries(fields);
  const detail = entries.map(([, msgs]) => msgs.join('; ')).join('; ');
  const has = (field: RegExp, text: RegExp) => entries.some(([f, msgs]) => field.test(f) && msgs.some((m) => text.test(m)));
  let code = 'validation_failed';
  if (has(/document_base64/, /cifrado/)) code = 'pdf_encrypted';
  else if (has(/document_base64/, /certificado/)) code = 'pdf_changes_forbidden';
  else if (has(/document_base64/, /./)) code = 'pdf_damaged';
  else if (has(/signing_certificate/, /caduc|vencid/i)) code = 'certificate_expired';
  else if (has(/signing_certificate/, /válido desde|en estado/i)) code = 'certificate_not_issued';
  else if (has(/signing_certificate/, /./)) code = 'certificate_not_found';
  else if (has(/\.page$/, /./)) code = 'page_out_of_range';
  else if (has(/\.(x|y)$/, /./)) code = 'stamp_outside_page';
  return { code, detail };
}
