// `node --import ./test/helpers/no-typescript.mjs dist/cli.mjs …`: proves that a built Sello
// runs with no TypeScript compiler. Every module resolved (on the main thread and on each worker
// thread, which inherit `--import`) is appended to $SELLO_GUARD_LOG, and resolving tsx or a .ts
// file throws; at exit, a tsx or .ts found among CommonJS modules sets the exit code to 97.
import { createRequire, register } from 'node:module';

register('./no-typescript-hooks.mjs', import.meta.url, { data: { log: process.env.SELLO_GUARD_LOG ?? '' } });

const require = createRequire(import.meta.url);
process.on('exit', () => {
  const typescript = Object.keys(require.cache).filter((f) => /[/\\]node_modules[/\\]tsx[/\\]|\.[cm]?ts$/.test(f));
  if (typescript.length > 0) {
    process.stderr.write(`no-typescript: TypeScript loaded at run time: ${typescript.join(', ')}\n`);
    process.exitCode = 97;
  }
});
