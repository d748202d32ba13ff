/**
 * PKCS#11 return values (PKCS#11 v2.40 §11.1, "Return values") turned into Sello's error codes.
 *
 * The mapping depends on the phase: the same CKR_DEVICE_REMOVED means "plug the token in"
 * before a session exists and "the token was pulled out while signing" once one does.
 */
import { SelloError } from '../core/errors/index.js';

/** CK_RV values we react to (numbers from pkcs11t.h). */
export const CKR = {
  SLOT_ID_INVALID: 0x03,
  CANT_LOCK: 0x0a,
  DEVICE_ERROR: 0x30,
  DEVICE_MEMORY: 0x31,
  DEVICE_REMOVED: 0x32,
  FUNCTION_CANCELED: 0x50,
  KEY_HANDLE_INVALID: 0x60,
  MECHANISM_INVALID: 0x70,
  MECHANISM_PARAM_INVALID: 0x71,
  OBJECT_HANDLE_INVALID: 0x82,
  PIN_INCORRECT: 0xa0,
  PIN_INVALID: 0xa1,
  PIN_LEN_RANGE: 0xa2,
  PIN_EXPIRED: 0xa3,
  PIN_LOCKED: 0xa4,
  SESSION_CLOSED: 0xb0,
  SESSION_HANDLE_INVALID: 0xb3,
  TOKEN_NOT_PRESENT: 0xe0,
  TOKEN_NOT_RECOGNIZED: 0xe1,
  USER_ALREADY_LOGGED_IN: 0x100,
  USER_NOT_LOGGED_IN: 0x101,
  USER_PIN_NOT_INITIALIZED: 0x102,
  CRYPTOKI_ALREADY_INITIALIZED: 0x191,
} as const;

/** The CK_RV of a pkcs11js error, or undefined for anything else. */
export function ckrOf(err: unknown): number | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof (err as { code: unknown }).code === 'number') {
    const message = (err as { message?: unknown }).message;
    if (typeof message === 'string' && message.startsWith('CKR_')) return (err as { code: number }).code;
  }
  return undefined;
}

function ckrName(err: unknown): string {
  const m = err instanceof Error ? /CKR_[A-Z_]+/.exec(err.message) : null;
  return m?.[0] ?? 'desconocido';
}

export function isRemovalCode(rv: number | undefined): boolean {
  return (
    rv === CKR.DEVICE_REMOVED ||
    rv === CKR.TOKEN_NOT_PRESENT ||
    rv === CKR.SESSION_HANDLE_INVALID ||
    rv === CKR.SESSION_CLOSED ||
    rv === CKR.DEVICE_ERROR ||
    rv === CKR.SLOT_ID_INVALID ||
    rv === CKR.TOKEN_NOT_RECOGNIZED
  );
}

/**
 * Turns any error thrown by pkcs11js into a SelloError. `phase` says whether a session
 * was already established (then a vanished token is `token_removed`).
 */
export function toSelloError(err: unknown, phase: 'open' | 'operation', meta: Record<string, unknown> = {}): SelloError {
  if (err instanceof SelloError) return err;
  const rv = ckrOf(err);
  const withMeta = { ...meta, ...(rv === undefined ? {} : { ckr: ckrName(err) }) };
  if (isRemovalCode(rv)) {
    return phase === 'operation'
      ? new SelloError('token_removed', { detail: 'El token se desconectó durante la operación. Vuelva a conectarlo e intente de nuevo; el documento no se modificó.', meta: withMeta, cause: err })
      : new SelloError('token_not_present', { detail: 'El token no está conectado. Conéctelo y vuelva a intentarlo.', meta: withMeta, cause: err });
  }
  switch (rv) {
    case CKR.PIN_INCORRECT:
    case CKR.PIN_INVALID:
    case CKR.PIN_LEN_RANGE:
      return new SelloError('pin_incorrect', { detail: 'El PIN no es correcto. Revíselo antes de volver a intentar: el token se bloquea tras varios intentos fallidos.', meta: withMeta, cause: err });
    case CKR.PIN_LOCKED:
      return new SelloError('pin_locked', { detail: 'El PIN del token está bloqueado. Desbloquéelo con la herramienta del fabricante (PIN de administrador/PUK).', meta: withMeta, cause: err });
    case CKR.USER_NOT_LOGGED_IN:
      return new SelloError('pin_required', { detail: 'Ingrese el PIN del token para continuar.', meta: withMeta, cause: err });
    case CKR.PIN_EXPIRED:
      return new SelloError('pkcs11_error', { detail: 'El PIN del token caducó. Cámbielo con la herramienta del fabricante y vuelva a intentar.', meta: withMeta, cause: err });
    case CKR.USER_PIN_NOT_INITIALIZED:
      return new SelloError('pkcs11_error', { detail: 'El token no tiene PIN de usuario inicializado. Inicialícelo con la herramienta del fabricante.', meta: withMeta, cause: err });
    default:
      return new SelloError('pkcs11_error', {
        detail: `El token devolvió un error inesperado (${ckrName(err)}). Desconéctelo, vuelva a conectarlo e intente de nuevo.`,
        meta: withMeta,
        cause: err,
      });
  }
}
