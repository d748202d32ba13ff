/**
 * `sello xml sign` and `sello xml verify` as a person runs them: certificates set up through the
 * CLI (a test certificate, an imported .p12, a SoftHSM2 token), the signed files judged by
 * xmllint and xmlsec1, the SRI samples and their one-byte changes judged by `sello xml verify`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent.js';
import { testPrincipal } from '../helpers/certificates.js';
import { repoRoot, sello } from '../helpers/cli.js';
import { SOFTHSM_MODULE } from '../helpers/softhsm.js';
import { createTokenFixture, type TokenFixture } from '../helpers/token-fixture.js';
import { changeByte, SIGNED_SAMPLES, SRI_SAMPLES, xmllint, xmlsec1 } from '../helpers/xml-tools.js';

const SUNAT_SAMPLES = path.join(repoRoot, 'test/fixtures/sunat/samples');

const dir = tempDir('sello-xml-cli-');
const dataDir = path.join(dir, 'data');
const file = (name: string): string => path.join(dir, name);
const run = (args: string[], input?: string) => sello([...args, '--data-dir', dataDir], input === undefined ? {} : { input });
let testCert: string;
let token: TokenFixture;

beforeAll(async () => {
  // Before any module load in this process or its children: SOFTHSM2_CONF goes to the CLI's env.
  token = await createTokenFixture({ label: 'oficina', keyId: '0b' });
  fs.writeFileSync(file('titular.json'), JSON.stringify(testPrincipal));
  const issued = run(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', file('titular.json'), '--json']);
  expect(issued.status, issued.stderr).toBe(0);
  testCert = (JSON.parse(issued.stdout) as { id: string }).id;
  fs.copyFileSync(path.join(SRI_SAMPLES, 'invoice.unsigned.xml'), file('factura.xml'));
  fs.copyFileSync(path.join(SUNAT_SAMPLES, '20200464529-01-F001-697.unsigned.xml'), file('F001-697.xml'));
});
afterAll(async () => {
  await token?.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('sello xml sign', () => {
  it('writes FILE.signed.xml next to the input, valid for xmllint, xmlsec1 and sello xml verify', () => {
    const before = fs.readFileSync(file('factura.xml'));
    const res = run(['xml', 'sign', file('factura.xml'), '--cert', testCert]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(`Firmado (XAdES-BES, RSA-SHA1): ${file('factura.signed.xml')}`);
    expect(fs.readFileSync(file('factura.xml')).equals(before)).toBe(true);
    const signed = fs.readFileSync(file('factura.signed.xml'));
    expect(xmllint(signed, 'factura_V1.1.0.xsd').ok).toBe(true);
    expect(xmlsec1(signed, 'factura').ok).toBe(true);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const verified = run(['xml', 'verify', file('factura.signed.xml')]);
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/^Firma válida: Sofía Íñiguez Peña, firmada el \d{4}-\d\d-\d\dT[\d:.]+[+-]\d\d:\d\d, RSA-SHA1\.\n$/);
  });

  it('signs RSA-SHA256 into --out with --sha256, and answers --json', () => {
    const res = run(['xml', 'sign', file('factura.xml'), '--cert', testCert, '--sha256', '--out', file('sha256.xml'), '--json']);
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ out: file('sha256.xml'), certificate: testCert, hash: 'sha256' });
    const signed = fs.readFileSync(file('sha256.xml'));
    expect(xmlsec1(signed, 'factura').ok).toBe(true);
    expect(xmllint(signed, 'factura_V1.1.0.xsd').ok).toBe(true);
    const verified = run(['xml', 'verify', file('sha256.xml'), '--json']);
    expect(verified.status).toBe(0);
    expect(JSON.parse(verified.stdout)).toEqual({ valid: true, format: 'sri-xades', signer: 'Sofía Íñiguez Peña', signing_time: expect.any(String), hash: 'sha256' });
  });

  it('signs with an imported .p12', () => {
    const leaf = token.pki.leaf;
    fs.writeFileSync(file('leaf.crt'), leaf.certificatePem);
    fs.writeFileSync(file('leaf.key'), leaf.privateKeyPem);
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', file('leaf.key'), '-in', file('leaf.crt'), '-out', file('firma.p12'), '-passout', 'pass:clave']);
    const imported = run(['certs', 'import-p12', file('firma.p12'), '--password-stdin', '--json'], 'clave\n');
    expect(imported.status, imported.stderr).toBe(0);
    const id = (JSON.parse(imported.stdout) as { id: string }).id;
    const res = run(['xml', 'sign', file('factura.xml'), '--cert', id, '--out', file('p12.xml')]);
    expect(res.status, res.stderr).toBe(0);
    const signed = fs.readFileSync(file('p12.xml'));
    expect(xmlsec1(signed, 'factura').ok).toBe(true);
    expect(xmllint(signed, 'factura_V1.1.0.xsd').ok).toBe(true);
    expect(run(['xml', 'verify', file('p12.xml')]).stdout).toMatch(/^Firma válida: ANA MARÍA PÉREZ LÓPEZ,/);
  });

  it('signs with a token key and --pin-stdin; a wrong PIN is one clear line and no file', () => {
    const tokens = run(['tokens', '--module', SOFTHSM_MODULE, '--json']);
    expect(tokens.status, tokens.stderr).toBe(0);
    const id = (JSON.parse(tokens.stdout.trim().split('\n')[0]!) as { certificates: Array<{ id: string }> }).certificates[0]!.id;
    const wrong = run(['xml', 'sign', file('factura.xml'), '--cert', id, '--pin-stdin', '--out', file('token-mal.xml')], '9999\n');
    expect(wrong.status).toBe(1);
    expect(wrong.stderr.trim()).toMatch(/^sello: pin_incorrect: [^\n]+$/);
    expect(fs.existsSync(file('token-mal.xml'))).toBe(false);
    const res = run(['xml', 'sign', file('factura.xml'), '--cert', id, '--pin-stdin', '--out', file('token.xml')], '1234\n');
    expect(res.status, res.stderr).toBe(0);
    const signed = fs.readFileSync(file('token.xml'));
    const dsig = xmlsec1(signed, 'factura');
    expect(dsig.ok, dsig.output).toBe(true);
    expect(xmllint(signed, 'factura_V1.1.0.xsd').ok).toBe(true);
    expect(run(['xml', 'verify', file('token.xml')]).status).toBe(0);
  });

  it('never writes over the input', () => {
    const same = run(['xml', 'sign', file('factura.xml'), '--cert', testCert, '--out', file('factura.xml')]);
    expect(same.status).toBe(2);
    expect(same.stderr).toMatch(/no puede reemplazar al original/);
    expect(run(['xml', 'sign', file('factura.xml')]).status).toBe(2);
    expect(run(['xml']).status).toBe(2);
  });

  it('refuses what it cannot sign with one line, writing nothing', () => {
    fs.writeFileSync(file('bomba.xml'), '<?xml version="1.0"?><!DOCTYPE f [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><factura id="comprobante">&b;</factura>');
    const bomb = run(['xml', 'sign', file('bomba.xml'), '--cert', testCert]);
    expect(bomb.status).toBe(1);
    expect(bomb.stderr.trim()).toMatch(/^sello: xml_invalid: El XML trae una declaración DOCTYPE o ENTITY[^\n]*$/);
    expect(fs.existsSync(file('bomba.signed.xml'))).toBe(false);
    expect(run(['xml', 'sign', file('factura.xml'), '--cert', 'no-existe']).stderr).toMatch(/certificate_not_found/);
  });
});

describe('sello xml verify', () => {
  it.each(SIGNED_SAMPLES.map((s) => s.file))('exits 0 for the sample %s, and 1 with one byte of its content changed', (name) => {
    const ok = run(['xml', 'verify', path.join(SRI_SAMPLES, name)]);
    expect(ok.status, ok.stdout).toBe(0);
    expect(ok.stdout).toBe('Firma válida: ec-sri-invoice-sign, firmada el 2024-04-18T14:34:32.878-05:00, RSA-SHA1.\n');
    fs.writeFileSync(file(`cambiado-${name}`), changeByte(fs.readFileSync(path.join(SRI_SAMPLES, name)), '<infoTributaria>', '1', '2'));
    const bad = run(['xml', 'verify', file(`cambiado-${name}`)]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe('Firma NO válida: El contenido del comprobante cambió después de firmarlo: el resumen de #comprobante no coincide.\n');
    expect(JSON.parse(run(['xml', 'verify', file(`cambiado-${name}`), '--json']).stdout)).toMatchObject({ valid: false, problem: expect.stringMatching(/cambió/), signer: 'ec-sri-invoice-sign' });
  });

  it('exits 1 fast with one line for a DOCTYPE bomb and for an unsigned file', () => {
    const lol = ['<?xml version="1.0"?><!DOCTYPE factura [<!ENTITY l0 "ja">'];
    for (let i = 1; i < 10; i++) lol.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`);
    fs.writeFileSync(file('risa.xml'), `${lol.join('')}]><factura id="comprobante">&l9;</factura>`);
    const bomb = run(['xml', 'verify', file('risa.xml')]);
    expect(bomb.status).toBe(1);
    expect(bomb.stdout).toMatch(/^Firma NO válida: El XML trae una declaración DOCTYPE o ENTITY[^\n]*\n$/);
    const unsigned = run(['xml', 'verify', file('factura.xml')]);
    expect(unsigned.status).toBe(1);
    expect(unsigned.stdout).toBe('Firma NO válida: El XML no tiene firma (ds:Signature).\n');
    expect(run(['xml', 'verify', file('no-existe.xml')]).status).toBe(2);
  });
});

describe('sello xml with a UBL 2.1 document (Peru)', () => {
  it('signs it XMLDSig inside ext:UBLExtensions; xmlsec1 and sello xml verify accept it, and a changed amount breaks it', () => {
    const res = run(['xml', 'sign', file('F001-697.xml'), '--cert', testCert]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(`Firmado (XMLDSig UBL, RSA-SHA1): ${file('F001-697.signed.xml')}`);
    const signed = fs.readFileSync(file('F001-697.signed.xml'));
    expect(signed.toString('latin1')).toMatch(/<ext:ExtensionContent><ds:Signature[^>]*>[\s\S]*<ds:Reference URI="">/);
    fs.writeFileSync(file('ubl-signed.xml'), signed);
    execFileSync('xmlsec1', ['--verify', '--insecure', '--enabled-key-data', 'x509', '--enabled-reference-uris', 'empty,same-doc', file('ubl-signed.xml')], { stdio: 'pipe' });
    const verified = run(['xml', 'verify', file('F001-697.signed.xml'), '--json']);
    expect(verified.status, verified.stdout).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, format: 'ubl-dsig', signer: 'Sofía Íñiguez Peña', hash: 'sha1' });

    const text = signed.toString('latin1');
    const amount = /<cbc:PayableAmount currencyID="PEN">([\d.]+)<\/cbc:PayableAmount>/.exec(text);
    expect(amount).not.toBeNull();
    fs.writeFileSync(file('ubl-changed.xml'), Buffer.from(text.replace(amount![0], amount![0].replace(amount![1]!, '1.00')), 'latin1'));
    const broken = run(['xml', 'verify', file('ubl-changed.xml')]);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/^Firma NO válida: /);
  });

  it('verifies greenter’s signed sample, and refuses to sign a document already signed', () => {
    const sample = path.join(SUNAT_SAMPLES, '20600055519-01-F001-00000001.signed.xml');
    const verified = run(['xml', 'verify', sample]);
    expect(verified.status, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/^Firma válida: .*\(XMLDSig UBL\), RSA-SHA1\.\n$/);
    const again = run(['xml', 'sign', sample, '--cert', testCert, '--out', file('twice.xml')]);
    expect(again.status).toBe(1);
    expect(fs.existsSync(file('twice.xml'))).toBe(false);
  });
});
