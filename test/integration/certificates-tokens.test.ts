import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { SOFTHSM_MODULE } from '../helpers/softhsm.js';
import { createTokenFixture, type TokenFixture } from '../helpers/token-fixture.js';
import { TEST_SUBJECT } from '../helpers/test-ca.js';

/** Issue 5 item 1: every certificate found on the configured tokens has a record, without `sello tokens`. */
describe('token certificates at start', () => {
  let fixture: TokenFixture;
  let agent: TestAgent;

  beforeAll(async () => {
    fixture = await createTokenFixture({ label: 'oficina', keyId: '0a' });
    agent = await startTestAgent({ pkcs11Modules: [SOFTHSM_MODULE] });
  });
  afterAll(async () => {
    await agent.close();
    await fixture.cleanup();
  });

  const certificates = async (key: string) => {
    const res = await agent.fetch('/certificates', { headers: { 'X-Api-Key': key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Array<{ id: string; environment: string; serial_number: string; principal: { first_name: string } }> }).data;
  };

  it('lists the token’s certificate to a live key once the agent has started', async () => {
    const serial = new (await import('node:crypto')).X509Certificate(fixture.pki.leaf.certificate).serialNumber.toUpperCase();
    let found: Awaited<ReturnType<typeof certificates>> = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      found = (await certificates(agent.liveApiKey)).filter((c) => c.serial_number.toUpperCase() === serial);
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ environment: 'live' });
    expect(JSON.stringify(found[0])).toContain(TEST_SUBJECT.givenName);
    // A test key never sees it.
    expect((await certificates(agent.testApiKey)).map((c) => c.id)).not.toContain(found[0]!.id);
  });
});
