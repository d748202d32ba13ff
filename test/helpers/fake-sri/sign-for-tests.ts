/**
 * Test-only comprobantes the fake SRI accepts: a signed sample of `test/fixtures/sri/samples`
 * with its fields and access key rewritten (a valid modulo-11 key built from the fields), then
 * re-signed by `xmlsec1 --sign` over the sample's own XAdES-BES template with a test key.
 * Sello's real signer lives in core/xml/; this one only exists so that the fake's "accepted"
 * path has something valid to accept.
 *
 * @example
 *   const pki = await createTestPki();
 *   const key = { keyPem: pki.leaf.privateKeyPem, certPem: pki.leaf.certificatePem };
 *   const { bytes, accessKey } = await signedComprobante(key, { secuencial: '000000123' });
 */
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withCheckDigit } from '../../../core/documents/access-key.js';

export const SAMPLES_DIR = fileURLToPath(new URL('../../fixtures/sri/samples/', import.meta.url));

export type SampleName = 'invoice' | 'credit-note' | 'debit-note' | 'withholding-certificate';

/** A sample's exact text (its bytes are UTF-8). */
export function readSample(name: SampleName, variant: 'signed' | 'unsigned' = 'signed'): string {
  return readFileSync(join(SAMPLES_DIR, `${name}.${variant}.xml`), 'utf8');
}

export interface ComprobanteChanges {
  /** Nine digits. */
  secuencial?: string;
  ambiente?: '1' | '2';
  /** dd/mm/aaaa. */
  fechaEmision?: string;
  /** The key's eight-digit numeric code (default: the sample's). */
  codigoNumerico?: string;
  /** Put this key in the XML as it is, instead of one built from the fields (to test bad keys). */
  claveAcceso?: string;
  /** The buyer (facturas): `tipoIdentificacionComprador`, `identificacionComprador`, `razonSocialComprador`. */
  buyer?: { idTypeCode?: string; taxId?: string; name?: string };
}

function field(xml: string, tag: string): string {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  if (!m) throw new Error(`sample has no <${tag}>`);
  return m[1]!;
}

function setField(xml: string, tag: string, value: string): string {
  return xml.replace(new RegExp(`<${tag}>[^<]*</${tag}>`), `<${tag}>${value}</${tag}>`);
}

/** The access key the fields of `xml` call for, with a valid check digit. */
export function accessKeyFor(xml: string, codigoNumerico?: string): string {
  const [d, m, y] = field(xml, 'fechaEmision').split('/');
  const current = field(xml, 'claveAcceso');
  const code = codigoNumerico ?? (/^\d{49}$/.test(current) ? current.slice(39, 47) : '12345678');
  return withCheckDigit(
    `${d}${m}${y}${field(xml, 'codDoc')}${field(xml, 'ruc')}${field(xml, 'ambiente')}${field(xml, 'estab')}${field(xml, 'ptoEmi')}${field(xml, 'secuencial')}${code}${field(xml, 'tipoEmision')}`,
  );
}

/** Rewrites the content (not the signature) of a comprobante: fields, then its access key. */
export function rekey(xml: string, changes: ComprobanteChanges = {}): { xml: string; accessKey: string } {
  const at = xml.indexOf('<ds:Signature');
  let content = at < 0 ? xml : xml.slice(0, at);
  const signature = at < 0 ? '' : xml.slice(at);
  if (changes.secuencial) content = setField(content, 'secuencial', changes.secuencial);
  if (changes.ambiente) content = setField(content, 'ambiente', changes.ambiente);
  if (changes.fechaEmision) content = setField(content, 'fechaEmision', changes.fechaEmision);
  const escaped = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  if (changes.buyer?.idTypeCode) content = setField(content, 'tipoIdentificacionComprador', escaped(changes.buyer.idTypeCode));
  if (changes.buyer?.taxId) content = setField(content, 'identificacionComprador', escaped(changes.buyer.taxId));
  if (changes.buyer?.name) content = setField(content, 'razonSocialComprador', escaped(changes.buyer.name));
  const accessKey = changes.claveAcceso ?? accessKeyFor(content, changes.codigoNumerico);
  content = setField(content, 'claveAcceso', accessKey);
  return { xml: content + signature, accessKey };
}

export interface TestSigningKey {
  keyPem: string;
  certPem: string;
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 30_000 }, (err, _stdout, stderr) => (err ? reject(new Error(`${cmd} failed: ${String(stderr)}`)) : resolve()));
  });
}

const b64url = (s: string) => Buffer.from(s, 'base64url').toString('base64');

/**
 * Signs `xml`, which carries a sample's `ds:Signature` as its template, with `key`: the
 * template's certificate, key value and SigningCertificate become the test key's, then
 * xmlsec1 computes the three digests and the signature value.
 */
export async function signWithTemplate(xml: string, key: TestSigningKey): Promise<string> {
  const at = xml.indexOf('<ds:Signature');
  if (at < 0) throw new Error('no ds:Signature template');
  const root = /<([A-Za-z]+)[^>]*\bid="comprobante"/.exec(xml)?.[1];
  if (!root) throw new Error('no root with id="comprobante"');
  const cert = new X509Certificate(key.certPem);
  const jwk = cert.publicKey.export({ format: 'jwk' });
  const issuer = cert.issuer.split('\n').reverse().join(',');
  let signature = xml.slice(at);
  signature = signature
    .replace(/(<ds:SignedInfo[\s\S]*?<\/ds:SignedInfo>)/, (signedInfo) => signedInfo.replace(/<ds:DigestValue>[^<]*<\/ds:DigestValue>/g, '<ds:DigestValue></ds:DigestValue>'))
    .replace(/(<ds:SignatureValue[^>]*>)[^<]*(<\/ds:SignatureValue>)/, '$1$2')
    .replace(/(<ds:X509Certificate>)[^<]*(<\/ds:X509Certificate>)/, `$1${cert.raw.toString('base64')}$2`)
    .replace(/(<ds:Modulus>)[^<]*(<\/ds:Modulus>)/, `$1${b64url(jwk.n ?? '')}$2`)
    .replace(/(<ds:Exponent>)[^<]*(<\/ds:Exponent>)/, `$1${b64url(jwk.e ?? '')}$2`)
    .replace(/(<xades:SigningTime>)[^<]*(<\/xades:SigningTime>)/, `$1${new Date().toISOString()}$2`)
    .replace(/(<xades:CertDigest>[\s\S]*?<ds:DigestValue>)[^<]*(<\/ds:DigestValue>)/, `$1${createHash('sha1').update(cert.raw).digest('base64')}$2`)
    .replace(/(<ds:X509IssuerName>)[^<]*(<\/ds:X509IssuerName>)/, `$1${issuer.replace(/&/g, '&amp;').replace(/</g, '&lt;')}$2`)
    .replace(/(<ds:X509SerialNumber>)[^<]*(<\/ds:X509SerialNumber>)/, `$1${BigInt(`0x${cert.serialNumber}`).toString()}$2`);
  const dir = await mkdtemp(join(tmpdir(), 'sello-sri-sign-'));
  try {
    await writeFile(join(dir, 'key.pem'), key.keyPem, { mode: 0o600 });
    await writeFile(join(dir, 'template.xml'), xml.slice(0, at) + signature);
    await run('xmlsec1', [
      '--sign',
      '--privkey-pem',
      join(dir, 'key.pem'),
      // Only X509Data is "known": the template's KeyInfo is left as written, so its digest holds.
      '--enabled-key-data',
      'x509',
      '--id-attr:id',
      root,
      '--id-attr:Id',
      'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
      '--id-attr:Id',
      'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
      '--output',
      join(dir, 'signed.xml'),
      join(dir, 'template.xml'),
    ]);
    return await readFile(join(dir, 'signed.xml'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A signed comprobante from a sample, with a valid access key built from its (changed) fields. */
export async function signedComprobante(
  key: TestSigningKey,
  options: ComprobanteChanges & { sample?: SampleName } = {},
): Promise<{ xml: string; bytes: Buffer; accessKey: string }> {
  const { xml: template, accessKey } = rekey(readSample(options.sample ?? 'invoice'), options);
  const xml = await signWithTemplate(template, key);
  return { xml, bytes: Buffer.from(xml, 'utf8'), accessKey };
}
