// Electron loads this file (package.json "main"). The sources are TypeScript: register
// tsx's loader, then start the tray app. Electron's own Node runs it; nothing here runs
// under plain Node.
(async () => {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./index.ts');
})().catch((err) => {
  process.stderr.write(`Sello no pudo iniciar la bandeja: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
