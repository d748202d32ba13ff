import { execFile } from 'node:child_process';
import { createHash, verify, X509Certificate } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OID, children, content, encode, isContext } from '../../../core/pdf/cms/cms-asn1.js';
import { buildPadesCms, estimateCmsSize, signedAttributesOf, type CmsSigner } from '../../../core/pdf/cms/cms.js';
import { softwareKeySource } from '../../../core/signing/key-sources/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { parseCms } from './cms-reader.js';

const run = promisify(execFile);

let pki: TestPki;
let signer: CmsSigner;
const content1 = Buffer.from('%PDF-1.7 contenido firmado de prueba\n', 'utf8');
const digest = createHash('sha256').update(content1).digest();

beforeAll(async () => {
  pki = await createTestPki();
  signer = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain });
});
afterAll(() => pki.cleanup());

describe('buildPadesCms', () => {
  it('writes SignedData v1, SHA-256, detached id-data, signer certificate first', async () => {
    const cms = parseCms(await buildPadesCms({ digest, signer }));
    expect(cms.version).toEqual(Buffer.from([1]));
    expect(cms.digestAlgorithms).toEqual([OID.sha256]);
    expect(cms.eContentType).toBe(OID.data);
    expect(cms.eContentPresent).toBe(false);
    expect(cms.certificates[0]).toEqual(pki.leaf.certificate);
    expect(cms.certificates[1]).toEqual(pki.ca.certificate);
    expect(cms.signerVersion).toEqual(Buffer.from([1]));
    expect(cms.digestAlgorithm).toBe(OID.sha256);
    expect(cms.signatureAlgorithm).toBe(OID.rsaEncryption);
    expect(cms.unsignedAttrs).toEqual([]);
  });

  it('signs exactly content-type, message-digest and signingCertificateV2, DER-sorted, without signing-time', async () => {
    const cms = parseCms(await buildPadesCms({ digest, signer }));
    expect(cms.signedAttrs.map((a) => a.oid).sort()).toEqual([OID.contentType, OID.messageDigest, OID.signingCertificateV2].sort());
    expect(cms.signedAttrs.some((a) => a.oid === OID.signingTime)).toBe(false);
    const ders = cms.signedAttrs.map((a) => a.der);
    expect([...ders].sort(Buffer.compare)).toEqual(ders);
    const md = cms.signedAttrs.find((a) => a.oid === OID.messageDigest);
    expect(content(md?.values[0], 'md')).toEqual(digest);
    const ct = cms.signedAttrs.find((a) => a.oid === OID.contentType);
    expect(encode(ct?.values[0] as never).toString('hex')).toBe('06092a864886f70d010701');
  });

  it('binds the certificate with ESSCertIDv2: SHA-256 of the certificate and its issuer/serial (RFC 5035)', async () => {
    const cms = parseCms(await buildPadesCms({ digest, signer }));
    const attr = cms.signedAttrs.find((a) => a.oid === OID.signingCertificateV2);
    const certs = children(children(attr?.values[0], 'SigningCertificateV2')[0], 'certs');
    expect(certs).toHaveLength(1);
    const ess = children(certs[0], 'ESSCertIDv2');
    // hashAlgorithm is DEFAULT sha256 and therefore absent in DER: first element is the hash.
    expect(content(ess[0], 'certHash')).toEqual(createHash('sha256').update(pki.leaf.certificate).digest());
    const issuerSerial = children(ess[1], 'IssuerSerial');
    const generalName = children(issuerSerial[0], 'GeneralNames')[0];
    expect(isContext(generalName, 4)).toBe(true);
    const x = new X509Certificate(pki.leaf.certificate);
    expect(encode(children(generalName, 'directoryName')[0] as never)).toEqual(x509IssuerDer(pki.leaf.certificate));
    expect(content(issuerSerial[1], 'serial').toString('hex').toUpperCase().replace(/^00/, '')).toBe(x.serialNumber.toUpperCase().replace(/^00/, ''));
  });

  it('signs the DER SET (tag 0x31) of the attributes, verifiable with node:crypto', async () => {
    const der = await buildPadesCms({ digest, signer });
    const cms = parseCms(der);
    expect(cms.signedAttrsDer[0]).toBe(0x31);
    expect(signedAttributesOf(der)).toEqual(cms.signedAttrsDer);
    const pub = new X509Certificate(pki.leaf.certificate).publicKey;
    expect(verify('sha256', cms.signedAttrsDer, pub, cms.signature)).toBe(true);
  });

  it('is accepted by openssl cms -verify over the detached content', async () => {
    const dir = await mkdtemp(join(pki.dir, 'cms-'));
    await writeFile(join(dir, 'data.bin'), content1);
    await writeFile(join(dir, 'sig.p7s'), await buildPadesCms({ digest, signer }));
    const { stderr } = await run('openssl', [
      'cms', '-verify', '-binary', '-inform', 'DER', '-in', join(dir, 'sig.p7s'), '-content', join(dir, 'data.bin'),
      '-CAfile', pki.ca.certificatePath, '-purpose', 'any', '-out', '/dev/null',
    ]);
    expect(stderr).toContain('Verification successful');
  });

  it('is rejected by openssl cms -verify when the content differs', async () => {
    const dir = await mkdtemp(join(pki.dir, 'cms-'));
    await writeFile(join(dir, 'data.bin'), Buffer.concat([content1, Buffer.from('x')]));
    await writeFile(join(dir, 'sig.p7s'), await buildPadesCms({ digest, signer }));
    await expect(
      run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', join(dir, 'sig.p7s'), '-content', join(dir, 'data.bin'), '-CAfile', pki.ca.certificatePath, '-purpose', 'any', '-out', '/dev/null']),
    ).rejects.toThrow();
  });

  it('writes ecdsa-with-SHA256 for an EC key and openssl verifies it', async () => {
    const ec = pki.issue({ subject: { commonName: 'EC FIRMANTE', country: 'PE' }, keyType: 'ec' });
    const ecSigner = softwareKeySource({ key: ec.privateKey, certificate: ec.certificate, chain: ec.chain });
    const der = await buildPadesCms({ digest, signer: ecSigner });
    expect(parseCms(der).signatureAlgorithm).toBe(OID.ecdsaWithSha256);
    const dir = await mkdtemp(join(pki.dir, 'cms-'));
    await writeFile(join(dir, 'data.bin'), content1);
    await writeFile(join(dir, 'sig.p7s'), der);
    const { stderr } = await run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', join(dir, 'sig.p7s'), '-content', join(dir, 'data.bin'), '-CAfile', pki.ca.certificatePath, '-purpose', 'any', '-out', '/dev/null']);
    expect(stderr).toContain('Verification successful');
  });

  it('refuses a signature that does not match the certificate', async () => {
    const other = pki.issue({ subject: { commonName: 'OTRO' } });
    const wrong: CmsSigner = { certificate: pki.leaf.certificate, chain: pki.leaf.chain, sign: (d) => softwareKeySource({ key: other.privateKey, certificate: other.certificate }).sign(d) };
    await expect(buildPadesCms({ digest, signer: wrong })).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('rejects a digest that is not SHA-256', async () => {
    await expect(buildPadesCms({ digest: Buffer.alloc(20), signer })).rejects.toThrow(/SHA-256/);
  });
});

describe('estimateCmsSize', () => {
  it('reserves more than the CMS takes, with room for a timestamp token', async () => {
    const der = await buildPadesCms({ digest, signer });
    const plain = estimateCmsSize(signer, { timestamp: false });
    expect(plain).toBeGreaterThan(der.length);
    expect(estimateCmsSize(signer, { timestamp: true })).toBeGreaterThanOrEqual(plain + 8000);
  });
});

/** The issuer Name's DER, read straight from the certificate (TBSCertificate field 4). */
function x509IssuerDer(cert: Buffer): Buffer {
  const tbs = readTlvChildren(readTlvChildren(cert)[0] as Buffer);
  return tbs[isExplicitVersion(tbs[0]) ? 3 : 2] as Buffer;
}
function isExplicitVersion(b: Buffer | undefined): boolean {
  return b?.[0] === 0xa0;
}
function readTlvChildren(der: Buffer): Buffer[] {
  const { start, end } = tlv(der, 0);
  const out: Buffer[] = [];
  for (let at = start; at < end; ) {
    const t = tlv(der, at);
    out.push(der.subarray(at, t.end));
    at = t.end;
  }
  return out;
}
function tlv(der: Buffer, at: number): { start: number; end: number } {
  let len = der[at + 1] ?? 0;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = (len << 8) | (der[start + i] ?? 0);
    start += n;
  }
  return { start, end: start + len };
}
