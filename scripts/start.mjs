#!/usr/bin/env node
// `npm start` (CONTRACT §1): the tray app where Electron can start; otherwise one line saying why,
// and the same core headless (`sello serve`). Either runs the build (dist/): built first when
// missing or older than the sources (bin/build-state.mjs). Where a display is there but Electron's
// binary is not, Electron's own installer downloads it first (scripts/launch.mjs). A second
// `npm start` while the tray runs starts Electron again, whose single-instance lock
// (main/tray-app.ts) hands over to the first one: it shows its window and the second quits.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtEntry } from '../bin/build-state.mjs';
import { nodeSupport } from '../bin/node-support.mjs';
import { chooseLaunch, electronPackageDir, progressReporter } from './launch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => process.stderr.write(`${line}\n`);

const support = nodeSupport();
if (support.fatal) {
  say(support.fatal);
  process.exit(1);
}
if (support.warning) say(support.warning);

if (process.env.SELLO_FROM_SOURCE !== '1' && !(builtEntry('cli') && builtEntry('main'))) {
  try {
    const { build } = await import('./build.mjs');
    await build();
  } catch (err) {
    // bin/sello.mjs and main/index.cjs fall back to the sources (tsx) by themselves.
    process.stderr.write(`No se pudo compilar Sello (${err?.message ?? err}); se ejecuta desde las fuentes.\n`);
  }
}

const progress = progressReporter(process.stderr);
const launch = await chooseLaunch({
  electronDir: electronPackageDir(),
  log: say,
  echo: (text) => {
    progress.end();
    process.stderr.write(text);
  },
  onProgress: (bytes) => progress.update(bytes),
});
progress.end();

const args = process.argv.slice(2);
let child;
if (launch.mode === 'headless') {
  say(`Sello se ejecuta sin ventana: ${launch.reason}.`);
  // bin/sello.mjs need not repeat the warning about this Node.
  child = spawn(process.execPath, [path.join(root, 'bin', 'sello.mjs'), 'serve', ...args], { stdio: 'inherit', env: { ...process.env, SELLO_NODE_WARNED: '1' } });
} else {
  // The project folder, not main/index.cjs: Electron then reads package.json (name "sello"), so the
  // user-data folder, and with it the single-instance lock, is Sello's own.
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  child = spawn(launch.binary, [root, ...args], { stdio: 'inherit', env });
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
