/**
 * Where Sello's files are at run time, from source or from the build.
 *
 * - From source (tsx, vitest) this module is `core/paths.ts`: the project is its parent folder,
 *   and a worker thread starts from the `entry.mjs` next to its code, which registers tsx.
 * - From the build (`npm run build`, scripts/build.mjs) every module is bundled into one flat
 *   folder (`dist/`: entry points and chunks side by side), and the build defines `SELLO_BUILD`:
 *   the way from that folder back to the project (`..` for `dist/`). A worker thread starts from
 *   its own bundle in the same folder (`dist/pdf-thread.mjs`, `dist/ride-thread.mjs`).
 *
 * Whatever is read from disk at run time (renderer/ at /ui, resources/, package.json) is found
 * from `projectRoot`, the same folder either way.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Set by scripts/build.mjs (esbuild `define`); never defined when running from source. */
declare const SELLO_BUILD: { root: string } | undefined;

const build = typeof SELLO_BUILD === 'undefined' ? undefined : SELLO_BUILD;
const here = path.dirname(fileURLToPath(import.meta.url));

/** True when this code runs from the bundles of `npm run build`. */
export const fromBuild = build !== undefined;

/** The folder with package.json, renderer/ and resources/. */
export const projectRoot = build ? path.resolve(here, build.root) : path.resolve(here, '..');

/** The worker threads, each its own entry point of the build (scripts/build.mjs names the same). */
export type ThreadName = 'pdf-thread' | 'ride-thread' | 'sri-answer-thread';

/**
 * The file a worker thread starts from: its bundle next to this code when built, else the
 * `sourceEntry` given by its caller (an `entry.mjs` that registers tsx, then loads the TypeScript).
 */
export function threadEntry(name: ThreadName, sourceEntry: URL): URL {
  return build ? new URL(`./${name}.mjs`, import.meta.url) : sourceEntry;
}
