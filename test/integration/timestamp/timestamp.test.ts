import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OID, encode } from '../../../core/pdf/cms/cms-asn1.js';
import { buildPadesCms, estimateCmsSize } from '../../../core/pdf/cms/cms.js';
import { readTstInfo, requestTimestampToken } from '../../../core/pdf/cms/timestamp.js';
import { softwareKeySource, type KeySource } from '../../../core/signing/key-sources/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { startTestTsa, type TestTsa } from '../../helpers/tsa.js';
import { parseCms } from '../../unit/cms/cms-reader.js';

const run = promisify(execFile);

let pki: TestPki;
let tsa: TestTsa;
let signer: KeySource;
const data = Buffer.from('contenido del PDF para B-T');
const digest = createHash('sha256').update(data).digest();

beforeAll(async () => {
  pki = await createTestPki();
  tsa = await startTestTsa(pki);
  signer = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain });
});
afterAll(async () => {
  await tsa.stop();
  await pki.cleanup();
});
beforeEach(() => {
  tsa.behavior = 'ok';
});

describe('buildPadesCms with a timestamp (PAdES B-T)', () => {
  it('puts an RFC 3161 token over the signature value in id-aa-timeStampToken, and openssl ts -verify accepts it', async () => {
    const der = await buildPadesCms({ digest, signer, timestampUrl: tsa.url });
    const cms = parseCms(der);
    expect(cms.unsignedAttrs.map((a) => a.oid)).toEqual([OID.timeStampToken]);
    const token = encode(cms.unsignedAttrs[0]?.values[0] as never);
    const info = readTstInfo(token);
    expect(info.messageImprint).toEqual(createHash('sha256').update(cms.signature).digest());
    expect(Math.abs(info.genTime.getTime() - Date.now())).toBeLessThan(60_000);

    const dir = await mkdtemp(join(pki.dir, 'ts-'));
    await writeFile(join(dir, 'sig.bin'), cms.signature);
    await writeFile(join(dir, 'token.der'), token);
    const { stdout } = await run('openssl', [
      'ts', '-verify', '-data', join(dir, 'sig.bin'), '-in', join(dir, 'token.der'), '-token_in',
      '-CAfile', tsa.caFile, '-untrusted', tsa.certFile,
    ]);
    expect(stdout).toContain('Verification: OK');

    // The whole CMS still verifies over the detached content.
    await writeFile(join(dir, 'data.bin'), data);
    await writeFile(join(dir, 'sig.p7s'), der);
    const { stderr } = await run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', join(dir, 'sig.p7s'), '-content', join(dir, 'data.bin'), '-CAfile', pki.ca.certificatePath, '-purpose', 'any', '-out', '/dev/null']);
    expect(stderr).toContain('Verification successful');
    expect(estimateCmsSize(signer, { timestamp: true })).toBeGreaterThan(der.length);
  });

  it.each([
    ['reject', /rechazó/],
    ['http-500', /HTTP 500/],
    ['garbage', /RFC 3161/],
    ['wrong-imprint', /messageImprint/],
  ] as const)('fails with timestamp_failed when the TSA answers %s', async (behavior, detail) => {
    tsa.behavior = behavior;
    const err = await buildPadesCms({ digest, signer, timestampUrl: tsa.url }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timestamp_failed' });
    expect((err as Error).message).toMatch(detail);
  });

  it('fails with timestamp_failed when the TSA cannot be reached', async () => {
    await expect(requestTimestampToken({ url: 'http://127.0.0.1:9/tsr', data })).rejects.toMatchObject({ code: 'timestamp_failed' });
    await expect(requestTimestampToken({ url: 'ftp://tsa.example/', data })).rejects.toMatchObject({ code: 'timestamp_failed' });
  });

  it('sends one query with Content-Type application/timestamp-query per signature', async () => {
    const before = tsa.requests;
    await requestTimestampToken({ url: tsa.url, data });
    expect(tsa.requests).toBe(before + 1);
  });
});
