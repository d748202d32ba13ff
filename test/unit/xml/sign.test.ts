/**
 * signXadesBes with real keys (a test certificate's software key and a .p12 made by openssl),
 * judged by independent tools: xmllint against the SRI's XSD, xmlsec1 for XMLDSig, Java's
 * X500Principal for the IssuerName; and by verifyXadesBes.
 */
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { softwareKeySource } from '../../../core/signing/key-sources/index.js';
import { p12KeySource } from '../../../core/signing/key-sources/p12.js';
import { signXadesBes, verifyXadesBes, xmlSignerFrom, type XmlSigner } from '../../../core/xml/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { hasCommand, javaReadsIssuer, SRI_SAMPLES, xmllint, xmlsec1 } from '../../helpers/xml-tools.js';

const unsigned = readFileSync(path.join(SRI_SAMPLES, 'invoice.unsigned.xml'));
let pki: TestPki;
let signer: XmlSigner;

beforeAll(async () => {
  pki = await createTestPki();
  signer = xmlSignerFrom(softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain }));
});
afterAll(() => pki.cleanup());

/** A signer whose certificate is made by openssl from `args` (self-signed, RSA-2048). */
function opensslCertificate(name: string, args: string[]): { der: Buffer; keyPem: string } {
  const key = path.join(pki.dir, `${name}.key`);
  const cert = path.join(pki.dir, `${name}.der`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-outform', 'DER', '-out', cert, '-days', '30', ...args], { stdio: 'ignore' });
  return { der: readFileSync(cert), keyPem: readFileSync(key, 'utf8') };
}

describe('signXadesBes', () => {
  it.each(['sha1', 'sha256'] as const)('signs the sample factura (%s) so that xmllint, xmlsec1 and verifyXadesBes accept it', async (hash) => {
    const signed = await signXadesBes(unsigned, signer, { hash });
    const schema = xmllint(signed, 'factura_V1.1.0.xsd');
    expect(schema.ok, schema.output).toBe(true);
    const dsig = xmlsec1(signed, 'factura');
    expect(dsig.ok, dsig.output).toBe(true);
    expect(dsig.output).toMatch(/^OK$/m);
    const v = verifyXadesBes(signed);
    expect(v).toMatchObject({ valid: true, hash, signerName: 'ANA MARÍA PÉREZ LÓPEZ' });
    expect(v.certificate?.equals(pki.leaf.certificate)).toBe(true);
    const text = signed.toString('utf8');
    const uri = hash === 'sha1' ? 'http://www.w3.org/2000/09/xmldsig#rsa-sha1' : 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
    expect(text).toContain(`<ds:SignatureMethod Algorithm="${uri}"/>`);
    expect(text).toContain('<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>');
  });

  it('writes the profile the SRI accepts: three References, KeyInfo with certificate and RSAKeyValue, SignedProperties', async () => {
    const signed = (await signXadesBes(unsigned, signer, { signingTime: new Date('2026-03-02T15:04:05.678Z') })).toString('utf8');
    const signature = signed.slice(signed.indexOf('<ds:Signature '));
    expect(signature.endsWith('</ds:Signature></factura>\n') || signature.endsWith('</ds:Signature></factura>')).toBe(true);
    expect(signature.match(/<ds:Reference /g)).toHaveLength(3);
    expect(signature).toMatch(/<ds:Reference Id="DocumentRef-[^"]+" URI="#comprobante"><ds:Transforms><ds:Transform Algorithm="http:\/\/www.w3.org\/2000\/09\/xmldsig#enveloped-signature"\/><\/ds:Transforms><ds:DigestMethod Algorithm="http:\/\/www.w3.org\/2000\/09\/xmldsig#sha1"\/>/);
    expect(signature).toMatch(/<ds:Reference Id="[^"]+" Type="http:\/\/uri.etsi.org\/01903#SignedProperties" URI="#SignedProperties-/);
    expect(signature).toMatch(/<ds:Reference Id="[^"]+" URI="#Certificate-[^"]+"><ds:DigestMethod/);
    expect(signature).toContain(`<ds:X509Certificate>${pki.leaf.certificate.toString('base64')}</ds:X509Certificate>`);
    const jwk = new X509Certificate(pki.leaf.certificate).publicKey.export({ format: 'jwk' });
    expect(signature).toContain(`<ds:Modulus>${Buffer.from(jwk.n!, 'base64url').toString('base64')}</ds:Modulus><ds:Exponent>AQAB</ds:Exponent>`);
    const certDigest = createHash('sha1').update(pki.leaf.certificate).digest('base64');
    expect(signature).toContain(`<etsi:CertDigest><ds:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/><ds:DigestValue>${certDigest}</ds:DigestValue></etsi:CertDigest>`);
    const serial = BigInt(`0x${new X509Certificate(pki.leaf.certificate).serialNumber}`).toString();
    expect(signature).toContain(`<ds:X509SerialNumber>${serial}</ds:X509SerialNumber>`);
    expect(signature).toContain('<ds:X509IssuerName>CN=Sello Test CA,O=Sello (pruebas),C=EC</ds:X509IssuerName>');
    expect(signature).toMatch(/<etsi:SigningTime>2026-03-02T\d\d:04:05\.678[+-]\d\d:\d\d<\/etsi:SigningTime>/);
    expect(signature).toMatch(/<etsi:DataObjectFormat ObjectReference="#DocumentRef-[^"]+"><etsi:Description>[^<]+<\/etsi:Description><etsi:MimeType>text\/xml<\/etsi:MimeType><\/etsi:DataObjectFormat>/);
  });

  it('keeps every byte of the input and only inserts the signature before the root end tag', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(unsigned.toString('utf8').replace(/\n/g, '\r\n'))]);
    const signed = await signXadesBes(withBom, signer);
    const at = withBom.lastIndexOf('</factura>');
    expect(signed.subarray(0, at).equals(withBom.subarray(0, at))).toBe(true);
    expect(signed.subarray(signed.length - (withBom.length - at)).equals(withBom.subarray(at))).toBe(true);
    expect(verifyXadesBes(signed).valid).toBe(true);
    expect(xmlsec1(signed, 'factura').ok).toBe(true);
  });

  it('signs with the key of a .p12 made by openssl', async () => {
    const certFile = path.join(pki.dir, 'p12-leaf.crt');
    const keyFile = path.join(pki.dir, 'p12-leaf.key');
    const p12File = path.join(pki.dir, 'firma.p12');
    writeFileSync(certFile, pki.leaf.certificatePem);
    writeFileSync(keyFile, pki.leaf.privateKeyPem);
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', keyFile, '-in', certFile, '-certfile', pki.ca.certificatePath, '-out', p12File, '-passout', 'pass:clave-ñ']);
    const fromP12 = xmlSignerFrom(p12KeySource(readFileSync(p12File), 'clave-ñ'));
    for (const hash of ['sha1', 'sha256'] as const) {
      const signed = await signXadesBes(unsigned, fromP12, { hash });
      expect(xmllint(signed, 'factura_V1.1.0.xsd').ok).toBe(true);
      expect(xmlsec1(signed, 'factura').ok).toBe(true);
      expect(verifyXadesBes(signed)).toMatchObject({ valid: true, hash });
    }
  });

  it('writes E= of an issuer as EMAILADDRESS= and other attributes so that Java reads back the same issuer (ec-sri-invoice-signer #33)', async () => {
    const made = opensslCertificate('issuer-e', [
      '-subj', '/C=EC/ST=Quito - Pichincha/L=Quito/O=Lazzate Cia. Ltda./organizationIdentifier=59382/emailAddress=certificados@enext.ec/OU=Ente de Certificacion/CN=Lazzate, Emisor\\+CA #1 ',
      '-addext', 'keyUsage=critical,digitalSignature,nonRepudiation',
    ]);
    const { createPrivateKey } = await import('node:crypto');
    const own = xmlSignerFrom(softwareKeySource({ key: createPrivateKey(made.keyPem), certificate: made.der }));
    const signed = (await signXadesBes(unsigned, own)).toString('utf8');
    const issuerName = /<ds:X509IssuerName>([^<]*)<\/ds:X509IssuerName>/.exec(signed)?.[1]?.replace(/&amp;/g, '&') ?? '';
    expect(issuerName).toMatch(/^CN=Lazzate\\, Emisor\\\+CA #1\\ ,OU=Ente de Certificacion,EMAILADDRESS=certificados@enext\.ec,2\.5\.4\.97=#[0-9A-F]+,O=Lazzate Cia\. Ltda\.,L=Quito,ST=Quito - Pichincha,C=EC$/);
    expect(issuerName).not.toMatch(/(^|,)E=/);
    if (hasCommand('java')) {
      const java = javaReadsIssuer(made.der, issuerName);
      expect(java.ok, java.output).toBe(true);
    }
  });

  it('refuses an EC key with certificate_key_type, in Spanish, before signing anything', async () => {
    const ec = pki.issue({ subject: { commonName: 'CLAVE EC' }, keyType: 'ec' });
    const source = softwareKeySource({ key: ec.privateKey, certificate: ec.certificate });
    expect(() => xmlSignerFrom(source)).toThrow(expect.objectContaining({ code: 'certificate_key_type', status: 422, message: expect.stringMatching(/es EC; .*solo admiten claves RSA/) }));
    let asked = 0;
    const bare: XmlSigner = { certificate: ec.certificate, sign: async () => (asked++, Buffer.alloc(0)) };
    await expect(signXadesBes(unsigned, bare)).rejects.toMatchObject({ code: 'certificate_key_type' });
    expect(asked).toBe(0);
  });

  it('refuses a certificate without the digitalSignature key usage with certificate_key_usage (SRI error 39)', async () => {
    const made = opensslCertificate('no-ds', ['-subj', '/C=EC/CN=SOLO NO REPUDIO', '-addext', 'keyUsage=critical,nonRepudiation']);
    const { createPrivateKey } = await import('node:crypto');
    const source = softwareKeySource({ key: createPrivateKey(made.keyPem), certificate: made.der });
    expect(() => xmlSignerFrom(source)).toThrow(expect.objectContaining({ code: 'certificate_key_usage', status: 422, message: expect.stringMatching(/firma digital.*error 39/) }));
    await expect(signXadesBes(unsigned, { certificate: made.der, sign: (d, h) => source.sign(d, h) })).rejects.toMatchObject({ code: 'certificate_key_usage' });
  });

  it('passes on the key source’s certificate_expired', async () => {
    const source = softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, now: () => new Date(Date.now() + 400 * 86_400_000) });
    await expect(signXadesBes(unsigned, xmlSignerFrom(source))).rejects.toMatchObject({ code: 'certificate_expired' });
  });

  it.each([
    ['a root without id="comprobante"', unsigned.toString('utf8').replace('id="comprobante"', 'id="otro"'), /debe llevar id="comprobante"/],
    ['a root with Id instead of id', unsigned.toString('utf8').replace('id="comprobante"', 'Id="comprobante"'), /debe llevar id="comprobante"/],
    ['an XML already signed', readFileSync(path.join(SRI_SAMPLES, 'invoice.signed.xml'), 'utf8'), /ya está firmado/],
    ['an empty root', '<?xml version="1.0"?><factura id="comprobante" version="1.1.0"/>', /está vacío/],
    ['a DOCTYPE', `<!DOCTYPE factura [<!ENTITY x "y">]>${unsigned.toString('utf8').replace(/^<\?xml[^>]*>/, '')}`, /DOCTYPE o ENTITY/],
    ['malformed XML', '<factura id="comprobante"><a></factura>', /mal formado cerca de la línea 1/],
    ['Latin-1 declared', unsigned.toString('utf8').replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), /codificación ISO-8859-1/],
    ['a comment after the root', `${unsigned.toString('utf8')}<!-- fin -->`, /después del elemento raíz/],
    ['an inherited xml:lang on the root', unsigned.toString('utf8').replace('id="comprobante"', 'id="comprobante" xml:lang="es"'), /atributo xml:lang/],
    ['a comprobante with no room left for its signature', `<factura id="comprobante">${'<a/>'.repeat(99_950)}</factura>`, /más de 99.900 etiquetas/],
  ])('refuses %s with xml_invalid and a Spanish reason', async (_name, xml, reason) => {
    await expect(signXadesBes(Buffer.from(xml, 'utf8'), signer)).rejects.toMatchObject({ code: 'xml_invalid', status: 400, message: expect.stringMatching(reason) });
  });

  it('refuses bytes that are not UTF-8', async () => {
    const latin1 = Buffer.from(unsigned.toString('utf8').replace('encoding="UTF-8"', '').replace('Quito', 'Quitó'), 'latin1');
    await expect(signXadesBes(latin1, signer)).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/no es texto UTF-8/) });
  });

  it('detects a signer whose key does not match its certificate, and hands nothing back', async () => {
    const other = pki.issue({ subject: { commonName: 'OTRA CLAVE' } });
    const wrong: XmlSigner = { certificate: pki.leaf.certificate, sign: (d, h) => softwareKeySource({ key: other.privateKey, certificate: other.certificate }).sign(d, h) };
    await expect(signXadesBes(unsigned, wrong)).rejects.toMatchObject({ code: 'internal_error', message: expect.stringMatching(/no se pudo verificar.*SignatureValue/) });
  });
});
