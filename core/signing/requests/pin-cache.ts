/**
 * Token PINs given at approval (CONTRACT §11 "asks for the PIN once per session"):
 * kept in memory for `ttlMs` (SELLO_PIN_CACHE_SECONDS, 15 min by default), keyed by the
 * token's serial, so every pending signature of that token proceeds with it. Written to
 * disk only when the user opts in (`remember`), and then sealed with the data folder's
 * key in `settings` under `token_pin:<serial>`. Never logged.
 */
import type { Store } from '../../db/index.js';
import type { SecretBox } from '../../secrets/index.js';

export interface PinCache {
  get(tokenSerial: string): string | undefined;
  set(tokenSerial: string, pin: string, options?: { remember?: boolean }): void;
  /** After a wrong PIN: forget it everywhere, so it is never tried again by itself. */
  forget(tokenSerial: string): void;
  has(tokenSerial: string): boolean;
  /**
   * Calls `listener` after every `set`, with the token's serial: whatever waits for that token
   * (issued comprobantes, core/fiscal/submissions) goes on at once instead of at its next check.
   * Returns the function that stops the calls.
   */
  onSet(listener: (tokenSerial: string) => void): () => void;
}

const settingName = (serial: string) => `token_pin:${serial}`;

export function createPinCache(deps: { store: Store; secrets: SecretBox; ttlMs: number; now?: () => number }): PinCache {
  const now = deps.now ?? Date.now;
  const memory = new Map<string, { pin: string; expiresAt: number }>();
  const listeners = new Set<(serial: string) => void>();
  const remembered = (serial: string): string | undefined => {
    const row = deps.store.first(deps.store.db.selectFrom('settings').select('value').where('name', '=', settingName(serial)));
    if (!row) return undefined;
    try {
      return deps.secrets.open(row.value);
    } catch {
      return undefined;
    }
  };
  const cache: PinCache = {
    get(serial) {
      const entry = memory.get(serial);
      if (entry && entry.expiresAt > now()) return entry.pin;
      if (entry) memory.delete(serial);
      return remembered(serial);
    },
    set(serial, pin, options = {}) {
      memory.set(serial, { pin, expiresAt: now() + deps.ttlMs });
      if (options.remember) {
        const value = deps.secrets.seal(pin);
        deps.store.run(
          deps.store.db
            .insertInto('settings')
            .values({ name: settingName(serial), value })
            .onConflict((oc) => oc.column('name').doUpdateSet({ value })),
        );
      }
      for (const listener of listeners) listener(serial);
    },
    forget(serial) {
      memory.delete(serial);
      deps.store.run(deps.store.db.deleteFrom('settings').where('name', '=', settingName(serial)));
    },
    has(serial) {
      return cache.get(serial) !== undefined;
    },
    onSet(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return cache;
}
