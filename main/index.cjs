// Electron loads this file (package.json "main") and starts the tray app: from the build
// (dist/main.mjs, `npm run build`) when dist/ holds one of the current sources, else from the
// TypeScript sources through tsx's loader. Electron's own Node runs it; nothing here runs
// under plain Node.
const path = require('node:path');
const { pathToFileURL } = require('node:url');

(async () => {
  const { builtEntry } = await import('../bin/build-state.mjs');
  // Inside an installed app (app.asar) the files' times say nothing: any finished build is used.
  const installed = __dirname.split(path.sep).includes('app.asar');
  const built = builtEntry('main', { checkSources: !installed });
  if (built) {
    // Electron's Node (22) keeps V8's compiled code of the bundles between starts.
    require('node:module').enableCompileCache?.();
    await import(pathToFileURL(built).href);
    return;
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import('./index.ts');
})().catch((err) => {
  process.stderr.write(`Sello no pudo iniciar la bandeja: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
