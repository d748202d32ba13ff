import { describe, expect, it } from 'vitest';
import { createSecretStorage } from '../../../main/secret-storage.js';
import { configureUpdates, updateSettingsFrom, type UpdaterLike } from '../../../main/updates.js';
import { createFakeElectron } from '../../fakes/electron.js';

function fakeUpdater(fail = false): UpdaterLike & { feeds: unknown[]; checks: number } {
  const u = {
    channel: null as string | null,
    allowPrerelease: false,
    feeds: [] as unknown[],
    checks: 0,
    setFeedURL: (o: unknown) => void u.feeds.push(o),
    checkForUpdatesAndNotify: async () => {
      u.checks++;
      if (fail) throw new Error('sin internet');
    },
  };
  return u;
}

describe('configureUpdates', () => {
  it('checks nothing without a feed', () => {
    const u = fakeUpdater();
    expect(configureUpdates(u, updateSettingsFrom({}), () => undefined)).toBe(false);
    expect(u.checks).toBe(0);
  });

  it('uses the configured feed and channel, and only logs a failed check', async () => {
    const u = fakeUpdater(true);
    const errors: unknown[] = [];
    expect(configureUpdates(u, updateSettingsFrom({ SELLO_UPDATE_FEED_URL: 'https://updates.example/sello', SELLO_UPDATE_CHANNEL: 'beta' }), (e) => errors.push(e))).toBe(true);
    expect(u.feeds).toEqual([{ provider: 'generic', url: 'https://updates.example/sello', channel: 'beta' }]);
    expect(u.channel).toBe('beta');
    expect(u.allowPrerelease).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(errors).toHaveLength(1);
  });
});

describe('createSecretStorage', () => {
  it('round-trips through safeStorage', () => {
    const storage = createSecretStorage(createFakeElectron().safeStorage);
    expect(storage.reveal(storage.protect('1234'))).toBe('1234');
    expect(storage.protect('1234')).not.toContain('1234');
  });

  it('refuses to store without an OS keychain', () => {
    const storage = createSecretStorage(createFakeElectron({ encryption: false }).safeStorage);
    expect(() => storage.protect('1234')).toThrow(/no se guardará/);
  });
});
