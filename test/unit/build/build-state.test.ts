/**
 * bin/build-state.mjs: when bin/sello.mjs, scripts/start.mjs and main/index.cjs use dist/ and
 * when they fall back to the TypeScript sources.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtEntry, newestSourceMtime, STAMP } from '../../../bin/build-state.mjs';
import { tempDir } from '../../helpers/agent.js';

let project: string;
let out: string;
const T0 = Date.UTC(2025, 0, 1) / 1000;

function file(rel: string, mtimeSeconds = T0): string {
  const p = path.join(project, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, 'x');
  fs.utimesSync(p, mtimeSeconds, mtimeSeconds);
  return p;
}

/** Every folder of the fake project at T0, so only the files chosen decide. */
function settleFolders(dir = project): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) settleFolders(path.join(dir, e.name));
  fs.utimesSync(dir, T0, T0);
}

function stamp(newestSource: number, entries = ['cli', 'main']): void {
  fs.writeFileSync(path.join(out, STAMP), JSON.stringify({ newestSource, builtAt: '', entries, files: [] }));
}

beforeEach(() => {
  project = tempDir('sello-build-state-');
  out = path.join(project, 'dist');
  fs.mkdirSync(out);
  file('core/cli/main.ts');
  file('native/index.ts');
  file('main/index.ts');
  file('package-lock.json');
  fs.writeFileSync(path.join(out, 'cli.mjs'), '');
  settleFolders();
});

afterEach(() => {
  fs.rmSync(project, { recursive: true, force: true });
  delete process.env.SELLO_FROM_SOURCE;
});

describe('newestSourceMtime', () => {
  it('is the newest of the sources, their folders and the lockfiles, and ignores dist/ and the rest', () => {
    expect(newestSourceMtime(project)).toBe(T0 * 1000);
    file('renderer/app.js', T0 + 50);
    file('dist/cli.mjs', T0 + 60);
    file('test/x.test.ts', T0 + 70);
    settleFolders();
    expect(newestSourceMtime(project)).toBe(T0 * 1000);
    file('core/db/store.ts', T0 + 10);
    settleFolders();
    expect(newestSourceMtime(project)).toBe((T0 + 10) * 1000);
    file('node_modules/.package-lock.json', T0 + 20);
    expect(newestSourceMtime(project)).toBe((T0 + 20) * 1000);
  });

  it('sees a deleted source through its folder', () => {
    fs.rmSync(path.join(project, 'core/cli/main.ts'));
    fs.utimesSync(path.join(project, 'core/cli'), T0 + 5, T0 + 5);
    expect(newestSourceMtime(project)).toBe((T0 + 5) * 1000);
  });

  it('is 0 where there are no sources (an installed app)', () => {
    expect(newestSourceMtime(path.join(project, 'dist'))).toBe(0);
  });
});

describe('builtEntry', () => {
  const entry = (name = 'cli', options: { checkSources?: boolean } = {}) => builtEntry(name, { outDir: out, sourceRoot: project, ...options });

  it('is the bundle when the stamp is as new as the sources', () => {
    stamp(T0 * 1000);
    expect(entry()).toBe(path.join(out, 'cli.mjs'));
  });

  it('is undefined once a source is newer than the build, unless the sources are not to be checked', () => {
    stamp(T0 * 1000);
    file('core/config.ts', T0 + 1);
    expect(entry()).toBeUndefined();
    expect(entry('cli', { checkSources: false })).toBe(path.join(out, 'cli.mjs'));
  });

  it('is undefined without a stamp (never built, or a build that stopped half-way), for an entry the build did not make, or without its file', () => {
    expect(entry()).toBeUndefined();
    stamp(T0 * 1000, ['main']);
    expect(entry()).toBeUndefined();
    stamp(T0 * 1000);
    expect(entry('main')).toBeUndefined(); // no main.mjs
    fs.writeFileSync(path.join(out, STAMP), '{');
    expect(entry()).toBeUndefined();
  });

  it('is undefined with SELLO_FROM_SOURCE=1', () => {
    stamp(T0 * 1000);
    process.env.SELLO_FROM_SOURCE = '1';
    expect(entry()).toBeUndefined();
  });
});
