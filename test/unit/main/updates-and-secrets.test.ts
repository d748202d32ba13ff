import { describe, expect, it } from 'vitest';
import { createSecretStorage } from '../../../main/secret-storage.js';
import { configureUpdates, packagedFeedUrlOf, updateSettingsFrom, updatesLabel, type UpdaterLike } from '../../../main/updates.js';
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

  it('uses the feed the installer was made with, leaving electron-updater to read app-update.yml', () => {
    const u = fakeUpdater();
    const yml = 'provider: generic\nurl: https://descargas.oficina.example/sello\nupdaterCacheDirName: sello-updater\n';
    const settings = updateSettingsFrom({}, yml);
    expect(settings.packagedFeedUrl).toBe('https://descargas.oficina.example/sello');
    expect(configureUpdates(u, settings, () => undefined)).toBe(true);
    expect(u.feeds).toEqual([]);
    expect(u.checks).toBe(1);
    expect(u.channel).toBe('latest');
  });

  it("prefers this computer's SELLO_UPDATE_FEED_URL, and ignores what is not an http(s) feed", () => {
    const u = fakeUpdater();
    const settings = updateSettingsFrom({ SELLO_UPDATE_FEED_URL: 'https://local.example/sello' }, 'provider: generic\nurl: https://otro.example/sello\n');
    configureUpdates(u, settings, () => undefined);
    expect(u.feeds).toEqual([{ provider: 'generic', url: 'https://local.example/sello', channel: 'latest' }]);
    expect(updateSettingsFrom({ SELLO_UPDATE_FEED_URL: 'file:///etc/passwd' }).feedUrl).toBeUndefined();
    expect(packagedFeedUrlOf('provider: github\nowner: x\n')).toBeUndefined();
  });

  it('says in the tray menu where updates come from, or that there are none', () => {
    expect(updatesLabel(updateSettingsFrom({}))).toBe('Actualizaciones: desactivadas (sin SELLO_UPDATE_FEED_URL)');
    expect(updatesLabel(updateSettingsFrom({ SELLO_UPDATE_FEED_URL: 'https://u.example/s', SELLO_UPDATE_CHANNEL: 'beta' }))).toBe('Actualizaciones: https://u.example/s (canal beta)');
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
