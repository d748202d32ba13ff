/** The part of electron-updater's `autoUpdater` that Sello uses. */
export interface UpdaterLike {
  channel: string | null;
  allowPrerelease: boolean;
  setFeedURL(options: { provider: 'generic'; url: string; channel?: string }): void;
  checkForUpdatesAndNotify(): Promise<unknown>;
}

/**
 * Where updates come from (docs/tray.md, "Actualizaciones"). There is no default address: many
 * offices are offline, and only whoever publishes the installers knows where they are.
 */
export interface UpdateSettings {
  /** `SELLO_UPDATE_FEED_URL` on this computer: a generic feed (installers and `latest*.yml`). */
  feedUrl: string | undefined;
  /**
   * The feed the installer was made with (`SELLO_UPDATE_FEED_URL` at `npm run dist`, written by
   * electron-builder into `resources/app-update.yml`); electron-updater reads it by itself.
   */
  packagedFeedUrl: string | undefined;
  channel: 'stable' | 'beta';
}

/** A generic feed must be an absolute http(s) URL; anything else is no feed. */
function feedUrl(raw: string | undefined): string | undefined {
  if (!raw || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return url.protocol === 'https:' || url.protocol === 'http:' ? raw : undefined;
}

/**
 * The update settings: `SELLO_UPDATE_FEED_URL` and `SELLO_UPDATE_CHANNEL` from the environment,
 * and the feed of the installer (`packagedFeed`, the text of its `app-update.yml`) if it has one.
 */
export function updateSettingsFrom(env: NodeJS.ProcessEnv, packagedFeed?: string): UpdateSettings {
  return {
    feedUrl: feedUrl(env.SELLO_UPDATE_FEED_URL),
    packagedFeedUrl: packagedFeed === undefined ? undefined : packagedFeedUrlOf(packagedFeed),
    channel: env.SELLO_UPDATE_CHANNEL === 'beta' ? 'beta' : 'stable',
  };
}

/** The `url` of a generic provider in electron-builder's `app-update.yml` (`provider: generic`, `url: …`). */
export function packagedFeedUrlOf(appUpdateYml: string): string | undefined {
  if (!/^provider:\s*['"]?generic['"]?\s*$/m.test(appUpdateYml)) return undefined;
  const m = /^url:\s*['"]?([^'"\s]+)['"]?\s*$/m.exec(appUpdateYml);
  return feedUrl(m?.[1]);
}

/** The line the tray's menu shows about updates: where they come from, or that there are none. */
export function updatesLabel(settings: UpdateSettings): string {
  const url = settings.feedUrl ?? settings.packagedFeedUrl;
  if (!url) return 'Actualizaciones: desactivadas (sin SELLO_UPDATE_FEED_URL)';
  return `Actualizaciones: ${url} (canal ${settings.channel === 'beta' ? 'beta' : 'estable'})`;
}

/**
 * Points electron-updater at the configured feed and channel. Returns whether updates will be
 * checked: with neither `SELLO_UPDATE_FEED_URL` nor a feed in the installer, nothing is checked.
 * A failed check only logs (an office without internet is normal).
 */
export function configureUpdates(updater: UpdaterLike, settings: UpdateSettings, onError: (err: unknown) => void): boolean {
  if (!settings.feedUrl && !settings.packagedFeedUrl) return false;
  const channel = settings.channel === 'beta' ? 'beta' : 'latest';
  // This computer's setting wins over the installer's feed.
  if (settings.feedUrl) updater.setFeedURL({ provider: 'generic', url: settings.feedUrl, channel });
  updater.channel = channel;
  updater.allowPrerelease = settings.channel === 'beta';
  updater.checkForUpdatesAndNotify().catch(onError);
  return true;
}
