#!/usr/bin/env node
// `npm start` (CONTRACT §1): the tray app where Electron can start; otherwise one
// line saying why, and the same core headless (`sello serve`). Either runs the build (dist/):
// built first when missing or older than the sources (bin/build-state.mjs).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtEntry } from '../bin/build-state.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/**
 * The Electron binary, found the way the `electron` package itself finds it (its
 * `path.txt`), without requiring the package: that would try to download a missing binary.
 */
function electronBinary() {
  let dir;
  try {
    dir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { reason: 'el paquete electron no está instalado' };
  }
  const pathTxt = path.join(dir, 'path.txt');
  if (!fs.existsSync(pathTxt)) return { reason: 'su binario no se descargó (instalación sin internet)' };
  const binary = path.join(dir, 'dist', fs.readFileSync(pathTxt, 'utf8').trim());
  return fs.existsSync(binary) ? { path: binary } : { reason: `falta ${binary}` };
}

function canShowWindows() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

if (process.env.SELLO_FROM_SOURCE !== '1' && !(builtEntry('cli') && builtEntry('main'))) {
  try {
    const { build } = await import('./build.mjs');
    await build();
  } catch (err) {
    // bin/sello.mjs and main/index.cjs fall back to the sources (tsx) by themselves.
    process.stderr.write(`No se pudo compilar Sello (${err?.message ?? err}); se ejecuta desde las fuentes.\n`);
  }
}

let why;
const trayEntry = path.join(root, 'main', 'index.cjs');
const electron = electronBinary();
if (!electron.path) why = `Electron no está disponible: ${electron.reason}`;
if (!why && !canShowWindows()) why = 'no hay pantalla (DISPLAY/WAYLAND_DISPLAY vacío)';

const child = why
  ? (process.stdout.write(`Sello se ejecuta sin ventana: ${why}.\n`),
    spawn(process.execPath, [path.join(root, 'bin', 'sello.mjs'), 'serve', ...process.argv.slice(2)], { stdio: 'inherit' }))
  : spawn(electron.path, [trayEntry, ...process.argv.slice(2)], { stdio: 'inherit' });

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
