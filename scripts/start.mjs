#!/usr/bin/env node
// `npm start` (CONTRACT §1): the tray app where Electron can start; otherwise one
// line saying why, and the same core headless (`sello serve`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function electronBinary() {
  try {
    // The `electron` package exports the path of its binary, and throws when the
    // binary was never downloaded (as on machines without internet access).
    return { path: require('electron') };
  } catch (err) {
    return { reason: err instanceof Error ? err.message.split('\n')[0] : String(err) };
  }
}

function canShowWindows() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

let why;
let trayEntry;
try {
  trayEntry = require.resolve(path.join(root, 'main', 'index.cjs'));
} catch {
  why = 'la aplicación de bandeja aún no forma parte de esta versión';
}
const electron = trayEntry ? electronBinary() : {};
if (!why && !electron.path) why = `Electron no está disponible (${electron.reason})`;
if (!why && !canShowWindows()) why = 'no hay pantalla (DISPLAY/WAYLAND_DISPLAY vacío)';

const child = why
  ? (process.stdout.write(`Sello se ejecuta sin ventana: ${why}.\n`),
    spawn(process.execPath, [path.join(root, 'bin', 'sello.mjs'), 'serve', ...process.argv.slice(2)], { stdio: 'inherit' }))
  : spawn(electron.path, [trayEntry, ...process.argv.slice(2)], { stdio: 'inherit' });

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
