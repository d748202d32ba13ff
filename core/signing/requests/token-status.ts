/**
 * What a token says about itself right now (present, PIN tries), for the admin list and
 * after a wrong PIN (CONTRACT §11: "the admin API says how many tries the token reports
 * left"). Opens the module, lists slots, closes it: no login, nothing signed.
 */
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
