/**
 * X.509 certificates for Sello's own HTTPS: a local CA and the server certificates it signs.
 * Laid out with node-forge, signed with node:crypto (forge's RSA is ~100× slower, ENGINEERING.md),
 * keys made by node:crypto. RSA-2048 and SHA-256: what every ERP's HTTP client accepts, old
 * .NET and Java ones included.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import type { MachineNames } from './names.js';

const { asn1, pki } = forge;

export interface Pair {
  certPem: string;
  keyPem: string;
}

const DAY = 86_400_000;

export function newRsaKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

function pem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * A CA that can sign server certificates and nothing below them (pathLen 0), named after the
 * machine with a random tag, so that two offices' CAs never share a name.
 */
export function buildCa(hostname: string, now: Date, validityDays: number): Pair {
  const key = newRsaKey();
  const name = [
    { type: '2.5.4.10', value: 'Sello' },
    { type: '2.5.4.3', value: `Sello CA local ${hostname} ${randomBytes(3).toString('hex')}` },
  ];
  const spki = spkiOf(key);
  const notBefore = new Date(now.getTime() - DAY);
  return {
    certPem: build({
      subject: name,
      issuer: name,
      notBefore,
      notAfter: new Date(notBefore.getTime() + validityDays * DAY),
      spki,
      extensions: [
        { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        { id: '2.5.29.14', value: octetString(keyId(spki)) },
      ],
      signingKey: key,
    }),
    keyPem: pem(key),
  };
}

/** A server certificate for `names`, signed by the CA. */
export function buildServerCertificate(ca: { certPem: string; key: KeyObject }, names: MachineNames, now: Date, validityDays: number): Pair {
  const key = newRsaKey();
  const caCert = pki.certificateFromPem(ca.certPem);
  const spki = spkiOf(key);
  const notBefore = new Date(now.getTime() - DAY);
  const commonName = names.dns.find((n) => n !== 'localhost') ?? 'localhost';
  return {
    certPem: build({
      subject: [
        { type: '2.5.4.10', value: 'Sello' },
        { type: '2.5.4.3', value: commonName },
      ],
      issuer: caCert.subject.attributes.map((a) => ({ type: a.type as string, value: a.value as string })),
      notBefore,
      notAfter: new Date(notBefore.getTime() + validityDays * DAY),
      spki,
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.filter((ip) => isIP(ip)).map((ip) => ({ type: 7, ip }))],
        },
        { id: '2.5.29.14', value: octetString(keyId(spki)) },
        { id: '2.5.29.35', value: authorityKeyId(keyId(spkiOf(createPublicKey(ca.key)))) },
      ],
      signingKey: ca.key,
    }),
    keyPem: pem(key),
  };
}

interface Fields {
  subject: Array<{ type: string; value: string }>;
  issuer: Array<{ type: string; value: string }>;
  notBefore: Date;
  notAfter: Date;
  spki: Buffer;
  extensions: Array<Record<string, unknown>>;
  signingKey: KeyObject;
}

function build(f: Fields): string {
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(createPublicKey(f.signingKey).export({ type: 'spki', format: 'pem' }).toString());
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x10; // positive, no leading zero (RFC 5280 §4.1.2.2)
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = f.notBefore;
  cert.validity.notAfter = f.notAfter;
  const utf8 = (attrs: Fields['subject']) => attrs.map((a) => ({ ...a, valueTagClass: asn1.Type.UTF8 }) as unknown as forge.pki.CertificateField);
  cert.setSubject(utf8(f.subject));
  cert.setIssuer(utf8(f.issuer));
  cert.setExtensions(f.extensions);
  const sha256WithRsa = pki.oids['sha256WithRSAEncryption'] as string;
  cert.signatureOid = sha256WithRsa;
  cert.siginfo.algorithmOid = sha256WithRsa;
  // getTBSCertificate exists in forge but is missing from @types/node-forge.
  const tbs = (pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(cert);
  (tbs.value as forge.asn1.Asn1[])[6] = asn1.fromDer(f.spki.toString('binary')); // the real SubjectPublicKeyInfo
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbs;
  cert.signature = sign('sha256', tbsDer, f.signingKey).toString('binary');
  const der = Buffer.from(asn1.toDer(pki.certificateToAsn1(cert)).getBytes(), 'binary');
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

function spkiOf(key: KeyObject): Buffer {
  return (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });
}

/** RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING's value. */
function keyId(spkiDer: Buffer): Buffer {
  const spki = asn1.fromDer(spkiDer.toString('binary'), { decodeBitStrings: false } as unknown as boolean);
  const bits = (spki.value as forge.asn1.Asn1[])[1];
  return createHash('sha1').update(Buffer.from(bits?.value as string, 'binary').subarray(1)).digest();
}

function octetString(b: Buffer): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, b.toString('binary'));
}

function authorityKeyId(id: Buffer): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0 as forge.asn1.Type, false, id.toString('binary'))]);
}
