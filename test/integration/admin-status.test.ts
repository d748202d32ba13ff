import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { SOFTHSM_MODULE } from '../helpers/softhsm.js';
import { createTokenFixture, type TokenFixture } from '../helpers/token-fixture.js';

interface Status {
  data: { tokens: Array<{ label: string; present: boolean; pin_tries: string }>; pending_signatures: number; failed_deliveries: number };
}

/** Estado (CONTRACT §14): the tokens Sello knows, whether each is plugged in, and its PIN tries. */
describe('GET /admin/api/status', () => {
  let fixture: TokenFixture;
  let agent: TestAgent;

  beforeAll(async () => {
    fixture = await createTokenFixture({ label: 'oficina', keyId: '0b' });
    agent = await startTestAgent({ pkcs11Modules: [SOFTHSM_MODULE] });
  });
  afterAll(async () => {
    await agent.close();
    await fixture.cleanup();
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
    await fixture.hsm.removeTokens();
    expect((await status()).tokens).toEqual([expect.objectContaining({ label: 'oficina', present: false })]);
    await fixture.hsm.reinsertTokens();
  });
});
