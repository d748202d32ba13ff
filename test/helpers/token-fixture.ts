import { createSoftHsm, type SoftHsm } from './softhsm.js';
import { createTestPki, type TestPki } from './test-ca.js';

export interface TokenFixture {
  pki: TestPki;
  hsm: SoftHsm;
  cleanup(): Promise<void>;
}

/**
 * A SoftHSM2 token holding the test PKI's signer key and certificate, ready before an agent
 * starts (SoftHSM reads its configuration when the module is first loaded).
 *
 * @example
 *   const fixture = await createTokenFixture({ label: 'oficina', keyId: '0a' });
 *   const agent = await startTestAgent({ pkcs11Modules: [SOFTHSM_MODULE] });
 */
export async function createTokenFixture(opts: { label: string; pin?: string; keyId?: string }): Promise<TokenFixture> {
  const pki = await createTestPki();
  const hsm = await createSoftHsm();
  const token = await hsm.initToken({ label: opts.label, pin: opts.pin ?? '1234' });
  await token.importKey({ id: opts.keyId ?? '01', label: opts.label, key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  return {
    pki,
    hsm,
    async cleanup() {
      await hsm.cleanup();
      await pki.cleanup();
    },
  };
}
