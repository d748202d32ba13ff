#!/usr/bin/env node
// The `sello` command. Sources are TypeScript; tsx compiles them on load so that
// `npx sello …` works straight from a checkout, with no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../core/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2));
