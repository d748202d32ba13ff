/**
 * A key on a PKCS#11 token (CONTRACT §11): the certificate is read from the token, the
 * signature is made on it. The PIN comes from a `PinProvider` (the tray's prompt, the CLI's
 * `--pin-stdin`), asked only when the token needs a login; a wrong PIN surfaces as
 * `pin_incorrect` and is never retried here (tokens lock after a few wrong tries).
 */
import { SelloError } from '../../errors/index.js';
import type { PinTries, TokenDriver, TokenEntry } from '../../../native/index.js';
import { assertCertificateCurrent, orderChain, type Clock, type KeySource, type SignatureHash } from './key-source.js';

export interface PinRequest {
  tokenLabel: string;
  tokenSerial: string;
  /** `login`: the user PIN for the session; `context`: the per-signature PIN of a CKA_ALWAYS_AUTHENTICATE key. */
  reason: 'login' | 'context';
  /** What the token says about the tries left. */
  pinTries: PinTries;
}

/** Returns the PIN, or throws (for example `pin_required` when nobody is there to type it). */
export type PinProvider = (request: PinRequest) => Promise<string>;

export interface TokenKeySourceOptions {
  driver: TokenDriver;
  /** The token's serial number (CK_TOKEN_INFO.serialNumber): survives unplugging, unlike slot ids. */
  tokenSerial: string;
  /** CKA_ID shared by the certificate and its private key. */
  keyId: Buffer;
  /** DER; read from the token when absent. */
  certificate?: Buffer;
  /** DER, issuer first; defaults to the other certificates on the token that form the path. */
  chain?: Buffer[];
  pin: PinProvider;
  now?: Clock;
}

/**
 * @example
 *   const source = await tokenKeySource({ driver, tokenSerial: '0a1b2c', keyId: Buffer.from('01', 'hex'), pin: askInTray });
 *   await buildPadesCms({ digest, signer: source });
 */
export async function tokenKeySource(opts: TokenKeySourceOptions): Promise<KeySource & { kind: 'token' }> {
  const { driver, tokenSerial, keyId } = opts;
  const now = opts.now ?? (() => new Date());
  let certificate = opts.certificate;
  let chain = opts.chain;
  if (!certificate || !chain) {
    const slot = await findSlot(driver, tokenSerial);
    const certs = await driver.listCertificates(slot.slotId);
    const own = certs.find((c) => c.id.equals(keyId));
    if (!certificate) {
      if (!own) {
        throw new SelloError('certificate_not_found', {
          detail: 'El token conectado no tiene el certificado elegido. Revise que sea el token correcto.',
          meta: { token_serial: tokenSerial, key_id: keyId.toString('hex') },
        });
      }
      certificate = own.certificate;
    }
    const leaf = certificate;
    chain ??= orderChain(leaf, certs.map((c) => c.certificate).filter((c) => !c.equals(leaf)));
  }
  const cert = certificate;

  return {
    kind: 'token',
    certificate: cert,
    chain,
    async sign(data: Buffer, hash: SignatureHash = 'sha256'): Promise<Buffer> {
      assertCertificateCurrent(cert, now());
      const slot = await findSlot(driver, tokenSerial);
      const token = slot.token;
      const request = (reason: PinRequest['reason']): PinRequest => ({
        tokenLabel: token.label,
        tokenSerial,
        reason,
        pinTries: token.pinTries,
      });
      if (!driver.isLoggedIn(slot.slotId)) {
        if (token.pinTries === 'locked') {
          throw new SelloError('pin_locked', { detail: 'El PIN del token está bloqueado. Desbloquéelo con la herramienta del fabricante (PIN de administrador/PUK).' });
        }
        const pin = await opts.pin(request('login'));
        await driver.login(slot.slotId, pin); // one try; pin_incorrect goes to the caller
      }
      return driver.sign(slot.slotId, keyId, data, { hash, contextPin: () => opts.pin(request('context')) });
    },
  };
}

async function findSlot(driver: TokenDriver, tokenSerial: string): Promise<{ slotId: string; token: TokenEntry }> {
  const slots = await driver.listSlots();
  const slot = slots.find((s) => s.tokenPresent && s.token?.serialNumber === tokenSerial);
  if (!slot?.token) {
    throw new SelloError('token_not_present', {
      detail: 'El token del certificado no está conectado. Conéctelo y vuelva a intentarlo.',
      meta: { token_serial: tokenSerial },
    });
  }
  return { slotId: slot.slotId, token: slot.token };
}
