import type { ElectronApi } from './electron-api.js';

/**
 * Secrets the user chooses to keep (a token PIN, a `.p12` password) protected by the OS
 * keychain through Electron's `safeStorage` (CONTRACT §14). Without an OS keychain
 * nothing is stored: saying so beats storing it weakly.
 */
export function createSecretStorage(safeStorage: ElectronApi['safeStorage']) {
  return {
    available: (): boolean => safeStorage.isEncryptionAvailable(),
    protect(secret: string): string {
      if (!safeStorage.isEncryptionAvailable()) {
        throw new Error('Este sistema no ofrece un almacén seguro de claves; el secreto no se guardará.');
      }
      return safeStorage.encryptString(secret).toString('base64');
    },
    reveal(stored: string): string {
      return safeStorage.decryptString(Buffer.from(stored, 'base64'));
    },
  };
}
