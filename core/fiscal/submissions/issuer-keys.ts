/**
 * The issuers' keys, as the submission job signs with them: a stored certificate's key source
 * (core/signing `openKeySource`: its .p12, its test key, or its PKCS#11 token) made an XML
 * signer (core/xml). Keys held in memory are opened once per certificate (a .p12 costs a key
 * derivation to open). A token key signs only with a PIN a person gave — the same PIN cache as
 * signing requests (core/signing/requests/pin-cache.ts, CONTRACT §11: asked once per session,
 * optionally remembered, never logged) — and one token operation runs at a time; without the
 * PIN the signature fails `pin_required` at once, before the token is even opened, so that the
 * job waits instead of asking anybody.
 */
import type { CertificateRow } from '../../certificates/index.js';
import { SelloError } from '../../errors/index.js';
import type { SecretBox } from '../../secrets/index.js';
import type { PinCache } from '../../signing/requests/index.js';
import { openKeySource } from '../../signing/key-source-for.js';
// light.ts: the XML signing libraries are loaded at the first signature, not with the agent.
import { signXadesBes, xmlSignerFrom, type XmlHash, type XmlSigner } from '../../xml/light.js';

export interface IssuerKeys {
  /**
   * Signs the comprobante `xml` (XAdES-BES) with the certificate's key. Throws SelloError:
   * `certificate_expired`, `certificate_key_usage`, `certificate_key_type`, `pin_required`,
   * `pin_incorrect`, `pin_locked`, `token_not_present`…
   */
  sign(cert: CertificateRow, xml: Buffer, hash: XmlHash): Promise<Buffer>;
  /** Whether the certificate can sign now without asking anybody (a token's PIN is at hand). */
  ready(cert: CertificateRow): boolean;
}

export function createIssuerKeys(deps: { secrets: SecretBox; pins: PinCache }): IssuerKeys {
  const { secrets, pins } = deps;
  /** Signers of keys held in memory, by certificate id and fingerprint; kept as promises so parallel steps open a key once. */
  const held = new Map<string, Promise<XmlSigner>>();
  /** Tokens do one operation at a time (ENGINEERING.md). */
  let tokenQueue: Promise<unknown> = Promise.resolve();

  const onToken = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = tokenQueue.then(fn, fn);
    tokenQueue = p.catch(() => undefined);
    return p;
  };

  function heldSigner(cert: CertificateRow): Promise<XmlSigner> {
    const key = `${cert.id}:${cert.fingerprint}`;
    let signer = held.get(key);
    if (!signer) {
      signer = openKeySource(cert, { secrets, pin: () => Promise.reject(new SelloError('pin_required')) }).then((opened) => xmlSignerFrom(opened.source));
      held.set(key, signer);
      // A key that did not open (a .p12 re-imported meanwhile…) is tried again next time.
      signer.catch(() => held.delete(key));
    }
    return signer;
  }

  async function tokenSign(cert: CertificateRow, xml: Buffer, hash: XmlHash): Promise<Buffer> {
    const serial = cert.token_serial ?? '';
    // Looked at again inside the queue: a wrong PIN found meanwhile was forgotten and must not be tried twice.
    if (!pins.has(serial)) throw new SelloError('pin_required');
    const opened = await openKeySource(cert, {
      secrets,
      pin: async () => {
        const pin = pins.get(serial);
        if (pin === undefined) throw new SelloError('pin_required');
        return pin;
      },
    });
    try {
      return await signXadesBes(xml, xmlSignerFrom(opened.source), { hash });
    } catch (err) {
      // CONTRACT §11: a wrong PIN is never tried again by itself.
      if (err instanceof SelloError && (err.code === 'pin_incorrect' || err.code === 'pin_locked')) pins.forget(serial);
      throw err;
    } finally {
      await opened.close().catch(() => undefined);
    }
  }

  return {
    async sign(cert, xml, hash) {
      if (cert.source === 'token') return onToken(() => tokenSign(cert, xml, hash));
      return signXadesBes(xml, await heldSigner(cert), { hash });
    },
    ready(cert) {
      return cert.source !== 'token' || (cert.token_serial !== null && pins.has(cert.token_serial));
    },
  };
}
