/**
 * `.p12` / `.pfx` files (PKCS#12, RFC 7292), as Ecuadorian and Peruvian CAs deliver
 * "certificados en archivo".
 *
 * node-forge parses the container (both the legacy RC2/3DES files and OpenSSL 3's default
 * AES-256/PBKDF2 with a SHA-256 MAC); the key then becomes a node:crypto KeyObject and all
 * signing happens in node:crypto, never in forge.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { SelloError } from '../../errors/index.js';
import { orderChain, type Clock } from './key-source.js';
import { keyMatchesCertificate, makeSoftwareSource, type SoftwareKeySource } from './software.js';

export interface P12Contents {
  key: KeyObject;
  certificate: Buffer;
  /** Issuer first. */
  chain: Buffer[];
}

/**
 * Reads a .p12 with its password. Wrong password → `p12_bad_password`; not a PKCS#12, or no
 * key with its certificate → `p12_invalid`.
 *
 * @example
 *   const { certificate } = readP12(await readFile('firma.p12'), password);
 */
export function readP12(data: Buffer, password: string): P12Contents {
  let p12: forge.pkcs12.Pkcs12Pfx;
  let der: forge.asn1.Asn1;
  try {
    der = forge.asn1.fromDer(data.toString('binary'));
  } catch (err) {
    throw invalid('El archivo no es un .p12 (PKCS#12) válido. Exporte de nuevo el certificado con su clave privada.', err);
  }
  try {
    p12 = openPfx(der, password);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/password|MAC could not be verified|decrypt/i.test(message)) {
      throw new SelloError('p12_bad_password', { detail: 'La contraseña del archivo .p12 no es correcta. Revísela (distingue mayúsculas y minúsculas).', cause: err });
    }
    throw invalid('El archivo no es un .p12 (PKCS#12) que Sello pueda leer. Exporte de nuevo el certificado con su clave privada.', err);
  }

  const keys: KeyObject[] = [];
  const certs: Buffer[] = [];
  for (const safe of p12.safeContents) {
    for (const bag of safe.safeBags) {
      if (bag.type === forge.pki.oids['certBag'] && bag.cert) {
        certs.push(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(bag.cert)).getBytes(), 'binary'));
      } else if (bag.type === forge.pki.oids['certBag'] && bag.asn1) {
        const certDer = certFromBagAsn1(bag.asn1);
        if (certDer) certs.push(certDer);
      } else if (bag.type === forge.pki.oids['pkcs8ShroudedKeyBag'] || bag.type === forge.pki.oids['keyBag']) {
        const key = keyFromBag(bag);
        if (key) keys.push(key);
      }
    }
  }
  for (const key of keys) {
    const certificate = certs.find((c) => keyMatchesCertificate(key, c));
    if (certificate) {
      return { key, certificate, chain: orderChain(certificate, certs.filter((c) => !c.equals(certificate))) };
    }
  }
  throw invalid(
    keys.length === 0
      ? 'El archivo .p12 no contiene una clave privada. Exporte de nuevo el certificado incluyendo la clave privada.'
      : 'El archivo .p12 no contiene el certificado de su clave privada.',
  );
}

/**
 * A key source for a .p12: reads it once, then signs with node:crypto.
 *
 * @example
 *   const source = p12KeySource(await readFile('firma.p12'), password);
 */
export function p12KeySource(data: Buffer, password: string, opts: { now?: Clock } = {}): SoftwareKeySource & { kind: 'p12' } {
  const { key, certificate, chain } = readP12(data, password);
  return makeSoftwareSource('p12', { key, certificate, chain, ...(opts.now ? { now: opts.now } : {}) });
}

/**
 * forge derives the MAC key from the password as a BMPString (RFC 7292 Appendix B.1, right),
 * but feeds PBES2 (OpenSSL 3's default encryption) the password's UTF-16 code units as bytes,
 * whereas OpenSSL uses its UTF-8 bytes (RFC 8018 leaves the encoding to the application).
 * They agree for ASCII only: with "contraseña" the MAC verifies and decryption fails. So,
 * once the MAC has proved the password right, decrypt again with the UTF-8 bytes.
 */
function openPfx(der: forge.asn1.Asn1, password: string): forge.pkcs12.Pkcs12Pfx {
  try {
    return forge.pkcs12.pkcs12FromAsn1(der, false, password);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const hasMac = Array.isArray(der.value) && der.value.length > 2;
    // The MAC is checked first: if it failed, the password is wrong and that is the answer.
    // Otherwise the wrongly derived key usually fails the padding check ("decrypt"), but
    // about once in 256 its garbage passes it and fails later as unparseable DER: retry both.
    // eslint-disable-next-line no-control-regex
    if (/MAC could not be verified/i.test(message) || !hasMac || /^[\x00-\x7f]*$/.test(password)) throw err;
    const withoutMac = forge.asn1.create(der.tagClass, der.type, der.constructed, (der.value as forge.asn1.Asn1[]).slice(0, 2));
    return forge.pkcs12.pkcs12FromAsn1(withoutMac, false, forge.util.encodeUtf8(password));
  }
}

function keyFromBag(bag: forge.pkcs12.Bag): KeyObject | undefined {
  try {
    if (bag.key) return createPrivateKey(forge.pki.privateKeyToPem(bag.key));
    // forge keeps keys it cannot model (EC) as raw PrivateKeyInfo.
    if (bag.asn1) return createPrivateKey({ key: Buffer.from(forge.asn1.toDer(bag.asn1).getBytes(), 'binary'), format: 'der', type: 'pkcs8' });
  } catch {
    return undefined;
  }
  return undefined;
}

/** forge leaves certificates it cannot parse (EC keys) as ASN.1: CertBag { certId, [0] OCTET STRING DER }. */
function certFromBagAsn1(node: forge.asn1.Asn1): Buffer | undefined {
  try {
    const der = Buffer.from(forge.asn1.toDer(node).getBytes(), 'binary');
    new X509Certificate(der);
    return der;
  } catch {
    return undefined;
  }
}

function invalid(detail: string, cause?: unknown): SelloError {
  return new SelloError('p12_invalid', { detail, ...(cause === undefined ? {} : { cause }) });
}
