// How `npm start` (scripts/start.mjs) chooses between the tray app and the headless core, and how
// it obtains Electron's binary the way the `electron` package intends (CONTRACT §1, issue 17).
//
// Electron 45's npm package carries no binary and has no install script: its binary is downloaded
// by the package's own installer, `node_modules/electron/install.js` (@electron/get: it honours
// ELECTRON_MIRROR, the proxy variables and its cache in ~/.cache/electron), on the first
// `require('electron')`. Here `npm start` runs that installer itself when a display is there and
// the binary is not, shows how far the download got, and gives it a time limit; only when there is
// no display, or the installer truly fails, does Sello run headless, saying which in one line.
//
// The decisions are plain functions (hasDisplay, installedElectron, downloadFailure); the one
// side effect, running the installer, takes its node, script and spawn as parameters, so that
// test/unit/start/launch.test.ts runs it with fake installers.
import { spawn as nodeSpawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { RECOMMENDED_NODE, versionBelow } from '../bin/node-support.mjs';

/** How long the download may take before `npm start` gives up on it; `SELLO_ELECTRON_DOWNLOAD_TIMEOUT` (seconds) changes it. */
export const DEFAULT_DOWNLOAD_TIMEOUT_S = 15 * 60;
/** How much of the installer's output is kept to read the reason of a failure. */
const OUTPUT_TAIL = 16 * 1024;

/** Windows and macOS always have one; Linux has one when DISPLAY (X11) or WAYLAND_DISPLAY is set. */
export function hasDisplay(platform = process.platform, env = process.env) {
  if (platform !== 'linux' && platform !== 'freebsd' && platform !== 'openbsd') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** The folder of the installed `electron` package, or undefined when it is not installed. */
export function electronPackageDir(from = import.meta.url) {
  try {
    return path.dirname(createRequire(from).resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

/** What Electron's install.js writes into `path.txt` for a platform. */
export function platformExecutable(platform) {
  if (platform === 'darwin' || platform === 'mas') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/**
 * Electron's binary in its package folder, checked as its install.js checks before downloading:
 * `path.txt` names the executable, `dist/version` is the package's version, the executable exists.
 * ELECTRON_OVERRIDE_DIST_PATH (a binary kept elsewhere) is honoured as the package's index.js does.
 * Returns `{ binary, version }` or `{ missing, version }` (why it is not there, in Spanish).
 */
export function installedElectron(electronDir, { platform = process.platform, env = process.env, fsApi = fs } = {}) {
  const read = (file) => {
    try {
      return fsApi.readFileSync(path.join(electronDir, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  let version;
  try {
    version = JSON.parse(read('package.json') ?? '{}').version;
  } catch {
    version = undefined;
  }
  const pathTxt = read('path.txt');
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const binary = path.join(env.ELECTRON_OVERRIDE_DIST_PATH, pathTxt || platformExecutable(platform));
    return fsApi.existsSync(binary) ? { binary, version } : { missing: `falta ${binary} (ELECTRON_OVERRIDE_DIST_PATH)`, version };
  }
  if (pathTxt === undefined) return { missing: 'su binario no se ha descargado', version };
  const distVersion = read(path.join('dist', 'version'))?.trim().replace(/^v/, '');
  if (version && distVersion !== version) return { missing: `el binario descargado es de otra versión (${distVersion ?? 'desconocida'})`, version };
  const binary = path.join(electronDir, 'dist', pathTxt.trim());
  return fsApi.existsSync(binary) ? { binary, version } : { missing: `falta ${binary}`, version };
}

const NETWORK_CODES = ['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'CERT_HAS_EXPIRED', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN'];

/**
 * Why the installer failed, from what it printed and how it ended: `{ kind, reason }`, the reason
 * one Spanish phrase. `outcome`: `{ output, code, signal, timedOut, timeoutS, spawnError }`.
 */
export function downloadFailure(outcome, nodeVersion = process.versions.node) {
  const output = outcome.output ?? '';
  if (outcome.spawnError) return { kind: 'installer_failed', reason: `no se pudo ejecutar su instalador (${outcome.spawnError})` };
  if (outcome.timedOut) return { kind: 'timeout', reason: `la descarga no terminó en ${outcome.timeoutS} s (SELLO_ELECTRON_DOWNLOAD_TIMEOUT da más tiempo)` };
  if (/ENOSPC|no space left on device/i.test(output)) return { kind: 'disk_full', reason: 'el disco está lleno (ENOSPC)' };
  if (/ERR_REQUIRE_ESM|ERR_REQUIRE_ASYNC_MODULE|ERR_UNKNOWN_BUILTIN_MODULE|SyntaxError/.test(output) && versionBelow(nodeVersion, RECOMMENDED_NODE)) {
    return { kind: 'node_too_old', reason: `Node.js ${String(nodeVersion).replace(/^v/, '')} es demasiado antiguo para el instalador de Electron (pide ${RECOMMENDED_NODE} o más nuevo)` };
  }
  const code = NETWORK_CODES.find((c) => output.includes(c));
  if (code || /fetch failed|socket hang up|getaddrinfo|network/i.test(output)) {
    return { kind: 'network', reason: `no hay conexión con el servidor de descargas${code ? ` (${code})` : ''}; revise internet, el proxy (ELECTRON_GET_USE_PROXY) o ELECTRON_MIRROR` };
  }
  const http = /Response code (\d{3})|HTTPError[^\n]*?(\d{3})/.exec(output);
  if (http) return { kind: 'http', reason: `el servidor de descargas respondió ${http[1] ?? http[2]}` };
  if (/checksum|sha256/i.test(output)) return { kind: 'checksum', reason: 'el archivo descargado no coincide con su suma de verificación' };
  if (/EACCES|EPERM|permission denied/i.test(output)) return { kind: 'permission', reason: 'no hay permiso para escribir en node_modules/electron o en la caché (EACCES)' };
  const last = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '))
    .at(-1);
  const how = outcome.signal ? `la señal ${outcome.signal}` : `el código ${outcome.code}`;
  return { kind: 'installer_failed', reason: `su instalador terminó con ${how}${last ? `: ${last.slice(0, 160)}` : ''}` };
}

/** The size in bytes of every file under `dir` (the download grows in the installer's temporary folder). */
export function folderBytes(dir, fsApi = fs) {
  let total = 0;
  let entries;
  try {
    entries = fsApi.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += folderBytes(p, fsApi);
    else total += fsApi.statSync(p, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/**
 * Runs an installer script (`node_modules/electron/install.js`) under `nodePath`, with a
 * temporary folder of its own (TMPDIR, TMP, TEMP) so that `onProgress(bytes)` can follow the
 * download as it grows there. Its output goes on to `echo` and its last 16 KiB are returned to
 * read a failure. Killed after `timeoutMs`.
 */
export function runInstaller({ nodePath = process.execPath, script, cwd, env = process.env, timeoutMs, onProgress, echo, spawnFn = nodeSpawn, progressEveryMs = 1_000 }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-electron-download-'));
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    let settled = false;
    const keep = (chunk) => {
      const text = chunk.toString();
      echo?.(text);
      output = (output + text).slice(-OUTPUT_TAIL);
    };
    let child;
    try {
      child = spawnFn(nodePath, [script], {
        cwd,
        env: { ...env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      resolve({ code: null, signal: null, output, timedOut, spawnError: err?.message ?? String(err) });
      return;
    }
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let lastBytes = 0;
    const progress = setInterval(() => {
      const bytes = folderBytes(tmp);
      if (bytes !== lastBytes) {
        lastBytes = bytes;
        onProgress?.(bytes);
      }
    }, progressEveryMs);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, timeoutMs);
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearInterval(progress);
      clearTimeout(timer);
      fs.rmSync(tmp, { recursive: true, force: true });
      resolve({ output, timedOut, ...result });
    };
    child.on('error', (err) => finish({ code: null, signal: null, spawnError: err.message }));
    child.on('close', (code, signal) => finish({ code, signal }));
  });
}

/** A download progress line: rewritten in place on a terminal, else one line every `everyMs`. */
export function progressReporter(stream, { everyMs = 10_000, now = Date.now } = {}) {
  let lastLine = -Infinity;
  let onTerminal = false;
  return {
    update(bytes) {
      const text = `Descargando Electron: ${(bytes / 1_048_576).toFixed(1)} MB`;
      if (stream.isTTY) {
        stream.write(`\r${text}`);
        onTerminal = true;
      } else if (now() - lastLine >= everyMs) {
        lastLine = now();
        stream.write(`${text}\n`);
      }
    },
    end() {
      if (onTerminal) stream.write('\n');
      onTerminal = false;
    },
  };
}

/** `SELLO_ELECTRON_DOWNLOAD_TIMEOUT` in seconds, or the default. */
export function downloadTimeoutS(env = process.env) {
  const raw = Number(env.SELLO_ELECTRON_DOWNLOAD_TIMEOUT);
  return Number.isFinite(raw) && raw > 0 ? raw : DEFAULT_DOWNLOAD_TIMEOUT_S;
}

/**
 * What `npm start` runs: `{ mode: 'electron', binary }`, or `{ mode: 'headless', kind, reason }`
 * with the reason in one Spanish phrase. On a machine with a display whose Electron binary is
 * missing, runs the package's own installer first (stage lines through `log`, the download's
 * size through `onProgress`, its output through `echo`).
 */
export async function chooseLaunch({
  platform = process.platform,
  env = process.env,
  nodeVersion = process.versions.node,
  nodePath = process.execPath,
  electronDir,
  timeoutS = downloadTimeoutS(env),
  log = () => undefined,
  echo,
  onProgress,
  spawnFn,
  fsApi = fs,
}) {
  if (!hasDisplay(platform, env)) return { mode: 'headless', kind: 'no_display', reason: 'no hay pantalla (DISPLAY y WAYLAND_DISPLAY están vacíos)' };
  if (!electronDir) return { mode: 'headless', kind: 'no_package', reason: 'el paquete electron no está instalado (npm install lo instala)' };
  const found = installedElectron(electronDir, { platform, env, fsApi });
  if (found.binary) return { mode: 'electron', binary: found.binary };

  const script = path.join(electronDir, 'install.js');
  const name = `Electron${found.version ? ` ${found.version}` : ''}`;
  log(`${name}: ${found.missing}; se descarga ahora con su instalador (node_modules/electron/install.js), una sola vez, con un límite de ${Math.round(timeoutS / 60)} min.`);
  const started = Date.now();
  const outcome = await runInstaller({ nodePath, script, cwd: electronDir, env, timeoutMs: timeoutS * 1000, onProgress, echo, spawnFn });
  if (outcome.code === 0 && !outcome.timedOut && !outcome.spawnError) {
    const again = installedElectron(electronDir, { platform, env, fsApi });
    if (again.binary) {
      log(`${name} descargado en ${Math.round((Date.now() - started) / 1000)} s.`);
      return { mode: 'electron', binary: again.binary };
    }
    return { mode: 'headless', kind: 'installer_failed', reason: `no se pudo descargar Electron: su instalador terminó sin dejar el binario (${again.missing})` };
  }
  const failure = downloadFailure({ ...outcome, timeoutS }, nodeVersion);
  return { mode: 'headless', kind: failure.kind, reason: failure.kind === 'node_too_old' ? failure.reason : `no se pudo descargar Electron: ${failure.reason}` };
}
