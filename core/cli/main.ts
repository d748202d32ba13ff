/**
 * The `sello` command as a program: bin/sello.mjs loads it from source (with tsx) and
 * scripts/build.mjs bundles it into `dist/cli.mjs`, which plain `node` runs.
 */
import { runCli } from './index.js';

process.exitCode = await runCli(process.argv.slice(2));
