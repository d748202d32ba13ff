/**
 * Helpers for the XAdES tests: the SRI fixtures, the two independent checkers (xmllint against
 * the SRI's XSD, xmlsec1 for the XMLDSig part), Java's X500Principal for ds:X509IssuerName, and
 * `reseal`, which builds hostile signatures that are cryptographically sound: after a change,
 * every digest and the SignatureValue are computed again with the given key, so only the
 * verifier's structural rules can refuse them.
 *
 * @example
 *   const forged = reseal(signed, key, (doc, signature) => dropReference(signature, 0));
 *   expect(xmlsec1(forged, 'factura').ok).toBe(true); // xmlsec1 alone is content with it
 */
import { spawnSync } from 'node:child_process';
import { sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DOMParser, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import { digestBase64, DS, ENVELOPED, type XmlHash } from '../../core/xml/algorithms.js';
import { canonicalize } from '../../core/xml/c14n.js';
import { allElements, childrenNamed, onlyChild } from '../../core/xml/dom.js';
import { repoRoot } from './cli.js';

export const SRI_SAMPLES = path.join(repoRoot, 'test/fixtures/sri/samples');
export const SRI_XSD = path.join(repoRoot, 'test/fixtures/sri/xsd');

/** The signed samples, their root element and their schema. */
export const SIGNED_SAMPLES = [
  { file: 'invoice.signed.xml', root: 'factura', xsd: 'factura_V1.1.0.xsd' },
  { file: 'credit-note.signed.xml', root: 'notaCredito', xsd: 'NotaCredito_V1.1.0.xsd' },
  { file: 'debit-note.signed.xml', root: 'notaDebito', xsd: 'NotaDebito_V1.0.0.xsd' },
  { file: 'withholding-certificate.signed.xml', root: 'comprobanteRetencion', xsd: 'ComprobanteRetencion_V1.0.0.xsd' },
] as const;

export interface ToolResult {
  ok: boolean;
  output: string;
}

/** Runs `fn` on `xml` written to a temporary file, removed afterwards. */
export function withFile<T>(xml: Buffer, fn: (file: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'sello-xml-'));
  try {
    const file = path.join(dir, 'doc.xml');
    writeFileSync(file, xml);
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a command to its end: exit 0 or not, and what it printed. */
export function tool(cmd: string, args: string[]): ToolResult {
  const res = spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
  return { ok: res.status === 0, output: `${res.stdout}${res.stderr}` };
}

/** `xmllint --noout --nonet --schema XSD` (libxml2): the SRI's schema, no network. */
export function xmllint(xml: Buffer, xsd: string): ToolResult {
  return withFile(xml, (file) => tool('xmllint', ['--noout', '--nonet', '--schema', path.join(SRI_XSD, xsd), file]));
}

/**
 * `xmlsec1 --verify` with the key taken from the certificate and same-document references only,
 * the ids XAdES uses declared (fiscal README). On its own it proves little: see `reseal`.
 */
export function xmlsec1(xml: Buffer, rootName: string): ToolResult {
  return withFile(xml, (file) =>
    tool('xmlsec1', [
      '--verify', '--enabled-key-data', 'x509', '--enabled-reference-uris', 'same-doc', '--insecure',
      '--id-attr:id', rootName,
      '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
      '--id-attr:Id', 'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
      file,
    ]),
  );
}

/** The same file with one byte of `from` (its first occurrence after `after`) replaced by `to`. */
export function changeByte(xml: Buffer, after: string, from: string, to: string): Buffer {
  const start = xml.indexOf(after);
  const at = xml.indexOf(from, start);
  if (start < 0 || at < 0 || from.length !== 1 || to.length !== 1) throw new Error(`no se encontró ${from} después de ${after}`);
  const copy = Buffer.from(xml);
  copy[at] = to.charCodeAt(0);
  return copy;
}

const parse = (text: string): Document => new DOMParser({ onError: (level, msg) => { if (level !== 'warning') throw new Error(msg); } }).parseFromString(text, 'text/xml');

function signatureOf(doc: Document): Element {
  const found = doc.getElementsByTagNameNS(DS, 'Signature').item(0);
  if (!found) throw new Error('sin ds:Signature');
  return found;
}

/**
 * Applies `mutate` to the signed document, then recomputes every Reference digest and the
 * SignatureValue with `key` (RSA, `hash`). References resolve to the first element with the id.
 */
export function reseal(xml: Buffer, key: KeyObject, mutate: (doc: Document, signature: Element) => void, hash: XmlHash = 'sha1'): Buffer {
  const first = parse(xml.toString('utf8'));
  mutate(first, signatureOf(first));
  const doc = parse(new XMLSerializer().serializeToString(first));
  const signature = signatureOf(doc);
  const root = doc.documentElement as Element;
  const byId = (id: string): Element | undefined => allElements(root).find((e) => ['id', 'Id', 'ID'].some((a) => e.getAttribute(a) === id));
  const signedInfo = onlyChild(signature, DS, 'SignedInfo') as Element;
  const references = childrenNamed(signedInfo, DS, 'Reference');
  const digests = references.map((ref) => {
    const target = byId((ref.getAttribute('URI') ?? '').slice(1));
    if (!target) return undefined;
    const transforms = onlyChild(ref, DS, 'Transforms');
    const enveloped = !!transforms && childrenNamed(transforms, DS, 'Transform').some((t) => t.getAttribute('Algorithm') === ENVELOPED);
    return digestBase64(hash, canonicalize(target, enveloped ? { without: signature } : {}));
  });
  references.forEach((ref, i) => {
    const value = onlyChild(ref, DS, 'DigestValue');
    if (value && digests[i]) value.textContent = digests[i];
  });
  const value = sign(hash, Buffer.from(canonicalize(signedInfo), 'utf8'), key).toString('base64');
  (onlyChild(signature, DS, 'SignatureValue') as Element).textContent = value;
  return Buffer.from(new XMLSerializer().serializeToString(doc), 'utf8');
}

/** Removes the `index`-th Reference of SignedInfo. */
export function dropReference(signature: Element, index: number): void {
  const signedInfo = onlyChild(signature, DS, 'SignedInfo') as Element;
  const ref = childrenNamed(signedInfo, DS, 'Reference')[index];
  if (!ref) throw new Error(`no hay referencia ${index}`);
  signedInfo.removeChild(ref);
}

/** Whether Java 17's X500Principal reads `name` as the issuer of the certificate `der`. */
export function javaReadsIssuer(der: Buffer, name: string): ToolResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'sello-java-'));
  try {
    const certFile = path.join(dir, 'cert.der');
    writeFileSync(certFile, der);
    const source = path.join(dir, 'IssuerCheck.java');
    writeFileSync(
      source,
      [
        'import java.io.FileInputStream;',
        'import java.security.cert.CertificateFactory;',
        'import java.security.cert.X509Certificate;',
        'import javax.security.auth.x500.X500Principal;',
        'public class IssuerCheck {',
        '  public static void main(String[] args) throws Exception {',
        '    X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new FileInputStream(args[0]));',
        '    X500Principal fromXml = new X500Principal(args[1]);',
        '    System.out.println(fromXml.getName(X500Principal.CANONICAL));',
        '    System.out.println(cert.getIssuerX500Principal().getName(X500Principal.CANONICAL));',
        '    System.exit(fromXml.equals(cert.getIssuerX500Principal()) ? 0 : 3);',
        '  }',
        '}',
      ].join('\n'),
    );
    return tool('java', [source, certFile, name]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function hasCommand(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}
