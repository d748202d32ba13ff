/** The part of electron-updater's `autoUpdater` that Sello uses. */
export interface UpdaterLike {
  channel: string | null;
  allowPrerelease: boolean;
  setFeedURL(options: { provider: 'generic'; url: string; channel?: string }): void;
  checkForUpdatesAndNotify(): Promise<unknown>;
}

export interface UpdateSettings {
  /** Where installers are published (`latest.yml`…); no feed, no checks: many offices are offline. */
  feedUrl: string | undefined;
  channel: 'stable' | 'beta';
}

/** Reads the update settings from the environment (`SELLO_UPDATE_FEED_URL`, `SELLO_UPDATE_CHANNEL`). */
export function updateSettingsFrom(env: NodeJS.ProcessEnv): UpdateSettings {
  return {
    feedUrl: env.SELLO_UPDATE_FEED_URL || undefined,
    channel: env.SELLO_UPDATE_CHANNEL === 'beta' ? 'beta' : 'stable',
  };
}

/**
 * Points electron-updater at the configured feed and channel. Returns whether updates
 * will be checked; a failed check only logs (an office without internet is normal).
 */
export function configureUpdates(updater: UpdaterLike, settings: UpdateSettings, onError: (err: unknown) => void): boolean {
  if (!settings.feedUrl) return false;
  const channel = settings.channel === 'beta' ? 'beta' : 'latest';
  updater.setFeedURL({ provider: 'generic', url: settings.feedUrl, channel });
  updater.channel = channel;
  updater.allowPrerelease = settings.channel === 'beta';
  updater.checkForUpdatesAndNotify().catch(onError);
  return true;
}
