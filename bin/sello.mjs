#!/usr/bin/env node
// The `sello` command. `npm run build` bundles it into dist/cli.mjs, which plain node runs;
// without a build of the current sources (never built, or sources edited since), tsx compiles
// the TypeScript sources on load, so `npx sello …` works straight from a checkout.
// SELLO_FROM_SOURCE=1 always uses the sources.
import { pathToFileURL } from 'node:url';
import { builtEntry } from './build-state.mjs';
import { nodeSupport } from './node-support.mjs';

// Too old a Node: one line and exit 1. Node 20.19+: the warning once, to a person at a terminal
// (not to programs reading stderr; `npm start` has already said it: SELLO_NODE_WARNED).
const support = nodeSupport();
if (support.fatal) {
  process.stderr.write(`${support.fatal}\n`);
  process.exit(1);
}
if (support.warning && process.stderr.isTTY && process.env.SELLO_NODE_WARNED !== '1') process.stderr.write(`${support.warning}\n`);

const built = builtEntry('cli');
if (built) {
  // With SELLO_DEBUG=1 a stack names the TypeScript files and lines (dist/*.mjs.map), not the bundles'.
  if (process.env.SELLO_DEBUG === '1') process.setSourceMapsEnabled(true);
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../core/cli/main.ts');
}
