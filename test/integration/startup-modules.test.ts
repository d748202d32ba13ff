/**
 * What `sello serve` loads before its first answer (issue 17, point 7): the build's own record
 * (esbuild's metafile, `scripts/build.mjs --metafile`) of the files the CLI and the serve command
 * import statically, and the sources bundled into them. esbuild's code splitting puts a module
 * into those files through any static import that reaches it, used or not, so one import of a
 * barrel (core/xml/index.ts, say) from the agent's code brings its libraries back into every
 * start; this test names the ones that must stay out.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

interface Metafile {
  outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, { bytesInOutput: number }> }>;
}

/**
 * Loaded only when used: the XML signature (core/xml/light.ts); forge beyond its ASN.1 codec
 * (core/asn1/forge-asn1.ts), which reads `.p12` files, lays out test and TLS certificates;
 * chokidar (polled folders only); and what only worker threads or other commands need.
 */
const NOT_AT_START = [
  /node_modules\/xml-crypto\//,
  /node_modules\/@xmldom\//,
  /node_modules\/xpath\//,
  /node_modules\/pdf-lib\//,
  /node_modules\/bwip-js\//,
  /node_modules\/qrcode\//,
  /node_modules\/chokidar\//,
  /node_modules\/node-forge\/lib\/(index|pki|x509|pkcs12|pkcs7|rsa|tls)\.js$/,
  /^core\/xml\/(sign|verify|c14n|xml-input)\.ts$/,
  /^core\/signing\/key-sources\/p12\.ts$/,
  /^core\/certificates\/test-ca\.ts$/,
  /^core\/tls\/build\.ts$/,
];

let out: string;
let meta: Metafile;

beforeAll(() => {
  fs.mkdirSync(path.join(repoRoot, 'node_modules/.cache'), { recursive: true });
  out = fs.mkdtempSync(path.join(repoRoot, 'node_modules/.cache/sello-startup-modules-'));
  const build = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/build.mjs'), '--outdir', out, '--quiet', '--metafile'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the build failed: ${build.stderr}`);
  meta = JSON.parse(fs.readFileSync(path.join(out, 'build-meta.json'), 'utf8')) as Metafile;
}, 120_000);
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

/** The output files loaded with `from` (its static imports, transitively), and the sources bundled into them. */
function loadedWith(from: string[]): { files: string[]; sources: string[] } {
  const files = new Set<string>();
  const stack = [...from];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of meta.outputs[file]!.imports) if (imp.kind === 'import-statement' && !imp.external) stack.push(imp.path);
  }
  const sources = new Set<string>();
  for (const file of files) for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[file]!.inputs)) if (bytesInOutput > 0) sources.add(input);
  return { files: [...files], sources: [...sources].map((s) => path.relative(repoRoot, path.resolve(repoRoot, s))) };
}

const outputWith = (source: string): string => {
  const found = Object.keys(meta.outputs).find((o) => o.endsWith('.mjs') && meta.outputs[o]!.inputs[source]);
  if (!found) throw new Error(`no output holds ${source}`);
  return found;
};

describe('what sello serve loads at its start', () => {
  it('leaves out the XML signature, the PDF libraries and the QR and barcode writers', () => {
    const cli = Object.keys(meta.outputs).find((o) => o.endsWith('/cli.mjs'))!;
    const { sources } = loadedWith([cli, outputWith('core/cli/serve.ts')]);
    expect(sources).toContain('core/app.ts');
    expect(sources.filter((s) => NOT_AT_START.some((re) => re.test(s)))).toEqual([]);
  });

  it('reads one media-type database and two of zod\'s message locales', () => {
    const cli = Object.keys(meta.outputs).find((o) => o.endsWith('/cli.mjs'))!;
    const { sources } = loadedWith([cli, outputWith('core/cli/serve.ts')]);
    // By suffix: a checkout whose node_modules is a link names them by the link's target.
    const databases = sources.filter((s) => s.endsWith('/mime-db/db.json'));
    expect(databases).toHaveLength(1);
    expect(databases[0]).not.toMatch(/\/accepts\//);
    // Real files only: the build's own module that re-exports them is `sello-zod-locales:…/in-use.js`.
    const locales = sources.filter((s) => !s.includes('sello-zod-locales:') && /(^|\/)node_modules\/zod\/v4\/locales\/[^/]+\.js$/.test(s)).map((s) => s.replace(/^.*\/zod\//, 'zod/'));
    expect(locales.sort()).toEqual(['zod/v4/locales/en.js', 'zod/v4/locales/es.js']);
  });

  it('still has the XML signature in the build, loaded at the first signature', () => {
    const light = outputWith('core/xml/light.ts');
    const lazy = meta.outputs[light]!.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path);
    const { sources } = loadedWith(lazy);
    expect(sources).toContain('core/xml/sign.ts');
    expect(sources.some((s) => /node_modules\/xml-crypto\//.test(s))).toBe(true);
  });
});
