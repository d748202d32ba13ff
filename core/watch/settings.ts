/**
 * Timings of the watched folders, from `SELLO_WATCH_*` environment variables (CONTRACT §1:
 * every setting can be given as `SELLO_<NAME>`), with the defaults documented in docs/folders.md.
 */
export interface WatchSettings {
  /** A file is ready when unchanged this long (`SELLO_WATCH_STABLE_MS`, 500). */
  stableMs: number;
  /** A PDF without its end waits this long after its last change, then goes to errors (`SELLO_WATCH_INCOMPLETE_SECONDS`, 60). */
  incompleteGraceMs: number;
  /**
   * Files read and signed at once (`SELLO_WATCH_CONCURRENCY`, 32): enough for files arriving
   * together to share commits and folder fsyncs, and to keep the store, the disk and the
   * signing thread busy while each file waits on the others; what is left after a file's signed
   * copy is written (moving its original) does not count.
   */
  concurrency: number;
  /** Stat interval of polled folders, network shares (`SELLO_WATCH_POLL_MS`, 1000). */
  pollIntervalMs: number;
  /** How often the folder list and the files waiting for a PIN are looked at again (1000). */
  reloadMs: number;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[`SELLO_WATCH_${name}`];
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function watchSettings(env: NodeJS.ProcessEnv = process.env): WatchSettings {
  return {
    stableMs: positive(env, 'STABLE_MS', 500),
    incompleteGraceMs: positive(env, 'INCOMPLETE_SECONDS', 60) * 1000,
    concurrency: Math.floor(positive(env, 'CONCURRENCY', 32)),
    pollIntervalMs: positive(env, 'POLL_MS', 1000),
    reloadMs: positive(env, 'RELOAD_MS', 1000),
  };
}
