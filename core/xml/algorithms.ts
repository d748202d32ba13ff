/**
 * The namespaces and algorithm identifiers of XMLDSig (W3C, 2008) and XAdES 1.3.2 (ETSI TS 101
 * 903) that Sello writes and reads, and the digest each stands for. Anything not named here is
 * refused by the verifier: an unknown algorithm is never "probably fine".
 */
import { createHash } from 'node:crypto';

export const DS = 'http://www.w3.org/2000/09/xmldsig#';
export const XADES = 'http://uri.etsi.org/01903/v1.3.2#';
/** The Type of the Reference to the SignedProperties (XAdES §6.3.1). */
export const SIGNED_PROPERTIES_TYPE = 'http://uri.etsi.org/01903#SignedProperties';

export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export type CanonicalizationUri = typeof C14N | typeof EXC_C14N;

/** The hashes of the SRI's profile: SHA-1 (what it has always accepted) and SHA-256 (FirmaEC's). */
export type XmlHash = 'sha1' | 'sha256';

export const DIGEST_URI: Record<XmlHash, string> = {
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
};

export const SIGNATURE_URI: Record<XmlHash, string> = {
  sha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  sha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
};

/** The hash a DigestMethod URI names, or undefined when it is not one Sello accepts. */
export function digestHashOf(uri: string | null): XmlHash | undefined {
  return (Object.keys(DIGEST_URI) as XmlHash[]).find((h) => DIGEST_URI[h] === uri);
}

/** The hash of an RSA SignatureMethod URI, or undefined. */
export function signatureHashOf(uri: string | null): XmlHash | undefined {
  return (Object.keys(SIGNATURE_URI) as XmlHash[]).find((h) => SIGNATURE_URI[h] === uri);
}

/** Base64 of HASH(data). */
export function digestBase64(hash: XmlHash, data: string | Buffer): string {
  return createHash(hash).update(data).digest('base64');
}

/** The signature algorithm's usual name: "RSA-SHA1", "RSA-SHA256". */
export function signatureLabel(hash: XmlHash): string {
  return hash === 'sha1' ? 'RSA-SHA1' : 'RSA-SHA256';
}
