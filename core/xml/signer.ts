/**
 * What signs an XML: a certificate and a way to sign bytes with its key. The signature value
 * comes from here, never from a PEM key in core/xml, so that a USB token signs the same way a
 * .p12 does.
 */
import type { KeySource } from '../signing/key-sources/index.js';
import type { XmlHash } from './algorithms.js';
import { assertXmlSigningCertificate, certificateFacts } from './certificate.js';

export interface XmlSigner {
  /** The signer's certificate, DER. */
  readonly certificate: Buffer;
  /** RSA PKCS#1 v1.5 over HASH(`data`). */
  sign(data: Buffer, hash: XmlHash): Promise<Buffer>;
}

/**
 * An XmlSigner over one of Sello's key sources (software, .p12, token). Checks the certificate
 * at once (RSA, digitalSignature), so that a token's PIN is never asked for a signature the SRI
 * would refuse; the source itself checks that the certificate is current at each signature.
 *
 * @example
 *   const signed = await signXadesBes(xml, xmlSignerFrom(p12KeySource(p12, password)));
 */
export function xmlSignerFrom(source: KeySource): XmlSigner {
  assertXmlSigningCertificate(certificateFacts(source.certificate));
  return {
    certificate: source.certificate,
    sign: (data, hash) => source.sign(data, hash),
  };
}
