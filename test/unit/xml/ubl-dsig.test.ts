/**
 * signUblDsig and verifyUblDsig, the enveloped XMLDSig of SUNAT's UBL 2.1 documents, judged by
 * independent tools: xmlsec1 for XMLDSig (URI="" allowed, key only from the certificate) and
 * xmllint against the OASIS UBL 2.1 Invoice schema; and by greenter's signed sample.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { softwareKeySource } from '../../../core/signing/key-sources/index.js';
import { signUblDsig, verifyUblDsig, xmlSignerFrom, type XmlSigner } from '../../../core/xml/index.js';
import { repoRoot } from '../../helpers/cli.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { changeByte, tool, withFile, type ToolResult } from '../../helpers/xml-tools.js';

const SUNAT = path.join(repoRoot, 'test/fixtures/sunat');
const sample = (name: string): Buffer => readFileSync(path.join(SUNAT, 'samples', name));
const greenterSigned = sample('20600055519-01-F001-00000001.signed.xml');
const withTemplate = sample('20200464529-01-F001-697.xml');
const unsigned = sample('20200464529-01-F001-697.unsigned.xml');

let pki: TestPki;
let signer: XmlSigner;

beforeAll(async () => {
  pki = await createTestPki();
  signer = xmlSignerFrom(softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain }));
});
afterAll(() => pki.cleanup());

/** xmlsec1 as the fiscal README runs it for Peru: key from the certificate, URI="" allowed. */
const xmlsec1 = (xml: Buffer): ToolResult =>
  withFile(xml, (file) => tool('xmlsec1', ['--verify', '--enabled-key-data', 'x509', '--enabled-reference-uris', 'empty,same-doc', '--insecure', file]));

const xmllintInvoice = (xml: Buffer): ToolResult =>
  withFile(xml, (file) => tool('xmllint', ['--noout', '--nonet', '--schema', path.join(SUNAT, 'xsd/ubl-2.1/maindoc/UBL-Invoice-2.1.xsd'), file]));

/** The signed bytes without the inserted ds:Signature (the ExtensionContent's whole content). */
const withoutSignature = (signed: Buffer): Buffer => {
  const start = signed.indexOf('<ds:Signature ');
  const end = signed.indexOf('</ds:Signature>') + '</ds:Signature>'.length;
  return Buffer.concat([signed.subarray(0, start), signed.subarray(end)]);
};

describe('verifyUblDsig', () => {
  it("accepts greenter's signed factura (RSA-SHA1, ISO-8859-1), as xmlsec1 does", () => {
    const v = verifyUblDsig(greenterSigned);
    expect(v).toMatchObject({ valid: true, hash: 'sha1', signerName: 'TI SOLUCIONES' });
    expect(v.certificate?.length).toBeGreaterThan(1000);
    const dsig = xmlsec1(greenterSigned);
    expect(dsig.ok, dsig.output).toBe(true);
  });

  it("refuses greenter's factura with one amount changed, as xmlsec1 does", () => {
    const tampered = changeByte(greenterSigned, '<cac:LegalMonetaryTotal>', '6', '7');
    expect(verifyUblDsig(tampered)).toMatchObject({ valid: false, problem: expect.stringMatching(/cambió después de firmarlo/) });
    expect(xmlsec1(tampered).ok).toBe(false);
  });

  it('refuses a document without signature, with two, or with the signature outside ExtensionContent', async () => {
    expect(verifyUblDsig(unsigned)).toMatchObject({ valid: false, problem: 'El XML no tiene firma (ds:Signature).' });
    const signed = await signUblDsig(unsigned, signer);
    const signature = signed.subarray(signed.indexOf('<ds:Signature '), signed.indexOf('</ds:Signature>') + '</ds:Signature>'.length);
    const moved = withoutSignature(signed).toString('utf8').replace('</Invoice>', `${signature.toString('utf8')}</Invoice>`);
    expect(verifyUblDsig(Buffer.from(moved, 'utf8'))).toMatchObject({ valid: false, problem: expect.stringMatching(/ext:ExtensionContent/) });
    const twice = signed.toString('utf8').replace('</ext:UBLExtensions>', `<ext:UBLExtension><ext:ExtensionContent>${signature.toString('utf8')}</ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>`);
    expect(verifyUblDsig(Buffer.from(twice, 'utf8'))).toMatchObject({ valid: false, problem: expect.stringMatching(/2 firmas/) });
  });

  it('refuses a Reference other than URI="" with the enveloped transform', async () => {
    const signed = (await signUblDsig(unsigned, signer)).toString('utf8');
    const toId = signed.replace('<ds:Reference URI="">', '<ds:Reference URI="#SignatureCF">');
    expect(verifyUblDsig(Buffer.from(toId, 'utf8'))).toMatchObject({ valid: false, problem: expect.stringMatching(/URI=""/) });
    const noUri = signed.replace('<ds:Reference URI="">', '<ds:Reference>');
    expect(verifyUblDsig(Buffer.from(noUri, 'utf8'))).toMatchObject({ valid: false, problem: expect.stringMatching(/sin URI/) });
    const notEnveloped = signed.replace(/<ds:Transforms>.*?<\/ds:Transforms>/, '');
    expect(verifyUblDsig(Buffer.from(notEnveloped, 'utf8'))).toMatchObject({ valid: false, problem: expect.stringMatching(/enveloped-signature/) });
  });

  it('never throws on garbage', () => {
    expect(verifyUblDsig(Buffer.from('<a', 'utf8'))).toMatchObject({ valid: false, problem: expect.stringMatching(/mal formado/) });
    expect(verifyUblDsig(Buffer.from('<a>\x1c</a>', 'latin1'))).toMatchObject({ valid: false, problem: expect.stringMatching(/U\+001C/) });
  });
});

describe('signUblDsig', () => {
  it.each(['sha1', 'sha256'] as const)('signs the UBL 2.1 factura (%s) so that verifyUblDsig, xmlsec1 and the Invoice XSD accept it', async (hash) => {
    const signed = await signUblDsig(unsigned, signer, { hash });
    expect(verifyUblDsig(signed)).toMatchObject({ valid: true, hash, signerName: expect.any(String) });
    const dsig = xmlsec1(signed);
    expect(dsig.ok, dsig.output).toBe(true);
    const schema = xmllintInvoice(signed);
    expect(schema.ok, schema.output).toBe(true);
    // Inserted, never re-serialised; the Id is the one the document's cac:Signature names.
    expect(withoutSignature(signed).equals(unsigned)).toBe(true);
    expect(signed.toString('utf8')).toContain('<ext:ExtensionContent><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="SignatureCF">');
    expect(signed.toString('utf8')).toContain(hash === 'sha1' ? 'xmldsig#rsa-sha1' : 'xmldsig-more#rsa-sha256');
  });

  it('takes the Id it is given, or SignSUNAT when the document names none', async () => {
    const given = await signUblDsig(unsigned, signer, { signatureId: 'Firma-1' });
    expect(given.toString('utf8')).toContain('Id="Firma-1"');
    const anonymous = Buffer.from(unsigned.toString('utf8').replace('<cbc:URI>#SignatureCF</cbc:URI>', '<cbc:URI>SignatureCF</cbc:URI>'), 'utf8');
    expect((await signUblDsig(anonymous, signer)).toString('utf8')).toContain('Id="SignSUNAT"');
    await expect(signUblDsig(unsigned, signer, { signatureId: 'a"b' })).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/identificador XML/) });
  });

  it('signs into <ext:ExtensionContent/> and an ISO-8859-1 document, which xmlsec1 verifies', async () => {
    const selfClosing = Buffer.from(unsigned.toString('utf8').replace('<ext:ExtensionContent></ext:ExtensionContent>', '<ext:ExtensionContent />'), 'utf8');
    const a = await signUblDsig(selfClosing, signer);
    expect(verifyUblDsig(a).valid).toBe(true);
    expect(xmlsec1(a).ok).toBe(true);
    // The sample's curly quotes are not in ISO-8859-1; its accented letters are.
    const latin1Text = unsigned.toString('utf8').replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace(/[^\u0020-\u00ff\n\t]/g, '"');
    const latin1 = Buffer.from(latin1Text, 'latin1');
    expect(latin1.length).toBeLessThan(unsigned.length); // the accented letters take one byte each
    const b = await signUblDsig(latin1, signer);
    expect(verifyUblDsig(b).valid).toBe(true);
    const dsig = xmlsec1(b);
    expect(dsig.ok, dsig.output).toBe(true);
    expect(withoutSignature(b).equals(latin1)).toBe(true);
  });

  it('what it signs, with one amount changed, fails both verifiers', async () => {
    const signed = await signUblDsig(unsigned, signer);
    const tampered = changeByte(signed, '<cbc:PayableAmount', '>', '>'); // sanity of the helper: no change
    expect(verifyUblDsig(tampered).valid).toBe(true);
    const at = signed.indexOf('<cbc:PayableAmount');
    const digit = signed.toString('latin1', signed.indexOf('>', at) + 1, signed.indexOf('>', at) + 2);
    const changed = changeByte(signed, '<cbc:PayableAmount', digit, digit === '9' ? '8' : '9');
    expect(verifyUblDsig(changed)).toMatchObject({ valid: false, problem: expect.stringMatching(/cambió después de firmarlo/) });
    expect(xmlsec1(changed).ok).toBe(false);
  });

  it('refuses to sign twice, or over a signature template, in Spanish', async () => {
    const signed = await signUblDsig(unsigned, signer);
    await expect(signUblDsig(signed, signer)).rejects.toMatchObject({ code: 'xml_invalid', status: 400, message: expect.stringMatching(/ya está firmado/) });
    await expect(signUblDsig(greenterSigned, signer)).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/ya está firmado/) });
    await expect(signUblDsig(withTemplate, signer)).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/ya está firmado/) });
  });

  it('refuses a document without an empty ExtensionContent, in Spanish', async () => {
    const text = unsigned.toString('utf8');
    const none = text.replace(/<ext:UBLExtensions>[\s\S]*?<\/ext:UBLExtensions>/, '');
    await expect(signUblDsig(Buffer.from(none, 'utf8'), signer)).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/no tiene un ext:ExtensionContent vacío/) });
    const full = text.replace('<ext:ExtensionContent></ext:ExtensionContent>', '<ext:ExtensionContent><cbc:Note>x</cbc:Note></ext:ExtensionContent>');
    await expect(signUblDsig(Buffer.from(full, 'utf8'), signer)).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/no tiene un ext:ExtensionContent vacío/) });
    const two = text.replace('</ext:UBLExtensions>', '<ext:UBLExtension><ext:ExtensionContent/></ext:UBLExtension></ext:UBLExtensions>');
    await expect(signUblDsig(Buffer.from(two, 'utf8'), signer)).rejects.toMatchObject({ code: 'xml_invalid', message: expect.stringMatching(/2 ext:ExtensionContent vacíos/) });
  });
});
