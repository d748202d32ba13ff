/**
 * SoftHSM2 tokens for tests: a temp folder with its own `softhsm2.conf` and tokens folder,
 * so tests never touch /var/lib/softhsm and never see each other's tokens.
 *
 * SoftHSM reads `SOFTHSM2_CONF` when the module is initialised (C_Initialize), so a test file
 * creates one `SoftHsm` before loading the module and keeps it for its lifetime; tokens can be
 * added to it at any time (they appear in the slot list on the next C_GetSlotList).
 *
 * @example
 *   const hsm = await createSoftHsm();
 *   const token = await hsm.initToken({ label: 'ana', pin: '1234' });
 *   await token.importKey({ id: '01', label: 'ana', key: leaf.privateKey, certificate: leaf.certificate });
 *   const driver = loadTokenDriver(SOFTHSM_MODULE);
 */
import { execFile } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

export interface SoftHsmToken {
  label: string;
  pin: string;
  soPin: string;
  /**
   * Imports a key pair and its certificate under the same CKA_ID (hex) and CKA_LABEL.
   * `alwaysAuthenticate` writes the key with CKA_ALWAYS_AUTHENTICATE (pkcs11-tool --always-auth).
   */
  importKey(opts: { id: string; label: string; key: KeyObject; certificate: Buffer; alwaysAuthenticate?: boolean }): Promise<void>;
}

export interface SoftHsm {
  dir: string;
  confPath: string;
  tokensDir: string;
  modulePath: string;
  initToken(opts: { label: string; pin: string; soPin?: string }): Promise<SoftHsmToken>;
  /** "Unplugs" every token: moves the tokens folder away. */
  removeTokens(): Promise<void>;
  /** Plugs them back. */
  reinsertTokens(): Promise<void>;
  cleanup(): Promise<void>;
}

/** Creates the folder and config and points `process.env.SOFTHSM2_CONF` at it. */
export async function createSoftHsm(): Promise<SoftHsm> {
  const dir = await mkdtemp(join(tmpdir(), 'sello-softhsm-'));
  const tokensDir = join(dir, 'tokens');
  const awayDir = join(dir, 'tokens-away');
  await mkdir(tokensDir);
  const confPath = join(dir, 'softhsm2.conf');
  await writeFile(
    confPath,
    [`directories.tokendir = ${tokensDir}`, 'objectstore.backend = file', 'log.level = ERROR', 'slots.removable = true', ''].join('\n'),
  );
  process.env['SOFTHSM2_CONF'] = confPath;
  const env = { ...process.env, SOFTHSM2_CONF: confPath };
  const tool = (cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> => run(cmd, args, { env });

  return {
    dir,
    confPath,
    tokensDir,
    modulePath: SOFTHSM_MODULE,
    async initToken({ label, pin, soPin = '87654321' }) {
      await tool('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin]);
      return {
        label,
        pin,
        soPin,
        async importKey({ id, label: keyLabel, key, certificate, alwaysAuthenticate }) {
          const work = await mkdtemp(join(dir, 'import-'));
          try {
            const certPath = join(work, 'cert.der');
            await writeFile(certPath, certificate);
            if (alwaysAuthenticate) {
              const keyPath = join(work, 'key.der');
              await writeFile(keyPath, key.export({ type: 'pkcs8', format: 'der' }), { mode: 0o600 });
              await tool('pkcs11-tool', [
                '--module', SOFTHSM_MODULE, '--token-label', label, '--login', '--pin', pin,
                '--write-object', keyPath, '--type', 'privkey', '--id', id, '--label', keyLabel, '--usage-sign', '--always-auth',
              ]);
            } else {
              const keyPath = join(work, 'key.pem');
              await writeFile(keyPath, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
              await tool('softhsm2-util', ['--import', keyPath, '--token', label, '--label', keyLabel, '--id', id, '--pin', pin]);
            }
            await tool('pkcs11-tool', [
              '--module', SOFTHSM_MODULE, '--token-label', label, '--login', '--pin', pin,
              '--write-object', certPath, '--type', 'cert', '--id', id, '--label', keyLabel,
            ]);
          } finally {
            await rm(work, { recursive: true, force: true });
          }
        },
      };
    },
    async removeTokens() {
      await rename(tokensDir, awayDir);
      await mkdir(tokensDir);
    },
    async reinsertTokens() {
      await rm(tokensDir, { recursive: true, force: true });
      await rename(awayDir, tokensDir);
    },
    async cleanup() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}
