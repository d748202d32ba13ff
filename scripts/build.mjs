#!/usr/bin/env node
// `npm run build`: the core, the CLI, the Electron main process and the worker threads bundled
// with esbuild into dist/, which plain `node` (and Electron) run with no TypeScript compiler.
//
//   dist/cli.mjs          the `sello` command (core/cli/main.ts); bin/sello.mjs runs it
//   dist/main.mjs         the Electron main process (main/index.ts); main/index.cjs loads it
//   dist/pdf-thread.mjs   the PDF thread (core/signing/pdf-thread/thread-main.ts)
//   dist/ride-thread.mjs  the RIDE thread (core/fiscal/invoices/ride-thread/thread-main.ts)
//   dist/sri-answer-thread.mjs  the thread that reads the SRI's answers (core/fiscal/sri/answer-thread/thread-main.ts)
//   dist/chunk-*.mjs      code shared by them; `sello serve` loads only what it imports
//   dist/build-stamp.json what the build was made from (bin/build-state.mjs), written last
//
// Every file is in the one folder, so `import.meta.url` of any bundled module says where the
// build is; `SELLO_BUILD.root` (core/paths.ts) leads from there back to package.json,
// renderer/ and resources/, which are read from disk and not copied.
//
// Dependencies: native modules (better-sqlite3, pkcs11js), electron and electron-updater (only
// the main process uses it; it reaches into electron at run time) stay in node_modules; every
// other dependency is pure JavaScript and bundled, so a start reads a few files instead of
// resolving hundreds of modules.
//
//   node scripts/build.mjs [--outdir DIR] [--if-possible] [--quiet] [--metafile]
// --outdir builds elsewhere (the tests build into a temporary folder); --if-possible (the
// `prepare` script of `npm install`) says one line and exits 0 where esbuild is not installed;
// --metafile also writes build-meta.json (esbuild's metafile: what went into which file, for
// https://esbuild.github.io/analyze/).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultOutDir, newestSourceMtime, readStamp, root, STAMP } from '../bin/build-state.mjs';

/** Entry name → source. The names are the ones bin/build-state.mjs and core/paths.ts ask for. */
export const APP_ENTRIES = { cli: 'core/cli/main.ts', main: 'main/index.ts' };
/**
 * The worker threads are bundled on their own, each one file with everything it needs: a thread
 * is an isolate of its own, so sharing chunks with the main thread would save disk, not memory,
 * and esbuild's code splitting puts a module into the chunks of every entry that imports it
 * before tree shaking, so `sello serve` would load the RIDE thread's pdf-lib and bwip-js.
 */
export const THREAD_ENTRIES = { 'pdf-thread': 'core/signing/pdf-thread/thread-main.ts', 'ride-thread': 'core/fiscal/invoices/ride-thread/thread-main.ts', 'sri-answer-thread': 'core/fiscal/sri/answer-thread/thread-main.ts' };
export const ENTRIES = { ...APP_ENTRIES, ...THREAD_ENTRIES };

export const EXTERNAL = ['better-sqlite3', 'pkcs11js', 'electron', 'electron-updater'];

/**
 * Bundled CommonJS dependencies call `require` for Node's built-ins, and some read `__dirname`:
 * in an ES module neither exists, so every output file starts by defining them.
 */
const BANNER = [
  "import { createRequire as __selloCreateRequire } from 'node:module';",
  "import { fileURLToPath as __selloFileURLToPath } from 'node:url';",
  'const require = __selloCreateRequire(import.meta.url);',
  'const __filename = __selloFileURLToPath(import.meta.url);',
  "const __dirname = __selloFileURLToPath(new URL('.', import.meta.url));",
].join('\n');

/**
 * No import in Sello's code is there for its side effects (`import 'x'` appears nowhere in core/,
 * native/ or main/): each imports bindings it uses. Saying so to esbuild lets it drop an import
 * none of whose bindings is used by code that remains, and with it what that module imports.
 * Through the barrels (`index.ts`), `sello serve` would otherwise evaluate what it never calls:
 * pdf-lib and bwip-js (the RIDE thread's), qrcode (the stamp, drawn on the PDF thread), because
 * importing a CommonJS package counts as a side effect unless said otherwise.
 */
const importsAreForBindings = {
  name: 'sello-imports-are-for-bindings',
  setup(b) {
    const own = ['core', 'native', 'main'].map((d) => path.join(root, d) + path.sep);
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'pure' || !own.some((d) => args.importer.startsWith(d))) return undefined;
      if (args.kind !== 'import-statement') return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'pure' });
      if (resolved.errors.length > 0) return resolved;
      return { ...resolved, sideEffects: false };
    });
  },
};

/**
 * Koa reads the media-type database twice at every start: `accepts` (1.3) brings mime-types 2
 * with its own copy of mime-db, type-is the mime-types 3 Koa itself depends on. `accepts` calls
 * only `lookup(extension)`, which mime-types 3 has with the same meaning, so both get the one
 * copy. mime-db is read by mime-types alone, which looks at a type's `extensions`, `charset` and
 * `source` and at no type that has neither of the first two: the bundle keeps those (1,042 of
 * 2,522 types, 70 KB of 160 KB), as a string for `JSON.parse`, which V8 reads several times
 * faster than the same data as an object literal in the code (issue 17, point 7).
 */
/** The part of mime-db that mime-types reads (test/unit/build/media-types.test.ts checks that it answers the same). */
export function usedMediaTypes(db) {
  const used = {};
  for (const [type, { source, charset, extensions }] of Object.entries(db)) {
    if (charset || extensions) used[type] = { source, charset, extensions };
  }
  return used;
}

const oneMediaTypeDatabase = {
  name: 'sello-one-media-type-database',
  setup(b) {
    b.onResolve({ filter: /^mime-types$/ }, (args) => {
      if (!args.importer.includes(`${path.sep}node_modules${path.sep}accepts${path.sep}`)) return undefined;
      return b.resolve('mime-types', { kind: args.kind, resolveDir: root });
    });
    b.onLoad({ filter: /[\\/]mime-db[\\/]db\.json$/ }, (args) => {
      const data = JSON.stringify(usedMediaTypes(JSON.parse(fs.readFileSync(args.path, 'utf8'))));
      return { contents: `module.exports = JSON.parse(${JSON.stringify(data)});`, loader: 'js' };
    });
  },
};

/**
 * zod's namespace object exports every one of its 48 message locales, so bundling it keeps all
 * of them (~250 KB parsed at every start). Sello uses Spanish (core/http/app.ts) and zod sets
 * English at load; zod's `locales` gets those two.
 */
const zodLocalesInUse = {
  name: 'sello-zod-locales-in-use',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)) return undefined;
      return { path: path.join(path.dirname(args.importer), '..', 'locales', 'in-use.js'), namespace: 'sello-zod-locales' };
    });
    b.onLoad({ filter: /.*/, namespace: 'sello-zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';\nexport { default as es } from './es.js';\n",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/** The premise of importsAreForBindings, checked at each build: the files of core/, native/, main/ with an `import 'x'`. */
function sideEffectImports() {
  const found = [];
  for (const dir of ['core', 'native', 'main']) {
    for (const e of fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!e.isFile() || !/\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name)) continue;
      const file = path.join(e.parentPath, e.name);
      if (/^\s*import\s*['"]/m.test(fs.readFileSync(file, 'utf8'))) found.push(path.relative(root, file));
    }
  }
  return found;
}

/** Builds into `outDir`; returns the stamp written. Throws on a build error (esbuild has printed it). */
export async function build({ outDir = defaultOutDir, quiet = false, metafile = false } = {}) {
  // The bundles import the native modules from node_modules, found from where they are.
  if (path.relative(root, outDir).startsWith('..') || path.isAbsolute(path.relative(root, outDir))) {
    throw new Error(`La carpeta de salida debe quedar dentro de ${root} (los módulos nativos se cargan de su node_modules): ${outDir}`);
  }
  const esbuild = await import('esbuild');
  const started = Date.now();
  const breaches = sideEffectImports();
  if (breaches.length > 0) {
    throw new Error(`Estos módulos importan algo solo por sus efectos, lo que la compilación no admite (scripts/build.mjs): ${breaches.join(', ')}`);
  }
  // Read before bundling: a source saved while the build runs leaves the build stale.
  const newestSource = newestSourceMtime();
  fs.mkdirSync(outDir, { recursive: true });
  // The stamp goes first and comes back last: a build that fails half-way is never used.
  const previous = readStamp(outDir);
  fs.rmSync(path.join(outDir, STAMP), { force: true });
  for (const f of previous?.files ?? []) fs.rmSync(path.join(outDir, f), { force: true });

  const entryPoints = (entries) => Object.fromEntries(Object.entries(entries).map(([name, src]) => [name, path.join(root, src)]));
  const common = {
    absWorkingDir: root,
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    outExtension: { '.js': '.mjs' },
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    external: EXTERNAL,
    define: { SELLO_BUILD: JSON.stringify({ root: path.relative(outDir, root) || '.' }) },
    banner: { js: BANNER },
    // Error names and stacks read as in the sources.
    keepNames: true,
    // Without the sources' comments and indentation `sello serve` loads about a third less
    // JavaScript (issue 17), and no file keeps a character beyond Latin-1 (esbuild escapes them
    // in strings; the comments kept some, and one `—` makes V8 hold a whole file as two-byte
    // text): about 25 ms and 2 MB less at each start. Names stay; positions in a stack are the
    // bundles' own either way (SELLO_DEBUG=1 maps them back through the source maps).
    minifyWhitespace: true,
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [importsAreForBindings, oneMediaTypeDatabase, zodLocalesInUse],
    metafile: true,
    logLevel: quiet ? 'error' : 'warning',
  };
  const results = await Promise.all([
    // The CLI's commands are loaded when run (core/cli/index.ts): with splitting, each is a chunk.
    esbuild.build({ ...common, entryPoints: entryPoints(APP_ENTRIES), splitting: true }),
    esbuild.build({ ...common, entryPoints: entryPoints(THREAD_ENTRIES), splitting: false }),
  ]);
  const meta = { inputs: Object.assign({}, ...results.map((r) => r.metafile.inputs)), outputs: Object.assign({}, ...results.map((r) => r.metafile.outputs)) };

  if (metafile) fs.writeFileSync(path.join(outDir, 'build-meta.json'), JSON.stringify(meta));
  const files = Object.keys(meta.outputs).map((f) => path.relative(outDir, path.resolve(root, f)));
  const stamp = { newestSource, builtAt: new Date().toISOString(), entries: Object.keys(ENTRIES), files };
  const tmp = path.join(outDir, `${STAMP}.${process.pid}`);
  fs.writeFileSync(tmp, `${JSON.stringify(stamp, null, 2)}\n`);
  fs.renameSync(tmp, path.join(outDir, STAMP));
  if (!quiet) {
    const bytes = files.filter((f) => f.endsWith('.mjs')).reduce((n, f) => n + fs.statSync(path.join(outDir, f)).size, 0);
    process.stdout.write(`Sello compilado en ${path.relative(process.cwd(), outDir) || '.'}/ (${(bytes / 1024 / 1024).toFixed(1)} MB de JavaScript, ${Date.now() - started} ms).\n`);
  }
  return stamp;
}

async function esbuildInstalled() {
  try {
    await import('esbuild');
    return true;
  } catch {
    return false;
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.join(root, 'scripts', 'build.mjs');
if (isMain) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' }, 'if-possible': { type: 'boolean' }, quiet: { type: 'boolean' }, metafile: { type: 'boolean' } } });
  if (values['if-possible'] && !(await esbuildInstalled())) {
    process.stdout.write('esbuild no está instalado (¿npm install --omit=dev?): Sello se ejecutará desde las fuentes con tsx.\n');
    process.exit(0);
  }
  try {
    await build({ outDir: values.outdir ? path.resolve(values.outdir) : defaultOutDir, quiet: Boolean(values.quiet), metafile: Boolean(values.metafile) });
  } catch (err) {
    // esbuild has printed each error with its file and line.
    if (!err?.errors) process.stderr.write(`${err?.message ?? err}\n`);
    process.exit(1);
  }
}
