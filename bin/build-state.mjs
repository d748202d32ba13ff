// Is there a build (dist/, `npm run build`) of the sources as they are now? bin/sello.mjs,
// scripts/start.mjs and main/index.cjs ask before choosing between the bundles and the
// TypeScript sources (compiled by tsx at every start); scripts/build.mjs writes the stamp
// this reads.
//
// The check is the newest modification time of what the bundles are made of (the files and
// folders of core/, native/, main/, the lockfiles that decide the bundled dependencies, the
// build script), compared with the one the build recorded when it started: an edit, a new or
// deleted file, a `git checkout` or an `npm install` makes the build stale, and the sources are
// used until it is rebuilt. About 300 stats, a few milliseconds.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const defaultOutDir = path.join(root, 'dist');
export const STAMP = 'build-stamp.json';

const SOURCE_DIRS = ['core', 'native', 'main'];
const SOURCE_FILES = ['package-lock.json', 'node_modules/.package-lock.json', 'scripts/build.mjs', 'bin/build-state.mjs', 'tsconfig.json'];

function mtimeOf(file) {
  return fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** The newest mtime among the build's inputs (0 where none is found, as in an installed app without sources). */
export function newestSourceMtime(dir = root) {
  let newest = 0;
  const walk = (folder) => {
    let entries;
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    newest = Math.max(newest, mtimeOf(folder));
    for (const e of entries) {
      const p = path.join(folder, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, mtimeOf(p));
    }
  };
  for (const d of SOURCE_DIRS) walk(path.join(dir, d));
  for (const f of SOURCE_FILES) newest = Math.max(newest, mtimeOf(path.join(dir, f)));
  return newest;
}

/** The build's stamp in `outDir`, or undefined when there is none (never built, or a build that did not finish). */
export function readStamp(outDir = defaultOutDir) {
  try {
    const stamp = JSON.parse(fs.readFileSync(path.join(outDir, STAMP), 'utf8'));
    return typeof stamp?.newestSource === 'number' && Array.isArray(stamp.entries) ? stamp : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `dist/NAME.mjs` (`cli`, `main`) when dist/ holds a build of the current sources; undefined
 * when there is none, it is stale, or SELLO_FROM_SOURCE=1 asks for the sources.
 * `checkSources: false` trusts any finished build (an installed app, whose files' times say nothing).
 */
export function builtEntry(name, { outDir = defaultOutDir, checkSources = true, sourceRoot = root } = {}) {
  if (process.env.SELLO_FROM_SOURCE === '1') return undefined;
  const stamp = readStamp(outDir);
  if (!stamp || !stamp.entries.includes(name)) return undefined;
  if (checkSources && newestSourceMtime(sourceRoot) > stamp.newestSource) return undefined;
  const file = path.join(outDir, `${name}.mjs`);
  return fs.existsSync(file) ? file : undefined;
}
