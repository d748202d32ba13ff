/**
 * A key held in memory as a node:crypto KeyObject: Sello's test certificates (CONTRACT §10)
 * and keys taken out of a .p12. Signs with `crypto.sign`, never forge (100× faster).
 */
import { createPublicKey, sign as cryptoSign, X509Certificate, type KeyObject } from 'node:crypto';
import { assertWithinValidity, certificateValidity, type Clock, type KeySource, type SignatureHash } from './key-source.js';

export interface SoftwareKeySourceOptions {
  key: KeyObject;
  certificate: Buffer;
  chain?: Buffer[];
  now?: Clock;
}

/** A key source whose key is in this process: it can be handed to the PDF thread (core/signing/pdf-thread). */
export interface SoftwareKeySource extends KeySource {
  readonly kind: 'software' | 'p12';
  readonly privateKey: KeyObject;
}

/**
 * @example
 *   const source = softwareKeySource({ key: leaf.privateKey, certificate: leaf.certificate, chain: leaf.chain });
 *   await buildPadesCms({ digest, signer: source });
 */
export function softwareKeySource(opts: SoftwareKeySourceOptions): SoftwareKeySource {
  return makeSoftwareSource('software', opts);
}

export function makeSoftwareSource<K extends 'software' | 'p12'>(kind: K, opts: SoftwareKeySourceOptions): SoftwareKeySource & { kind: K } {
  if (!keyMatchesCertificate(opts.key, opts.certificate)) {
    throw new Error('La clave privada no corresponde al certificado.');
  }
  const now = opts.now ?? (() => new Date());
  const validity = certificateValidity(opts.certificate); // read once, not at every signature
  return {
    kind,
    certificate: opts.certificate,
    chain: opts.chain ?? [],
    privateKey: opts.key,
    async sign(data: Buffer, hash: SignatureHash = 'sha256'): Promise<Buffer> {
      assertWithinValidity(validity, now());
      // RSA: PKCS#1 v1.5 with the hash; EC: ECDSA with the hash, DER-encoded (node's default).
      return cryptoSign(hash, data, opts.key);
    },
  };
}

export function keyMatchesCertificate(key: KeyObject, certificate: Buffer): boolean {
  const pub = (key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' });
  return new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'der' }).equals(pub);
}
