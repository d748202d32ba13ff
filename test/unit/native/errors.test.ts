import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ecdsaRawToDer, loadTokenDriver, pinTriesOf } from '../../../native/index.js';
import { toSelloError } from '../../../native/pkcs11-errors.js';

/** The shape of pkcs11js's Pkcs11Error (message "CKR_NAME", numeric code); only native/ imports pkcs11js. */
function ckr(name: string, code: number): Error {
  return Object.assign(new Error(name), { name: 'Pkcs11Error', code, method: 'C_Login' });
}

describe('toSelloError', () => {
  it.each([
    ['CKR_PIN_INCORRECT', 0xa0, 'operation', 'pin_incorrect'],
    ['CKR_PIN_LOCKED', 0xa4, 'operation', 'pin_locked'],
    ['CKR_USER_NOT_LOGGED_IN', 0x101, 'operation', 'pin_required'],
    ['CKR_DEVICE_REMOVED', 0x32, 'operation', 'token_removed'],
    ['CKR_DEVICE_REMOVED', 0x32, 'open', 'token_not_present'],
    ['CKR_TOKEN_NOT_PRESENT', 0xe0, 'open', 'token_not_present'],
    ['CKR_SESSION_HANDLE_INVALID', 0xb3, 'operation', 'token_removed'],
    ['CKR_DEVICE_ERROR', 0x30, 'operation', 'token_removed'],
    ['CKR_FUNCTION_FAILED', 0x06, 'operation', 'pkcs11_error'],
  ] as const)('%s during %s → %s', (name, code, phase, expected) => {
    const err = toSelloError(ckr(name, code), phase);
    expect(err.code).toBe(expected);
    expect(err.details.meta).toMatchObject({ ckr: name });
  });
});

describe('loadTokenDriver', () => {
  it('answers pkcs11_module_not_found for a missing file', () => {
    expect(() => loadTokenDriver('/nonexistent/libnothing.so')).toThrow(expect.objectContaining({ code: 'pkcs11_module_not_found' }));
  });

  it('answers pkcs11_module_not_found for a file that is not a PKCS#11 library', () => {
    expect(() => loadTokenDriver('/etc/hostname')).toThrow(expect.objectContaining({ code: 'pkcs11_module_not_found' }));
  });
});

describe('pinTriesOf', () => {
  const base = { loginRequired: true, userPinInitialized: true, protectedAuthenticationPath: false, tokenInitialized: true, userPinCountLow: false, userPinFinalTry: false, userPinLocked: false, userPinToBeChanged: false };
  it('reads CKF_USER_PIN_COUNT_LOW / FINAL_TRY / LOCKED', () => {
    expect(pinTriesOf(base)).toBe('ok');
    expect(pinTriesOf({ ...base, userPinCountLow: true })).toBe('low');
    expect(pinTriesOf({ ...base, userPinCountLow: true, userPinFinalTry: true })).toBe('final_try');
    expect(pinTriesOf({ ...base, userPinLocked: true })).toBe('locked');
  });
});

describe('ecdsaRawToDer', () => {
  it('turns r‖s (CKM_ECDSA) into a DER Ecdsa-Sig-Value that node:crypto verifies', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 20; i++) {
      const data = Buffer.from(`mensaje ${i}`);
      const raw = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
      expect(verify('sha256', data, publicKey, ecdsaRawToDer(raw))).toBe(true);
    }
  });
});
