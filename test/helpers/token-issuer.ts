/**
 * An issuer whose certificate is on a PKCS#11 token (SoftHSM2, PIN `1234`): the token made once
 * per test file, and agents (each with its own PIN cache) whose test issuer names it.
 *
 * @example
 *   const token = await createIssuerToken();
 *   const rig = await startTokenIssuerRig(token, { deliveryTimeScale: 1 });
 *   await rig.post(rig.invoiceBody('ERP-1')); // waits in `pending` for the PIN
 *   await rig.close();
 *   await token.cleanup();
 */
import { registerTokenCertificate } from '../../core/certificates/index.js';
import type { ConfigOverrides } from '../../core/config.js';
import { loadTokenDriver } from '../../native/index.js';
import { issuerBody, putIssuer, startInvoiceRig, type InvoiceRig } from './invoices.js';
import { createSoftHsm, type SoftHsm } from './softhsm.js';
import { createTestPki, type TestPki } from './test-ca.js';

export interface IssuerToken {
  pki: TestPki;
  hsm: SoftHsm;
  /** The token's serial number, as `POST /admin/api/fiscal/token-pin` takes it. */
  serial: string;
  label: string;
  cleanup(): Promise<void>;
}

export async function createIssuerToken(label = 'emisor'): Promise<IssuerToken> {
  const pki = await createTestPki();
  const hsm = await createSoftHsm();
  const token = await hsm.initToken({ label, pin: '1234' });
  await token.importKey({ id: '01', label, key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const driver = loadTokenDriver(hsm.modulePath);
  const serial = (await driver.listSlots()).find((s) => s.token?.label === label)!.token!.serialNumber;
  await driver.close();
  return {
    pki,
    hsm,
    serial,
    label,
    async cleanup() {
      await hsm.cleanup();
      await pki.cleanup();
    },
  };
}

/** An invoice rig whose test issuer's certificate is the token's (a test issuer may name a live certificate, CONTRACT §15). */
export async function startTokenIssuerRig(token: IssuerToken, config: ConfigOverrides = {}): Promise<InvoiceRig> {
  const rig = await startInvoiceRig({ config: { pkcs11Modules: [token.hsm.modulePath], ...config } });
  const certificateId = registerTokenCertificate(rig.agent.store, {
    modulePath: token.hsm.modulePath,
    tokenSerial: token.serial,
    tokenLabel: token.label,
    keyId: Buffer.from('01', 'hex'),
    certificate: token.pki.leaf.certificate,
    chain: token.pki.leaf.chain,
  }).id;
  await putIssuer(rig.agent, rig.agent.testKey, issuerBody(certificateId));
  return rig;
}
