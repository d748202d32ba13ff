import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Seals secrets that Sello must read back in clear (webhook secrets, to sign each
 * delivery; an imported `.p12` file and its password, test certificates' keys), with
 * AES-256-GCM under a random key kept in `<data>/secret.key` (0600). A stolen database
 * alone reveals no secret.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** The same for bytes (a `.p12` file): `v1.<iv>.<tag>.<body>`, as `seal`. */
  sealBytes(plain: Buffer): string;
  openBytes(sealed: string): Buffer;
}

const VERSION = 'v1';

export function loadSecretBox(dataDir: string): SecretBox {
  const file = path.join(dataDir, 'secret.key');
  let key: Buffer;
  try {
    key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    key = crypto.randomBytes(32);
    // `wx`: never overwrite a key another process has just written.
    try {
      fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (writeErr) {
      if ((writeErr as NodeJS.ErrnoException).code !== 'EEXIST') throw writeErr;
      key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    }
  }
  if (key.length !== 32) throw new Error(`${file} no contiene una clave de 32 bytes.`);

  const sealBytes = (plain: Buffer): string => {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  };
  const openBytes = (sealed: string): Buffer => {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('Secreto sellado con un formato desconocido.');
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  };
  return {
    seal: (plaintext) => sealBytes(Buffer.from(plaintext, 'utf8')),
    open: (sealed) => openBytes(sealed).toString('utf8'),
    sealBytes,
    openBytes,
  };
}
