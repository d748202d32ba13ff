/**
 * A certification authority for tests and for Sello's free "test certificates" (CONTRACT §10).
 *
 * The CA key is RSA-2048 made by node:crypto; certificates are laid out with node-forge's
 * X.509 writer but signed with `crypto.sign` (forge's RSA is ~100× slower, ENGINEERING.md).
 * The CA lives as two PEM files in a folder and is created the first time the folder is
 * opened, so every later run issues under the same root.
 *
 * Issued certificates follow the profile of the signing certificates of Ecuador/Peru CAs
 * that matters to verifiers: keyUsage digitalSignature + nonRepudiation (critical), no CA,
 * subject/authority key identifiers (RFC 5280 §4.2.1.1–2).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';

const { asn1, pki } = forge;

/** Subject fields of a leaf certificate (X.520 attribute names). */
export interface CertificateSubject {
  commonName: string;
  givenName?: string;
  surname?: string;
  /** X.520 serialNumber: the holder's ID (cédula, RUC, DNI) as CAs of Ecuador/Peru put it. */
  serialNumber?: string;
  organization?: string;
  organizationalUnit?: string;
  title?: string;
  /** ISO 3166 two-letter code: EC, PE. */
  country?: string;
  locality?: string;
  emailAddress?: string;
}

/** A non-standard extension, as CAs add for the holder's tax id (value is the extnValue's DER content). */
export interface ExtraExtension {
  oid: string;
  critical?: boolean;
  value: Buffer;
  /** `value` is bare bytes, not DER, as some older Ecuadorian certificates carry (tests of tolerant readers). */
  raw?: boolean;
}

export interface IssueOptions {
  subject: CertificateSubject;
  /** Days from `notBefore` (default 365). Ignored when `notAfter` is given. */
  validityDays?: number;
  /** Default: now minus one minute (clock skew). May be in the past/future for validity tests. */
  notBefore?: Date;
  notAfter?: Date;
  /** Key to certify; a new one is made otherwise. */
  key?: KeyObject;
  /** Kind of new key (default RSA-2048). */
  keyType?: 'rsa' | 'ec';
  /**
   * `signing` (default): digitalSignature + nonRepudiation.
   * `timestamping`: a TSA certificate, extendedKeyUsage timeStamping (critical, RFC 3161 §2.3).
   * `tls-server`: serverAuth, for HTTPS receivers in tests; names go in `altNames`.
   */
  purpose?: 'signing' | 'timestamping' | 'tls-server';
  /** DNS names or IP addresses for `tls-server`. */
  altNames?: string[];
  extraExtensions?: ExtraExtension[];
}

export interface IssuedCertificate {
  /** DER. */
  certificate: Buffer;
  certificatePem: string;
  privateKey: KeyObject;
  /** PKCS#8 PEM, for tools that want a file (openssl, softhsm2-util). */
  privateKeyPem: string;
  /** The chain above the certificate, DER, issuer first (here just the CA). */
  chain: Buffer[];
}

export interface TestCa {
  /** The folder holding `test-ca.cert.pem` and `test-ca.key.pem`. */
  readonly dir: string;
  readonly certificate: Buffer;
  readonly certificatePem: string;
  readonly certificatePath: string;
  issue(opts: IssueOptions): IssuedCertificate;
}

const CERT_FILE = 'test-ca.cert.pem';
const KEY_FILE = 'test-ca.key.pem';

/**
 * Opens the test CA in `dir`, creating it (and the folder) the first time. The folder is
 * 0700 and its files 0600 (the CA's key signs every test certificate), also when an earlier
 * version made them looser.
 *
 * @example
 *   const ca = await openTestCa(join(dataDir, 'test-ca'));
 *   const leaf = ca.issue({ subject: { commonName: 'ANA PEREZ', serialNumber: '0912345678', country: 'EC' } });
 *   // leaf.certificate (DER), leaf.privateKey (KeyObject), leaf.chain = [ca.certificate]
 */
export async function openTestCa(dir: string, opts: { commonName?: string } = {}): Promise<TestCa> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await restrict(dir, 0o700);
  const certificatePath = join(dir, CERT_FILE);
  const keyPath = join(dir, KEY_FILE);
  let certPem: string;
  let keyPem: string;
  try {
    [certPem, keyPem] = await Promise.all([readFile(certificatePath, 'utf8'), readFile(keyPath, 'utf8')]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    ({ certPem, keyPem } = createCaFiles(opts.commonName ?? 'Sello Test CA'));
    // Key first, certificate last and by rename: a half-written CA is never taken for a whole one.
    const tag = randomBytes(4).toString('hex');
    await writeFile(`${keyPath}.${tag}`, keyPem, { mode: 0o600 });
    await rename(`${keyPath}.${tag}`, keyPath);
    await writeFile(`${certificatePath}.${tag}`, certPem, { mode: 0o600 });
    await rename(`${certificatePath}.${tag}`, certificatePath);
  }
  await Promise.all([restrict(keyPath, 0o600), restrict(certificatePath, 0o600)]);
  return makeTestCa(dir, certificatePath, certPem, createPrivateKey(keyPem));
}

/** Takes off `file` the permission bits outside `allowed` (group and others). */
async function restrict(file: string, allowed: number): Promise<void> {
  const mode = (await stat(file)).mode & 0o777;
  if ((mode & ~allowed) !== 0) await chmod(file, mode & allowed);
}

function makeTestCa(dir: string, certificatePath: string, certPem: string, caKey: KeyObject): TestCa {
  const caCert = pki.certificateFromPem(certPem);
  const caDer = pemToDer(certPem);
  const caSki = subjectKeyId(spkiOf(caKey));
  return {
    dir,
    certificate: caDer,
    certificatePem: certPem,
    certificatePath,
    issue(opts: IssueOptions): IssuedCertificate {
      const privateKey = opts.key ?? newKey(opts.keyType ?? 'rsa');
      const spki = spkiOf(privateKey);
      const notBefore = opts.notBefore ?? new Date(Date.now() - 60_000);
      const notAfter = opts.notAfter ?? new Date(notBefore.getTime() + (opts.validityDays ?? 365) * 86_400_000);
      const purpose = opts.purpose ?? 'signing';
      const extensions: ForgeExtension[] = [
        { name: 'basicConstraints', cA: false, critical: true },
        purpose === 'signing'
          ? { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true }
          : { name: 'keyUsage', digitalSignature: true, keyEncipherment: purpose === 'tls-server', critical: true },
        { id: '2.5.29.14', value: octetString(subjectKeyId(spki)) },
        { id: '2.5.29.35', value: authorityKeyId(caSki) },
      ];
      if (purpose === 'timestamping') extensions.push({ name: 'extKeyUsage', timeStamping: true, critical: true });
      if (purpose === 'tls-server') {
        extensions.push({ name: 'extKeyUsage', serverAuth: true });
        extensions.push({
          name: 'subjectAltName',
          altNames: (opts.altNames ?? ['localhost', '127.0.0.1']).map((n) => (/^[\d.]+$|:/.test(n) ? { type: 7, ip: n } : { type: 2, value: n })),
        });
      }
      for (const e of opts.extraExtensions ?? []) {
        extensions.push({ id: e.oid, critical: e.critical ?? false, value: e.raw ? e.value.toString('binary') : asn1.fromDer(e.value.toString('binary')) });
      }
      const certificate = buildCertificate({
        subject: toForgeAttributes(opts.subject),
        issuer: caCert.subject.attributes,
        notBefore,
        notAfter,
        spki,
        extensions,
        signingKey: caKey,
      });
      return {
        certificate,
        certificatePem: derToPem(certificate),
        privateKey,
        privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        chain: [caDer],
      };
    },
  };
}

function createCaFiles(commonName: string): { certPem: string; keyPem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = spkiOf(privateKey);
  const ski = subjectKeyId(spki);
  const notBefore = new Date(Date.now() - 86_400_000);
  const name = toForgeAttributes({ commonName, organization: 'Sello (pruebas)', country: 'EC' });
  const der = buildCertificate({
    subject: name,
    issuer: name,
    notBefore,
    notAfter: new Date(notBefore.getTime() + 20 * 365 * 86_400_000),
    spki,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      { id: '2.5.29.14', value: octetString(ski) },
    ],
    signingKey: privateKey,
  });
  return { certPem: derToPem(der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

type ForgeExtension = Record<string, unknown>;

interface CertificateFields {
  subject: forge.pki.CertificateField[];
  issuer: forge.pki.CertificateField[];
  notBefore: Date;
  notAfter: Date;
  spki: Buffer;
  extensions: ForgeExtension[];
  signingKey: KeyObject;
}

/**
 * Lays out the certificate with forge, then swaps in the real SubjectPublicKeyInfo (forge only
 * writes RSA keys; this way EC keys work too) and signs the TBSCertificate with node:crypto.
 */
function buildCertificate(f: CertificateFields): Buffer {
  const cert = pki.createCertificate();
  // Placeholder key for forge's layout; replaced below by the real SPKI.
  cert.publicKey = pki.publicKeyFromPem(createPublicKey(f.signingKey).export({ type: 'spki', format: 'pem' }).toString());
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x10; // positive, no leading zero (RFC 5280 §4.1.2.2)
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = f.notBefore;
  cert.validity.notAfter = f.notAfter;
  cert.setSubject(f.subject);
  cert.setIssuer(f.issuer);
  cert.setExtensions(f.extensions);
  const sha256WithRsa = pki.oids['sha256WithRSAEncryption'] as string;
  cert.signatureOid = sha256WithRsa;
  cert.siginfo.algorithmOid = sha256WithRsa;

  // getTBSCertificate exists in forge but is missing from @types/node-forge.
  const tbs = (pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(cert);
  const tbsChildren = tbs.value as forge.asn1.Asn1[];
  tbsChildren[6] = asn1.fromDer(f.spki.toString('binary')); // [0]version, serial, sig, issuer, validity, subject, SPKI
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbs;
  cert.signature = sign('sha256', tbsDer, f.signingKey).toString('binary');
  return Buffer.from(asn1.toDer(pki.certificateToAsn1(cert)).getBytes(), 'binary');
}

function toForgeAttributes(s: CertificateSubject): forge.pki.CertificateField[] {
  const utf8 = forge.asn1.Type.UTF8;
  const attrs: forge.pki.CertificateField[] = [];
  const add = (type: string, value: string | undefined, valueTagClass: forge.asn1.Type = utf8): void => {
    if (value !== undefined && value !== '') attrs.push({ type, value, valueTagClass } as unknown as forge.pki.CertificateField);
  };
  add('2.5.4.6', s.country, forge.asn1.Type.PRINTABLESTRING);
  add('2.5.4.7', s.locality);
  add('2.5.4.10', s.organization);
  add('2.5.4.11', s.organizationalUnit);
  add('2.5.4.12', s.title);
  add('2.5.4.4', s.surname);
  add('2.5.4.42', s.givenName);
  add('2.5.4.5', s.serialNumber, forge.asn1.Type.PRINTABLESTRING);
  add('1.2.840.113549.1.9.1', s.emailAddress, forge.asn1.Type.IA5STRING);
  add('2.5.4.3', s.commonName);
  return attrs;
}

function newKey(kind: 'rsa' | 'ec'): KeyObject {
  return kind === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
    : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

function spkiOf(key: KeyObject): Buffer {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'der' });
}

/** RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING's value. */
function subjectKeyId(spkiDer: Buffer): Buffer {
  const spki = asn1.fromDer(spkiDer.toString('binary'), { decodeBitStrings: false } as unknown as boolean);
  const bits = (spki.value as forge.asn1.Asn1[])[1];
  const value = Buffer.from(bits?.value as string, 'binary').subarray(1); // drop the unused-bits byte
  return createHash('sha1').update(value).digest();
}

function octetString(b: Buffer): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, b.toString('binary'));
}

/** AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING } (RFC 5280 §4.2.1.1). */
function authorityKeyId(keyId: Buffer): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0 as forge.asn1.Type, false, keyId.toString('binary')),
  ]);
}

export function derToPem(der: Buffer, label = 'CERTIFICATE'): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export function pemToDer(pem: string): Buffer {
  const m = /-----BEGIN [^-]+-----([\s\S]+?)-----END [^-]+-----/.exec(pem);
  if (!m?.[1]) throw new Error('PEM no válido');
  return Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
}
