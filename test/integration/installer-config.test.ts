/**
 * The installers' configuration (electron-builder.yml, scripts/dist.mjs; issue 17 point 4), checked
 * as far as a machine without internet can:
 *
 * - the file against electron-builder's own JSON schema (app-builder-lib's scheme.json);
 * - `npm run dist`'s settings (update feed, .deb metadata, the Node it needs);
 * - the packaged app itself: electron-builder's `--dir` target packs a copy of the project (its
 *   node_modules hard-linked) exactly as the installers would, except that Electron's binary is a
 *   stand-in (`electronDist`) and the native modules are not rebuilt for Electron (both need
 *   downloads). The archive must hold the build, renderer/, resources/ and package.json, and no
 *   sources, tests or docs; the update feed given to `npm run dist` is in it (without one,
 *   `publish: null` leaves app-update.yml out and main/updates.ts checks nothing: one packing
 *   is enough, each takes 10 to 40 s); and the packed core runs: `dist/cli.mjs serve` from the
 *   unpacked archive answers.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distPlan, NATIVE_MODULES } from '../../scripts/dist.mjs';
import { tempDir } from '../helpers/agent.js';
import { repoRoot } from '../helpers/cli.js';

/** electron-builder's own dependencies, resolved as it resolves them. */
const builderRequire = createRequire(createRequire(path.join(repoRoot, 'package.json')).resolve('app-builder-lib/package.json'));
const yaml = builderRequire('js-yaml') as { load(text: string): unknown };
const asar = builderRequire('@electron/asar') as { listPackage(archive: string, options?: object): string[]; extractAll(archive: string, dest: string): void };
const schemePath = path.join(path.dirname(builderRequire.resolve('app-builder-lib/package.json')), 'scheme.json');

interface BuilderConfig {
  files: string[];
  npmRebuild: boolean;
  buildDependenciesFromSource: boolean;
  asarUnpack: string[];
  win: { target: string };
  mac: { target: string };
  linux: { target: string[] };
  publish: unknown;
  directories: { output: string };
}

const config = yaml.load(fs.readFileSync(path.join(repoRoot, 'electron-builder.yml'), 'utf8')) as BuilderConfig;

describe('electron-builder.yml', () => {
  it("is valid against electron-builder's own schema, which does catch a misspelt option", () => {
    const scheme = JSON.parse(fs.readFileSync(schemePath, 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(scheme);
    expect(validate(config), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(validate({ ...config, filez: ['x'] })).toBe(false);
    expect(validate({ ...config, linux: { ...config.linux, targett: 'deb' } })).toBe(false);
  });

  it('names the installers of CONTRACT §14, rebuilds the native modules for Electron and has no update address', () => {
    expect(config.win.target).toBe('nsis');
    expect(config.mac.target).toBe('dmg');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.npmRebuild).toBe(true);
    expect(config.buildDependenciesFromSource).toBe(true);
    expect(config.asarUnpack).toEqual(NATIVE_MODULES.map((m) => `node_modules/${m}/**`));
    expect(config.publish).toBeNull();
  });
});

describe('npm run dist (scripts/dist.mjs)', () => {
  const node22 = '22.12.0';

  it('needs Node 22.12 (what @electron/rebuild needs), in one line', () => {
    expect(distPlan({ nodeVersion: '20.20.2', env: {} })).toEqual({
      error: 'npm run dist necesita Node.js 22.12.0 o más nuevo (lo pide @electron/rebuild, que compila los módulos nativos para Electron); este es 20.20.2.',
    });
  });

  it('writes the update feed into the installers only when SELLO_UPDATE_FEED_URL is given', () => {
    const without = distPlan({ nodeVersion: node22, env: {}, platform: 'win32' });
    expect(without.args).toEqual(['--publish', 'never']);
    expect(without.notes).toEqual(['Actualizaciones: sin SELLO_UPDATE_FEED_URL, los instaladores no buscarán actualizaciones.']);
    const withFeed = distPlan({ nodeVersion: node22, env: { SELLO_UPDATE_FEED_URL: 'https://descargas.example/sello' }, platform: 'darwin' });
    expect(withFeed.args).toEqual(['--publish', 'never', '-c.publish.provider=generic', '-c.publish.url=https://descargas.example/sello']);
    expect(distPlan({ nodeVersion: node22, env: { SELLO_UPDATE_FEED_URL: 'descargas' } }).error).toBe('SELLO_UPDATE_FEED_URL debe ser una URL http(s) absoluta; se recibió "descargas".');
  });

  it('makes the .deb on Linux only with a maintainer and a homepage, else the AppImage alone, saying so', () => {
    const bare = distPlan({ nodeVersion: node22, env: {}, platform: 'linux' });
    expect(bare.args).toEqual(['--publish', 'never', '--linux', 'AppImage']);
    expect(bare.notes?.[1]).toMatch(/^Linux: sin SELLO_DIST_MAINTAINER/);
    const full = distPlan({ nodeVersion: node22, env: { SELLO_DIST_MAINTAINER: 'Oficina <it@oficina.example>', SELLO_DIST_HOMEPAGE: 'https://oficina.example' }, platform: 'linux' });
    expect(full.args).toEqual(['--publish', 'never', '-c.linux.maintainer=Oficina <it@oficina.example>', '-c.extraMetadata.homepage=https://oficina.example']);
    // Another platform's installers, or targets named by the user, are left as asked.
    expect(distPlan({ nodeVersion: node22, env: {}, platform: 'linux', argv: ['--win'] }).args).toEqual(['--publish', 'never', '--win']);
    expect(distPlan({ nodeVersion: node22, env: {}, platform: 'linux', argv: ['--linux', 'deb'] }).args).toEqual(['--publish', 'never', '--linux', 'deb']);
  });
});

/** A copy of the project to pack: its files, and its node_modules hard-linked (same file system). */
function copyProject(dest: string): void {
  const skip = new Set(['node_modules', 'dist', '.git', 'coverage', '.sello-data', 'tmp']);
  for (const name of fs.readdirSync(repoRoot)) {
    if (!skip.has(name)) fs.cpSync(path.join(repoRoot, name), path.join(dest, name), { recursive: true });
  }
  const link = (from: string, to: string): void => {
    fs.mkdirSync(to, { recursive: true });
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      if (e.name === '.cache') continue;
      const src = path.join(from, e.name);
      const dst = path.join(to, e.name);
      if (e.isDirectory()) link(src, dst);
      else if (e.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(src), dst);
      else {
        try {
          fs.linkSync(src, dst);
        } catch {
          fs.copyFileSync(src, dst);
        }
      }
    }
  };
  link(path.join(repoRoot, 'node_modules'), path.join(dest, 'node_modules'));
}

describe('the packaged app (electron-builder --dir)', () => {
  let project: string;
  let fakeElectron: string;
  /** What a packing leaves behind (some 80 MB each): removed at the end. */
  const leftovers: string[] = [];
  const feed = 'https://descargas.example/sello';

  /** Packs the copy with `npm run dist`'s arguments for `env`; returns the resources folder. */
  function pack(feedEnv: NodeJS.ProcessEnv, out: string): string {
    // With the .deb's metadata, so that no target is named and `--dir` alone decides.
    const env = { ...feedEnv, SELLO_DIST_MAINTAINER: 'Oficina <it@oficina.example>', SELLO_DIST_HOMEPAGE: 'https://oficina.example' };
    const plan = distPlan({ nodeVersion: '22.12.0', env, platform: 'linux' });
    const args = [...plan.args!, '--dir', `-c.electronDist=${fakeElectron}`, '-c.npmRebuild=false', `-c.directories.output=${out}`];
    const res = spawnSync(process.execPath, [path.join(project, 'node_modules/electron-builder/cli.js'), ...args], {
      cwd: project,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(res.status, `${res.stdout}\n${res.stderr}`).toBe(0);
    return path.join(out, 'linux-unpacked', 'resources');
  }

  beforeAll(() => {
    fs.mkdirSync(path.join(repoRoot, 'node_modules/.cache'), { recursive: true });
    project = fs.mkdtempSync(path.join(repoRoot, 'node_modules/.cache/sello-pack-'));
    copyProject(project);
    const built = spawnSync(process.execPath, [path.join(project, 'scripts/build.mjs'), '--quiet'], { cwd: project, encoding: 'utf8', timeout: 180_000 });
    expect(built.status, built.stderr).toBe(0);
    fakeElectron = tempDir('sello-fake-electron-dist-');
    fs.writeFileSync(path.join(fakeElectron, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
  }, 240_000);

  afterAll(() => {
    for (const dir of [project, ...leftovers]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the build, renderer/, resources/ and package.json, no sources, tests or docs, and the core runs from it', { timeout: 300_000 }, async () => {
    const out = tempDir('sello-pack-out-');
    leftovers.push(out);
    const resources = pack({ SELLO_UPDATE_FEED_URL: feed }, out);
    const archive = path.join(resources, 'app.asar');
    const files = asar.listPackage(archive).map((f) => f.replace(/\\/g, '/').replace(/^\//, ''));
    const own = files.filter((f) => !f.startsWith('node_modules/'));

    const bundles = fs.readdirSync(path.join(project, 'dist')).filter((f) => f.endsWith('.mjs'));
    expect(bundles).toEqual(expect.arrayContaining(['cli.mjs', 'main.mjs', 'pdf-thread.mjs', 'ride-thread.mjs', 'sri-answer-thread.mjs']));
    for (const f of bundles) expect(own).toContain(`dist/${f}`);
    for (const f of fs.readdirSync(path.join(project, 'renderer')).filter((n) => n !== 'README.md')) expect(own).toContain(`renderer/${f}`);
    for (const f of fs.readdirSync(path.join(project, 'resources'))) expect(own).toContain(`resources/${f}`);
    expect(own).toEqual(expect.arrayContaining(['package.json', 'dist/build-stamp.json', 'main/index.cjs', 'bin/build-state.mjs']));

    const outOfPlace = own.filter((f) => /^(core|native|test|docs|scripts|\.ci)(\/|$)/.test(f) || /\.(ts|mts|map|md|yml)$/.test(f) || f.startsWith('dist/installers'));
    expect(outOfPlace).toEqual([]);
    expect(own.filter((f) => f.startsWith('main/'))).toEqual(['main/index.cjs']);

    const modules = new Set(files.filter((f) => f.startsWith('node_modules/')).map((f) => f.split('/').slice(1, f.split('/')[1]!.startsWith('@') ? 3 : 2).join('/')));
    for (const m of [...NATIVE_MODULES, 'electron-updater']) expect(modules).toContain(m);
    for (const m of ['electron', 'electron-builder', 'vitest', 'typescript', 'tsx', 'esbuild', '@esbuild/linux-x64']) expect(modules).not.toContain(m);
    for (const m of NATIVE_MODULES) {
      const unpacked = path.join(resources, 'app.asar.unpacked', 'node_modules', m);
      expect(fs.readdirSync(unpacked, { recursive: true }).some((f) => String(f).endsWith('.node')), m).toBe(true);
    }

    expect(fs.readFileSync(path.join(resources, 'app-update.yml'), 'utf8')).toMatch(new RegExp(`^provider: generic\\nurl: ${feed}\\n`));

    // The packed core runs with plain Node: everything `sello serve` reads is in the archive.
    const app = tempDir('sello-packed-app-');
    leftovers.push(app);
    asar.extractAll(archive, app);
    const child = spawn(process.execPath, [path.join(app, 'dist/cli.mjs'), 'serve', '--port', '0', '--json', '--data-dir', tempDir('sello-packed-data-')], {
      env: { ...process.env, SELLO_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const first = await Promise.race([
        new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
        exited.then((code) => {
          throw new Error(`packed sello serve exited ${code}: ${stderr}`);
        }),
      ]);
      const { base_url } = JSON.parse(first) as { base_url: string };
      const ui = await fetch(`${base_url}/ui/`);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('<html');
      expect((await fetch(`${base_url}/api/v1/webhook-endpoints`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
