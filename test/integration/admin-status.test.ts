import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { createSoftHsm, SOFTHSM_MODULE, type SoftHsm } from '../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

interface Status {
  data: { tokens: Array<{ label: string; present: boolean; pin_tries: string }>; pending_signatures: number; failed_deliveries: number };
}

/** Estado (CONTRACT §14): the tokens Sello knows, whether each is plugged in, and its PIN tries. */
describe('GET /admin/api/status', () => {
  let pki: TestPki;
  let hsm: SoftHsm;
  let agent: TestAgent;

  beforeAll(async () => {
    pki = await createTestPki();
    hsm = await createSoftHsm();
    const token = await hsm.initToken({ label: 'oficina', pin: '1234' });
    await token.importKey({ id: '0b', label: 'oficina', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
    agent = await startTestAgent({ pkcs11Modules: [SOFTHSM_MODULE] });
  });
  afterAll(async () => {
    await agent.close();
    await hsm.cleanup();
    await pki.cleanup();
  });

  const status = async (): Promise<Status['data']> => {
    const res = await agent.fetch('/admin/api/status', { headers: { Authorization: `Bearer ${agent.adminToken}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as Status).data;
  };

  it('lists a known token as present with its PIN tries, and as absent once unplugged', async () => {
    let tokens: Status['data']['tokens'] = [];
    for (let i = 0; i < 50 && tokens.length === 0; i++) {
      tokens = (await status()).tokens;
      if (tokens.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(tokens).toEqual([expect.objectContaining({ label: 'oficina', present: true, pin_tries: 'ok' })]);
    await hsm.removeTokens();
    expect((await status()).tokens).toEqual([expect.objectContaining({ label: 'oficina', present: false })]);
    await hsm.reinsertTokens();
  });
});
