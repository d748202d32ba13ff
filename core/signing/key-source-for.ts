import crypto from 'node:crypto';
import type { CertificateRow } from '../certificates/index.js';
import { SelloError } from '../errors/index.js';
import type { SecretBox } from '../secrets/index.js';
import { loadTokenDriver } from '../../native/index.js';
import { softwareKeySource, tokenKeySource, type KeySource, type PinProvider } from './key-sources/index.js';

export interface OpenedKeySource {
  source: KeySource;
  /** Releases what opening took (a token module). */
  close(): Promise<void>;
}

/** The key source of a stored certificate: its `.p12`, its token, or its test key. */
export async function openKeySource(row: CertificateRow, deps: { secrets: SecretBox; pin: PinProvider }): Promise<OpenedKeySource> {
  const chain = (JSON.parse(row.chain) as string[]).map((c) => Buffer.from(c, 'base64'));
  if (row.source === 'p12') {
    // Sealed at rest (core/certificates/p12-at-rest.ts): opened here, in memory only.
    if (!row.p12_sealed || !row.p12_password_sealed) throw new SelloError('certificate_not_found', { detail: 'El certificado .p12 no tiene su archivo guardado; vuelva a importarlo.' });
    // The .p12 reader (node-forge) is loaded at the first signature with one, not at every start.
    const { p12KeySource } = await import('./key-sources/p12.js');
    return { source: p12KeySource(deps.secrets.openBytes(row.p12_sealed), deps.secrets.open(row.p12_password_sealed)), close: async () => undefined };
  }
  if (row.source === 'test') {
    if (!row.private_key_sealed) throw new SelloError('certificate_not_found', { detail: 'El certificado de prueba no tiene su clave.' });
    const key = crypto.createPrivateKey(deps.secrets.open(row.private_key_sealed));
    return { source: softwareKeySource({ key, certificate: row.certificate, chain }), close: async () => undefined };
  }
  if (!row.token_module || !row.token_serial || !row.token_key_id) {
    throw new SelloError('certificate_not_found', { detail: 'El certificado del token no tiene los datos del token; vuelva a listar los tokens con sello tokens.' });
  }
  const driver = loadTokenDriver(row.token_module);
  try {
    const source = await tokenKeySource({
      driver,
      tokenSerial: row.token_serial,
      keyId: Buffer.from(row.token_key_id, 'hex'),
      certificate: row.certificate,
      chain,
      pin: deps.pin,
    });
    return { source, close: () => driver.close() };
  } catch (err) {
    await driver.close();
    throw err;
  }
}
