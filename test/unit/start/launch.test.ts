/**
 * scripts/launch.mjs: how `npm start` chooses between the tray and the headless core, and how it
 * runs Electron's own installer when the binary is missing (issue 17, point 1). The installers
 * here are real scripts run by a real `node`, standing in for node_modules/electron/install.js:
 * one that downloads (writes the binary, path.txt and dist/version as the real one does), ones
 * that fail as the real one fails without network, with a full disk or on too old a Node, and
 * one that never ends.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeSupport, versionBelow } from '../../../bin/node-support.mjs';
import { chooseLaunch, downloadFailure, hasDisplay, installedElectron, progressReporter, runInstaller } from '../../../scripts/launch.mjs';
import { tempDir } from '../../helpers/agent.js';

const VERSION = '45.4.1';
const display = { DISPLAY: ':0' };

/** A fake `electron` package folder whose install.js is `installer` (the body of a CommonJS script). */
function fakeElectron(installer: string): string {
  const dir = tempDir('sello-fake-electron-');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'electron', version: VERSION }));
  fs.writeFileSync(path.join(dir, 'install.js'), installer);
  return dir;
}

/** What the real install.js leaves behind after a download: dist/electron, dist/version, path.txt. */
const WRITES_BINARY = `
const fs = require('node:fs'); const path = require('node:path');
fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true });
fs.writeFileSync(path.join(__dirname, 'dist', 'electron'), '#!/bin/sh\\n', { mode: 0o755 });
fs.writeFileSync(path.join(__dirname, 'dist', 'version'), 'v${VERSION}');
fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron');
`;

/** What install.js prints on a machine without network (its err.stack, then exit 1), as seen here. */
const NO_NETWORK = `
console.error('TypeError: fetch failed\\n    at node:internal/deps/undici/undici:14976:13\\n    at async FetchDownloader.download (file:///x/node_modules/@electron/get/dist/FetchDownloader.js:46:30) {\\n  [cause]: Error: getaddrinfo ENOTFOUND github.com');
process.exit(1);
`;

const DISK_FULL = `
console.error("Error: ENOSPC: no space left on device, write\\n    at async FetchDownloader.download (file:///x/FetchDownloader.js:60:13)");
process.exit(1);
`;

const NODE_TOO_OLD = `
console.error("Error [ERR_REQUIRE_ESM]: require() of ES Module /x/node_modules/@electron/get/dist/index.js from /x/node_modules/electron/install.js not supported.");
process.exit(1);
`;

describe('hasDisplay', () => {
  it('is true on Windows and macOS, and on Linux only with DISPLAY or WAYLAND_DISPLAY', () => {
    expect(hasDisplay('win32', {})).toBe(true);
    expect(hasDisplay('darwin', {})).toBe(true);
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: '' })).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
  });
});

describe('chooseLaunch', () => {
  it('runs headless without a display, saying so, and never runs the installer', async () => {
    const dir = fakeElectron(`require('node:fs').writeFileSync(require('node:path').join(__dirname, 'ran'), ''); process.exit(1);`);
    const launch = await chooseLaunch({ platform: 'linux', env: {}, electronDir: dir });
    expect(launch).toEqual({ mode: 'headless', kind: 'no_display', reason: 'no hay pantalla (DISPLAY y WAYLAND_DISPLAY están vacíos)' });
    expect(fs.existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it('runs headless when the electron package is not installed', async () => {
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: undefined });
    expect(launch).toMatchObject({ mode: 'headless', kind: 'no_package' });
  });

  it('starts Electron when its binary is there, without running the installer', async () => {
    const dir = fakeElectron(WRITES_BINARY);
    await runInstaller({ script: path.join(dir, 'install.js'), timeoutMs: 10_000 });
    fs.writeFileSync(path.join(dir, 'install.js'), `throw new Error('must not run');`);
    const lines: string[] = [];
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir, log: (l) => lines.push(l) });
    expect(launch).toEqual({ mode: 'electron', binary: path.join(dir, 'dist', 'electron') });
    expect(lines).toEqual([]);
  });

  it('downloads a missing binary with the package installer, says so, then starts Electron', async () => {
    const dir = fakeElectron(WRITES_BINARY);
    const lines: string[] = [];
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir, log: (l) => lines.push(l) });
    expect(launch).toEqual({ mode: 'electron', binary: path.join(dir, 'dist', 'electron') });
    expect(lines[0]).toMatch(/^Electron 45\.4\.1: su binario no se ha descargado; se descarga ahora con su instalador \(node_modules\/electron\/install\.js\)/);
    expect(lines[1]).toMatch(/^Electron 45\.4\.1 descargado en \d+ s\.$/);
  });

  it('runs headless with the network as the reason when the download cannot reach its server', async () => {
    const dir = fakeElectron(NO_NETWORK);
    const echoed: string[] = [];
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir, echo: (t) => echoed.push(t) });
    expect(launch).toMatchObject({ mode: 'headless', kind: 'network' });
    if (launch.mode !== 'headless') throw new Error('unreachable');
    expect(launch.reason).toMatch(/^no se pudo descargar Electron: no hay conexión con el servidor de descargas \(ENOTFOUND\)/);
    // The installer's own output reached the user as it came.
    expect(echoed.join('')).toContain('fetch failed');
    expect(fs.existsSync(path.join(dir, 'path.txt'))).toBe(false);
  });

  it('runs headless with a full disk as the reason when the download reports ENOSPC', async () => {
    const dir = fakeElectron(DISK_FULL);
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir });
    expect(launch).toEqual({ mode: 'headless', kind: 'disk_full', reason: 'no se pudo descargar Electron: el disco está lleno (ENOSPC)' });
  });

  it('names too old a Node as the reason when the installer cannot even load', async () => {
    const dir = fakeElectron(NODE_TOO_OLD);
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir, nodeVersion: '20.11.0' });
    expect(launch).toEqual({
      mode: 'headless',
      kind: 'node_too_old',
      reason: 'Node.js 20.11.0 es demasiado antiguo para el instalador de Electron (pide 22.12.0 o más nuevo)',
    });
  });

  it('gives up on a download that outlives its time limit, and kills the installer', async () => {
    const dir = fakeElectron(`require('node:fs').writeFileSync(require('node:path').join(__dirname, 'pid'), String(process.pid)); setInterval(() => {}, 1000);`);
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir, timeoutS: 1 });
    expect(launch).toMatchObject({ mode: 'headless', kind: 'timeout' });
    const pid = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('runs headless when the installer ends well but leaves no binary', async () => {
    const dir = fakeElectron(`process.exit(0);`);
    const launch = await chooseLaunch({ platform: 'linux', env: display, electronDir: dir });
    expect(launch).toMatchObject({ mode: 'headless', kind: 'installer_failed' });
  });
});

describe('runInstaller', () => {
  it('reports the download growing in its own temporary folder, and removes that folder', async () => {
    const dir = fakeElectron(`
      const fs = require('node:fs'); const path = require('node:path'); const os = require('node:os');
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'electron-download-')), 'electron.zip');
      fs.writeFileSync(path.join(__dirname, 'tmp'), os.tmpdir());
      let n = 0;
      const t = setInterval(() => { fs.appendFileSync(file, Buffer.alloc(256 * 1024)); if (++n === 6) { clearInterval(t); } }, 60);
    `);
    const seen: number[] = [];
    const outcome = await runInstaller({ script: path.join(dir, 'install.js'), timeoutMs: 10_000, onProgress: (b) => seen.push(b), progressEveryMs: 50 });
    expect(outcome).toMatchObject({ code: 0, timedOut: false });
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeGreaterThan(0);
    expect(fs.existsSync(fs.readFileSync(path.join(dir, 'tmp'), 'utf8'))).toBe(false);
  });
});

describe('installedElectron', () => {
  it('wants a download when the binary is of another version, as install.js does', async () => {
    const dir = fakeElectron(WRITES_BINARY);
    await runInstaller({ script: path.join(dir, 'install.js'), timeoutMs: 10_000 });
    fs.writeFileSync(path.join(dir, 'dist', 'version'), 'v44.0.0');
    expect(installedElectron(dir, { platform: 'linux', env: {} })).toMatchObject({ missing: 'el binario descargado es de otra versión (44.0.0)' });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH', () => {
    const dir = fakeElectron('');
    const elsewhere = tempDir('sello-electron-dist-');
    fs.writeFileSync(path.join(elsewhere, 'electron'), '');
    expect(installedElectron(dir, { platform: 'linux', env: { ELECTRON_OVERRIDE_DIST_PATH: elsewhere } })).toMatchObject({ binary: path.join(elsewhere, 'electron') });
  });
});

describe('downloadFailure', () => {
  it('reads the common failures from what the installer printed', () => {
    expect(downloadFailure({ output: 'HTTPError: Response code 404 (Not Found) for https://x', code: 1 }).kind).toBe('http');
    expect(downloadFailure({ output: 'Error: Generated checksum for "electron.zip" did not match expected checksum.', code: 1 }).kind).toBe('checksum');
    expect(downloadFailure({ output: "Error: EACCES: permission denied, open '/x/path.txt'", code: 1 }).kind).toBe('permission');
    expect(downloadFailure({ output: 'Error: ECONNRESET', code: 1 }).reason).toContain('(ECONNRESET)');
    expect(downloadFailure({ output: 'something odd\n    at x (y.js:1:1)\n', code: 3 }).reason).toBe('su instalador terminó con el código 3: something odd');
    // ERR_REQUIRE_ESM on a Node that should load it is not blamed on Node.
    expect(downloadFailure({ output: 'Error [ERR_REQUIRE_ESM]', code: 1 }, '22.12.0').kind).toBe('installer_failed');
  });
});

describe('progressReporter', () => {
  it('rewrites one line on a terminal and writes a line now and then elsewhere', () => {
    const tty = { isTTY: true, text: '', write(t: string) { this.text += t; } };
    const r = progressReporter(tty);
    r.update(1_048_576);
    r.update(2 * 1_048_576);
    r.end();
    expect(tty.text).toBe('\rDescargando Electron: 1.0 MB\rDescargando Electron: 2.0 MB\n');
    let now = 0;
    const pipe = { isTTY: false, text: '', write(t: string) { this.text += t; } };
    const p = progressReporter(pipe, { everyMs: 10_000, now: () => now });
    p.update(1_048_576);
    now = 5_000;
    p.update(2 * 1_048_576);
    now = 20_000;
    p.update(3 * 1_048_576);
    p.end();
    expect(pipe.text).toBe('Descargando Electron: 1.0 MB\nDescargando Electron: 3.0 MB\n');
  });
});

describe('nodeSupport (bin/node-support.mjs)', () => {
  it('refuses Node older than 20.19, warns on 20.19 up to 22.11, says nothing from 22.12', () => {
    expect(nodeSupport('18.20.4').fatal).toBe('Sello necesita Node.js 20.19.0 o más nuevo (se recomienda Node.js 22 LTS); este es 18.20.4.');
    expect(nodeSupport('20.18.3').fatal).toBeDefined();
    expect(nodeSupport('20.20.2')).toEqual({
      warning:
        'Aviso: Node.js 20.20.2 ya no tiene mantenimiento; Sello funciona con él sin ventana, pero Electron y sus herramientas piden Node.js 22.12.0 o más nuevo: instale Node.js 22 LTS.',
    });
    expect(nodeSupport('v22.11.0').warning).toBeDefined();
    expect(nodeSupport('22.12.0')).toEqual({});
    expect(nodeSupport('24.1.0')).toEqual({});
    expect(versionBelow('22.9.0', '22.12.0')).toBe(true);
    expect(versionBelow('22.12.0', '22.12.0')).toBe(false);
  });
});
