/**
 * The `sello` command as a program: bin/sello.mjs loads it from source (with tsx) and
 * scripts/build.mjs bundles it into `dist/cli.mjs`, which plain `node` runs.
 */
import module from 'node:module';
import { runCli } from './index.js';

// Node ≥ 22.1 keeps V8's compiled code of every module loaded from here on (the command's
// chunks, dist/chunk-*.mjs) between runs, in its own folder (NODE_COMPILE_CACHE, else the
// temporary folder): a start compiles only what changed since the last. Node 20 has no such
// cache (the call is absent there).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

process.exitCode = await runCli(process.argv.slice(2));
