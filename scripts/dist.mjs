#!/usr/bin/env node
// `npm run dist [-- electron-builder options]`: the installers (CONTRACT §14; docs/tray.md,
// "Generar los instaladores"): NSIS on Windows, dmg on macOS, AppImage and deb on Linux, as
// electron-builder.yml says; each platform's on its own system. It builds dist/ first
// (scripts/build.mjs), then runs electron-builder, which needs internet: it downloads Electron,
// NSIS and the AppImage tools, and @electron/rebuild downloads Electron's headers to compile
// better-sqlite3 and pkcs11js for Electron's own Node. It also needs Node 22.12 or newer
// (@electron/rebuild's requirement). @electron/rebuild compiles the native modules in the project's
// own node_modules, so afterwards they are compiled again for this Node (`npm rebuild`), or `npm
// test` and `sello` would find modules built for Electron.
//
// Settings, from the environment (nothing in electron-builder.yml is an address of ours):
//   SELLO_UPDATE_FEED_URL  the generic feed the installers will look for updates at (installers and
//                          latest*.yml are published there); without it they never look
//   SELLO_DIST_MAINTAINER  "Nombre <correo>" of whoever distributes the .deb (its Maintainer field)
//   SELLO_DIST_HOMEPAGE    the web page of the .deb (its Homepage field)
// The .deb needs both of the last two; without them only the AppImage is made on Linux.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECOMMENDED_NODE, versionBelow } from '../bin/node-support.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The native modules electron-builder recompiles for Electron, in the project's node_modules. */
export const NATIVE_MODULES = ['better-sqlite3', 'pkcs11js'];

/** An absolute http(s) URL, or undefined. */
function httpUrl(raw) {
  if (!raw || !URL.canParse(raw)) return undefined;
  return ['http:', 'https:'].includes(new URL(raw).protocol) ? raw : undefined;
}

/**
 * What to pass to electron-builder, and the lines to say first: `{ args, notes }`, or `{ error }`
 * (one Spanish line) when the installers cannot be made on this Node or with these settings.
 * `argv`: what the user added after `npm run dist --`.
 */
export function distPlan({ argv = [], env = process.env, platform = process.platform, nodeVersion = process.versions.node } = {}) {
  if (versionBelow(nodeVersion, RECOMMENDED_NODE)) {
    return { error: `npm run dist necesita Node.js ${RECOMMENDED_NODE} o más nuevo (lo pide @electron/rebuild, que compila los módulos nativos para Electron); este es ${nodeVersion}.` };
  }
  const args = ['--publish', 'never'];
  const notes = [];
  const rawFeed = env.SELLO_UPDATE_FEED_URL;
  const feed = httpUrl(rawFeed);
  if (rawFeed && !feed) return { error: `SELLO_UPDATE_FEED_URL debe ser una URL http(s) absoluta; se recibió "${rawFeed}".` };
  if (feed) {
    args.push('-c.publish.provider=generic', `-c.publish.url=${feed}`);
    notes.push(`Actualizaciones: los instaladores las buscarán en ${feed} (publique allí los instaladores y latest*.yml).`);
  } else {
    notes.push('Actualizaciones: sin SELLO_UPDATE_FEED_URL, los instaladores no buscarán actualizaciones.');
  }
  const maintainer = env.SELLO_DIST_MAINTAINER;
  const homepage = httpUrl(env.SELLO_DIST_HOMEPAGE);
  if (maintainer) args.push(`-c.linux.maintainer=${maintainer}`);
  if (homepage) args.push(`-c.extraMetadata.homepage=${homepage}`);
  const platformFlags = ['--linux', '-l', '--win', '-w', '--windows', '--mac', '-m', '--macos'];
  const forLinux = argv.some((a) => a === '--linux' || a === '-l') || (platform === 'linux' && !argv.some((a) => platformFlags.includes(a)));
  const namesTargets = argv.some((a) => !a.startsWith('-') && !a.includes('='));
  if (forLinux && !namesTargets && !(maintainer && homepage)) {
    if (!argv.some((a) => platformFlags.includes(a))) args.push('--linux');
    args.push('AppImage');
    notes.push('Linux: sin SELLO_DIST_MAINTAINER ("Nombre <correo>") y SELLO_DIST_HOMEPAGE no se hace el .deb (los pide su formato); solo el AppImage.');
  }
  return { args: [...args, ...argv], notes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const plan = distPlan({ argv: process.argv.slice(2) });
  if (plan.error) {
    process.stderr.write(`${plan.error}\n`);
    process.exit(1);
  }
  for (const note of plan.notes) process.stderr.write(`${note}\n`);
  const { build } = await import('./build.mjs');
  await build();
  const cli = createRequire(import.meta.url).resolve('electron-builder/cli.js');
  const run = (command, args, options = {}) =>
    new Promise((resolve) => spawn(command, args, { cwd: root, stdio: 'inherit', ...options }).on('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1))));
  const code = await run(process.execPath, [cli, ...plan.args]);
  process.stderr.write(`Se recompilan ${NATIVE_MODULES.join(' y ')} para este Node (electron-builder los dejó compilados para Electron)…\n`);
  const rebuilt = await run('npm', ['rebuild', ...NATIVE_MODULES], { shell: process.platform === 'win32' });
  if (rebuilt !== 0) process.stderr.write(`No se pudieron recompilar; ejecute: npm rebuild ${NATIVE_MODULES.join(' ')}\n`);
  process.exit(code);
}
