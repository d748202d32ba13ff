import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenDriver, type TokenDriver } from '../../../native/index.js';
import { signPdf } from '../../../core/pdf/index.js';
import { softwareKeySource, tokenKeySource, type KeySource } from '../../../core/signing/key-sources/index.js';
import { startTestAgent, type TestAgent } from '../../helpers/agent.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { createSoftHsm, SOFTHSM_MODULE, type SoftHsm } from '../../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

/** Issue 4: a slow signer must not block requests — token signatures run off the event loop. */
describe('the API while a token signs', () => {
  let agent: TestAgent;
  let hsm: SoftHsm;
  let pki: TestPki;
  let driver: TokenDriver;
  let serial: string;

  beforeAll(async () => {
    pki = await createTestPki();
    hsm = await createSoftHsm();
    const token = await hsm.initToken({ label: 'lenta', pin: '1234' });
    await token.importKey({ id: '01', label: 'lenta', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
    driver = loadTokenDriver(SOFTHSM_MODULE);
    serial = (await driver.listSlots()).find((s) => s.token?.label === 'lenta')!.token!.serialNumber;
    agent = await startTestAgent();
  });
  afterAll(async () => {
    await agent.close();
    await driver.close();
    await hsm.cleanup();
    await pki.cleanup();
  });

  /**
   * Signs 60 PDFs one after the other while a client polls the API, and counts the API
   * answers that arrived while the key was computing a signature.
   */
  async function answersDuringSignatures(source: KeySource): Promise<number> {
    let inSignature = false;
    const watched: KeySource = {
      ...source,
      async sign(data) {
        inSignature = true;
        try {
          return await source.sign(data);
        } finally {
          inSignature = false;
        }
      },
    };
    const pdf = await makePdf({ pages: [{}] });
    await signPdf(pdf, watched); // log in once, outside the measured batch
    let signing = true;
    let answered = 0;
    const poll = (async () => {
      while (signing) {
        const res = await agent.fetch('/api/v1/tax-types?page[limit]=1', { headers: { Authorization: `Bearer ${agent.liveKey}` } });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        if (inSignature) answered++;
      }
    })();
    for (let i = 0; i < 60; i++) await signPdf(pdf, watched);
    signing = false;
    await poll;
    return answered;
  }

  it('answers API requests while the token computes a signature', async () => {
    const token = await tokenKeySource({ driver, tokenSerial: serial, keyId: Buffer.from('01', 'hex'), pin: async () => '1234' });
    expect(await answersDuringSignatures(token)).toBeGreaterThan(0);
  });

  it('(control) cannot answer while a key that computes on the event loop signs', async () => {
    const software = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain });
    expect(await answersDuringSignatures(software)).toBe(0);
  });
});
