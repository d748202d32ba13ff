/**
 * verifyXadesBes: the signed SRI samples hold; one byte changed does not; and the forgeries that
 * `xmlsec1 --verify` alone lets through (fiscal README) are refused, each with its reason. The
 * forgeries are cryptographically sound (`reseal` recomputes every digest and the signature
 * value), so only the verifier's rules stand between them and "válida".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Element } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { softwareKeySource } from '../../../core/signing/key-sources/index.js';
import { DS } from '../../../core/xml/algorithms.js';
import { childrenNamed, onlyChild } from '../../../core/xml/dom.js';
import { MAX_XML_BYTES, signXadesBes, verifyXadesBes, xmlSignerFrom } from '../../../core/xml/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { changeByte, dropReference, reseal, SIGNED_SAMPLES, SRI_SAMPLES, xmlsec1 } from '../../helpers/xml-tools.js';

const sample = (file: string): Buffer => readFileSync(path.join(SRI_SAMPLES, file));
let pki: TestPki;
let signed: Buffer;

beforeAll(async () => {
  pki = await createTestPki();
  signed = await signXadesBes(sample('invoice.unsigned.xml'), xmlSignerFrom(softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate })));
});
afterAll(() => pki.cleanup());

const problemOf = (xml: Buffer): string | undefined => {
  const v = verifyXadesBes(xml);
  expect(v.valid).toBe(false);
  return v.problem;
};

describe('verifyXadesBes on the SRI samples', () => {
  it.each(SIGNED_SAMPLES.map((s) => s.file))('accepts %s and says who signed it, when and with what', (file) => {
    expect(verifyXadesBes(sample(file))).toMatchObject({
      valid: true,
      signerName: 'ec-sri-invoice-sign',
      signingTime: '2024-04-18T14:34:32.878-05:00',
      hash: 'sha1',
      certificate: expect.any(Buffer),
    });
  });

  it.each(SIGNED_SAMPLES.map((s) => s.file))('refuses %s with one byte of its content changed', (file) => {
    const changed = changeByte(sample(file), '<infoTributaria>', '1', '2');
    expect(problemOf(changed)).toMatch(/El contenido del comprobante cambió después de firmarlo/);
    expect(verifyXadesBes(changed).signerName).toBe('ec-sri-invoice-sign');
  });

  it('refuses a changed SigningTime, certificate byte or signature value, each with its reason', () => {
    const invoice = sample('invoice.signed.xml');
    expect(problemOf(changeByte(invoice, '<xades:SigningTime>', '4', '5'))).toMatch(/SignedProperties\) cambiaron/);
    expect(problemOf(changeByte(invoice, '<ds:SignatureValue', 'A', 'B'))).toMatch(/SignatureValue.*no corresponde/);
    expect(problemOf(changeByte(invoice, '<ds:Modulus>', 'A', 'B'))).toMatch(/KeyValue no es la del certificado/);
  });
});

describe('verifyXadesBes refuses what xmlsec1 alone accepts', () => {
  const key = () => pki.leaf.privateKey;

  it('a signature whose References leave out the comprobante, whose content then changed', () => {
    const forged = reseal(signed, key(), (doc, signature) => {
      dropReference(signature, 0); // the Reference to #comprobante
      const total = doc.getElementsByTagName('importeTotal').item(0) as Element;
      total.textContent = '0.01';
    });
    expect(xmlsec1(forged, 'factura').ok).toBe(true);
    expect(problemOf(forged)).toBe('La firma no cubre el comprobante: no tiene una referencia a #comprobante.');
  });

  it('a Reference to #comprobante without the enveloped transform (covering an old version of it)', () => {
    const forged = reseal(signed, key(), (_doc, signature) => {
      const ref = childrenNamed(onlyChild(signature, DS, 'SignedInfo') as Element, DS, 'Reference')[0] as Element;
      ref.removeChild(onlyChild(ref, DS, 'Transforms') as Element);
    });
    expect(problemOf(forged)).toMatch(/no tiene la transformación enveloped-signature/);
  });

  it('a signature without the Reference to its SignedProperties', () => {
    const forged = reseal(signed, key(), (_doc, signature) => dropReference(signature, 1));
    expect(xmlsec1(forged, 'factura').ok).toBe(true);
    expect(problemOf(forged)).toMatch(/no cubre sus propiedades firmadas/);
  });

  it('a KeyValue whose key is not the certificate’s (signed with that other key)', () => {
    const other = pki.issue({ subject: { commonName: 'IMPOSTOR' } });
    const jwk = other.privateKey.export({ format: 'jwk' });
    const forged = reseal(signed, other.privateKey, (_doc, signature) => {
      const modulus = onlyChild(onlyChild(onlyChild(onlyChild(signature, DS, 'KeyInfo') as Element, DS, 'KeyValue') as Element, DS, 'RSAKeyValue') as Element, DS, 'Modulus') as Element;
      modulus.textContent = Buffer.from(jwk.n!, 'base64url').toString('base64');
    });
    expect(problemOf(forged)).toBe('La clave de KeyValue no es la del certificado del firmante; Sello solo acepta la clave del certificado.');
  });

  it('a certificate in KeyInfo other than the one SigningCertificate names', () => {
    const other = pki.issue({ subject: { commonName: 'IMPOSTOR' } });
    const forged = reseal(signed, other.privateKey, (_doc, signature) => {
      const keyInfo = onlyChild(signature, DS, 'KeyInfo') as Element;
      const cert = onlyChild(onlyChild(keyInfo, DS, 'X509Data') as Element, DS, 'X509Certificate') as Element;
      cert.textContent = other.certificate.toString('base64');
      keyInfo.removeChild(onlyChild(keyInfo, DS, 'KeyValue') as Element);
    });
    expect(xmlsec1(forged, 'factura').ok).toBe(true);
    expect(problemOf(forged)).toMatch(/no es el que nombran las propiedades firmadas/);
  });

  it('a second element with id="comprobante" (signature wrapping)', () => {
    const forged = reseal(signed, key(), (doc) => {
      const extra = doc.getElementsByTagName('infoAdicional').item(0) as Element;
      extra.setAttribute('id', 'comprobante');
    });
    expect(problemOf(forged)).toMatch(/El id «comprobante» aparece 2 veces/);
  });

  it('two signatures, or a signature that is not the last child of the root', () => {
    const text = signed.toString('utf8');
    const signature = text.slice(text.indexOf('<ds:Signature '), text.indexOf('</ds:Signature>') + '</ds:Signature>'.length);
    expect(problemOf(Buffer.from(text.replace('</factura>', `${signature}</factura>`)))).toMatch(/tiene 2 firmas/);
    expect(problemOf(Buffer.from(text.replace('</factura>', '<otro/></factura>')))).toMatch(/no es el último elemento/);
    expect(problemOf(Buffer.from(text.replace(signature, '').replace('<infoAdicional>', `<infoAdicional>${signature}`)))).toMatch(/no es el último elemento/);
  });

  it('an unsigned XML, and an external or XPointer reference', () => {
    expect(problemOf(sample('invoice.unsigned.xml'))).toBe('El XML no tiene firma (ds:Signature).');
    for (const uri of ['http://example.com/x.xml', '', "#xpointer(id('comprobante'))"]) {
      const text = signed.toString('utf8').replace('URI="#comprobante"', `URI="${uri}"`);
      expect(problemOf(Buffer.from(text))).toMatch(/no es un elemento del mismo documento/);
    }
  });

  it('an algorithm outside the profile', () => {
    const text = signed.toString('utf8');
    expect(problemOf(Buffer.from(text.replace('xmldsig#rsa-sha1', 'xmldsig#dsa-sha1')))).toMatch(/no es RSA-SHA1 ni RSA-SHA256/);
    expect(problemOf(Buffer.from(text.replace('REC-xml-c14n-20010315"/><ds:SignatureMethod', 'REC-xml-c14n-20010315#WithComments"/><ds:SignatureMethod')))).toMatch(/canonicalización/);
    expect(problemOf(Buffer.from(text.replace('xmldsig#enveloped-signature', 'TR/1999/REC-xslt-19991116')))).toMatch(/Sello solo admite enveloped-signature y C14N/);
  });
});

describe('verifyXadesBes on hostile input', () => {
  it('refuses a billion-laughs DOCTYPE fast, without expanding it', () => {
    const lol = ['<?xml version="1.0"?>', '<!DOCTYPE factura [', '<!ENTITY l0 "ja">'];
    for (let i = 1; i < 10; i++) lol.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`);
    lol.push(']>', '<factura id="comprobante">&l9;</factura>');
    const t0 = performance.now();
    expect(problemOf(Buffer.from(lol.join('\n')))).toMatch(/DOCTYPE o ENTITY/);
    expect(performance.now() - t0).toBeLessThan(200);
  });

  it('refuses an external entity (XXE)', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE f [<!ENTITY x SYSTEM "file:///etc/passwd">]><factura id="comprobante">&x;</factura>';
    expect(problemOf(Buffer.from(xxe))).toMatch(/DOCTYPE o ENTITY/);
  });

  it('refuses a file above the size limit without parsing it', () => {
    const big = Buffer.alloc(MAX_XML_BYTES + 1, 0x20);
    big.write('<factura id="comprobante">', 0);
    const t0 = performance.now();
    expect(problemOf(big)).toMatch(/Sello admite hasta 10 MB/);
    expect(performance.now() - t0).toBeLessThan(200);
  });

  it('refuses too many tags or namespace declarations before parsing, and deep nesting after', () => {
    const t0 = performance.now();
    expect(problemOf(Buffer.from(`<factura id="comprobante">${'<a/>'.repeat(2_000_000)}</factura>`))).toMatch(/más de 100.000 etiquetas/);
    expect(problemOf(Buffer.from(`<factura id="comprobante"${' xmlns:p="u"'.repeat(200)}/>`))).toMatch(/más de 100 espacios de nombres/);
    expect(performance.now() - t0).toBeLessThan(500);
    const deep = Buffer.from(`<factura id="comprobante">${'<a>'.repeat(70)}${'</a>'.repeat(70)}</factura>`);
    expect(problemOf(deep)).toMatch(/anida más de 64 elementos/);
  });

  it('refuses malformed XML, UTF-16 and an empty file with Spanish reasons, never throwing', () => {
    expect(problemOf(Buffer.from('<factura id="comprobante"><a></factura>'))).toMatch(/mal formado cerca de la línea 1/);
    expect(problemOf(Buffer.from('\ufeff<factura/>', 'utf16le'))).toMatch(/UTF-16/);
    expect(problemOf(Buffer.alloc(0))).toMatch(/vacío/);
    expect(problemOf(Buffer.from([0xc3, 0x28]))).toMatch(/no es texto UTF-8/);
    expect(problemOf(Buffer.from('no es xml'))).toMatch(/mal formado/);
  });

  it('turns an unexpected failure into a Spanish problem rather than an exception', () => {
    // A processing instruction inside the comprobante: refused before any canonicalizer sees it.
    const text = signed.toString('utf8').replace('<infoTributaria>', '<infoTributaria><?php echo 1; ?>');
    expect(problemOf(Buffer.from(text))).toMatch(/instrucciones de procesamiento/);
    const junkCert = signed.toString('utf8').replace(/<ds:X509Certificate>[^<]+/, '<ds:X509Certificate>QUJD');
    expect(problemOf(Buffer.from(junkCert))).toMatch(/no es un certificado X.509 válido/);
  });
});
