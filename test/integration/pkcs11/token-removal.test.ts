/**
 * A token pulled out: SoftHSM2's tokens folder is moved away (test/helpers/softhsm.ts).
 * SoftHSM then fails C_GetTokenInfo and finds no objects; real drivers answer
 * CKR_DEVICE_REMOVED / CKR_TOKEN_NOT_PRESENT. Its own file: SoftHSM does not recover within
 * the process, and its config is read once per process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenKeySource } from '../../../core/signing/key-sources/index.js';
import { loadTokenDriver, type TokenDriver } from '../../../native/index.js';
import { createSoftHsm, type SoftHsm } from '../../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let hsm: SoftHsm;
let driver: TokenDriver;
let slotId: string;
let serial: string;
const ID = Buffer.from('01', 'hex');

beforeAll(async () => {
  pki = await createTestPki();
  hsm = await createSoftHsm();
  const token = await hsm.initToken({ label: 'usb', pin: '1234' });
  await token.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  driver = loadTokenDriver(hsm.modulePath);
  const slot = (await driver.listSlots()).find((s) => s.token?.label === 'usb');
  slotId = slot?.slotId ?? '';
  serial = slot?.token?.serialNumber ?? '';
});
afterAll(async () => {
  await driver?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
});

describe('a token removed mid-operation', () => {
  it('fails the running batch with token_removed, then login says token_not_present', async () => {
    await driver.login(slotId, '1234');
    let done = 0;
    const batch = (async () => {
      for (let i = 0; i < 500; i++) {
        await driver.sign(slotId, ID, Buffer.from(`doc ${i}`));
        done++;
        if (done === 5) await hsm.removeTokens();
      }
    })();
    await expect(batch).rejects.toMatchObject({ code: 'token_removed' });
    expect(done).toBe(5);
    expect(driver.isLoggedIn(slotId)).toBe(false);

    await expect(driver.login(slotId, '1234')).rejects.toMatchObject({ code: 'token_not_present' });
    await expect(driver.sign(slotId, ID, Buffer.from('x'))).rejects.toMatchObject({ code: 'pin_required' });
    const slot = (await driver.listSlots()).find((s) => s.slotId === slotId);
    expect(slot?.tokenPresent).toBe(false);
  });

  it('tokenKeySource says token_not_present when the token is not plugged in', async () => {
    const source = await tokenKeySource({ driver, tokenSerial: serial, keyId: ID, certificate: pki.leaf.certificate, chain: [], pin: async () => '1234' });
    await expect(source.sign(Buffer.from('x'))).rejects.toMatchObject({ code: 'token_not_present' });
  });
});
