/**
 * What a token says about itself right now (present, PIN tries), for the admin list and
 * after a wrong PIN (CONTRACT §11: "the admin API says how many tries the token reports
 * left"). Opens the module, lists slots, closes it: no login, nothing signed.
 */
import { SelloError } from '../../errors/index.js';
import { loadTokenDriver, type PinTries } from '../../../native/index.js';

export interface TokenStatus {
  present: boolean;
  pinTries: PinTries | 'unknown';
}

export async function tokenStatus(modulePath: string, tokenSerial: string): Promise<TokenStatus> {
  let driver: ReturnType<typeof loadTokenDriver> | undefined;
  try {
    driver = loadTokenDriver(modulePath);
    const slot = (await driver.listSlots()).find((s) => s.tokenPresent && s.token?.serialNumber === tokenSerial);
    return slot?.token ? { present: true, pinTries: slot.token.pinTries } : { present: false, pinTries: 'unknown' };
  } catch {
    return { present: false, pinTries: 'unknown' };
  } finally {
    await driver?.close().catch(() => undefined);
  }
}

/**
 * Tries `pin` on the token once (C_Login), so that a person who types it learns at once whether
 * it is right, before anything waits on it (CONTRACT §11: a wrong PIN is never tried again by
 * itself: this is the person's own try). Throws SelloError `token_not_present`, `pin_incorrect`
 * (with the tries the token reports in `meta.pin_tries`) or `pin_locked`. When the token is
 * already logged in for another operation of this process, PKCS#11 cannot check a PIN again
 * (the login belongs to the application); the PIN is then taken as given and checked at its
 * first signature.
 */
export async function checkTokenPin(modulePath: string, tokenSerial: string, pin: string): Promise<void> {
  const driver = loadTokenDriver(modulePath);
  try {
    const slot = (await driver.listSlots()).find((s) => s.tokenPresent && s.token?.serialNumber === tokenSerial);
    if (!slot?.token) {
      throw new SelloError('token_not_present', {
        detail: `El token de serie ${tokenSerial} no está conectado. Conéctelo y escriba el PIN de nuevo.`,
        detailEn: `The token with serial ${tokenSerial} is not plugged in. Plug it in and type the PIN again.`,
        meta: { token_serial: tokenSerial },
      });
    }
    await driver.login(slot.slotId, pin);
  } finally {
    // The last user of the module logs out and finalizes it; another's login stays as it was.
    await driver.close().catch(() => undefined);
  }
}
