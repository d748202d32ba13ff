#!/usr/bin/env node
// Before `npm test`: the system tools the tests drive for real (a PKCS#11 token,
// poppler, qpdf, a QR reader, Chromium, openssl, xmllint and xmlsec1 for the tax XML, iproute2 and
// curl for a second computer on a LAN). Before `npm run bench`
// (`system-tools.mjs bench`): those and wrk, the HTTP load generator. Installs them
// with apt-get when running as root on Debian; otherwise stops with the exact
// command to run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** command → Debian package that provides it */
const tools = [
  ['softhsm2-util', 'softhsm2'],
  ['pkcs11-tool', 'opensc'],
  ['pdfsig', 'poppler-utils'],
  ['pdftoppm', 'poppler-utils'],
  ['pdftotext', 'poppler-utils'],
  ['qpdf', 'qpdf'],
  ['zbarimg', 'zbar-tools'],
  ['chromium', 'chromium'],
  ['openssl', 'openssl'],
  ['certutil', 'libnss3-tools'],
  ['xmllint', 'libxml2-utils'],
  ['xmlsec1', 'xmlsec1'],
  // The LAN tests: a network namespace joined by a veth pair, and a client on the other side.
  ['ip', 'iproute2'],
  ['curl', 'curl'],
];
const forBench = process.argv.includes('bench');
if (forBench) tools.push(['wrk', 'wrk']);
const users = forBench ? 'los benchmarks' : 'las pruebas';

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const missing = () => [...new Set(tools.filter(([command]) => !has(command)).map(([, pkg]) => pkg))];

let packages = missing();
if (packages.length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = fs.existsSync('/etc/debian_version');
const command = `apt-get install -y ${packages.join(' ')}`;

if (!isRoot || !isDebian) {
  process.stderr.write(
    `Faltan herramientas del sistema que usan ${users}: ${packages.join(', ')}.\n` +
      (isDebian ? `Instálelas con:\n  sudo apt-get update && sudo ${command}\n` : `Instale los paquetes equivalentes a: ${packages.join(' ')}\n`),
  );
  process.exit(1);
}

process.stdout.write(`Instalando herramientas del sistema para ${users}: ${packages.join(', ')}\n`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const run = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env }).status === 0;
if (!run(['update', '-qq']) || !run(['install', '-y', '-qq', '--no-install-recommends', ...packages])) {
  process.stderr.write(`No se pudieron instalar. Ejecute a mano: apt-get update && ${command}\n`);
  process.exit(1);
}
packages = missing();
if (packages.length > 0) {
  process.stderr.write(`Siguen faltando: ${packages.join(', ')}\n`);
  process.exit(1);
}
