// Which Node.js runs Sello (docs/decisions.md, "Versión de Node"): the project asks for Node 22.12
// or newer (package.json `engines`, what Electron 45 and its download tool need); the headless core
// still runs on Node 20.19 or newer with a one-line warning; older Node cannot run it at all
// (`require` of ES modules, which Sello's dependencies and Electron's installer rely on, arrived in
// 20.19). scripts/start.mjs and bin/sello.mjs ask here.

/** What Electron 45, @electron/get and Node's LTS support need; package.json `engines.node`. */
export const RECOMMENDED_NODE = '22.12.0';
/** The oldest Node the headless core runs on. */
export const MINIMUM_NODE = '20.19.0';

/** `a < b` for versions like `20.19.0` or `v22.1.3`. */
export function versionBelow(a, b) {
  const parse = (v) => String(v).replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10) || 0);
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  return false;
}

/**
 * `{ fatal }`: this Node cannot run Sello (one line to print, then exit 1); `{ warning }`: it runs
 * the headless core, but not Electron's tooling (one line to print); `{}`: nothing to say.
 */
export function nodeSupport(version = process.versions.node) {
  const v = String(version).replace(/^v/, '');
  if (versionBelow(v, MINIMUM_NODE)) {
    return { fatal: `Sello necesita Node.js ${MINIMUM_NODE} o más nuevo (se recomienda Node.js 22 LTS); este es ${v}.` };
  }
  if (versionBelow(v, RECOMMENDED_NODE)) {
    return {
      warning: `Aviso: Node.js ${v} ya no tiene mantenimiento; Sello funciona con él sin ventana, pero Electron y sus herramientas piden Node.js ${RECOMMENDED_NODE} o más nuevo: instale Node.js 22 LTS.`,
    };
  }
  return {};
}
