#!/usr/bin/env node
// Runs a TypeScript entry point with tsx's loader: `node bin/run-ts.mjs FILE.ts [args…]`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

register();
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  process.stderr.write('uso: run-ts.mjs ARCHIVO.ts [argumentos…]\n');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(file), ...rest];
await import(pathToFileURL(path.resolve(file)).href);
