/**
 * `npm start` (scripts/start.mjs) on a machine without a display, as this one is: one line says
 * Sello runs without a window and why, the headless core answers, and SIGTERM stops it cleanly
 * (CONTRACT §1, issue 17 point 1). The choice itself is tested in test/unit/start/launch.test.ts.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { nodeSupport } from '../../bin/node-support.mjs';
import { tempDir } from '../helpers/agent.js';
import { repoRoot } from '../helpers/cli.js';

describe('npm start without a display', () => {
  it('says so in one line, serves headless and stops on SIGTERM', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, SELLO_LOG_LEVEL: 'warn', SELLO_FROM_SOURCE: '1' };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const child = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs'), '--port', '0', '--json', '--data-dir', tempDir('sello-npm-start-')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    try {
      const first = await Promise.race([
        new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
        exited.then(({ code }) => {
          throw new Error(`npm start exited ${code}: ${stderr}`);
        }),
      ]);
      const { base_url } = JSON.parse(first) as { base_url: string };

      const ui = await fetch(`${base_url}/ui/`);
      expect(ui.status).toBe(200);
      const api = await fetch(`${base_url}/api/v1/webhook-endpoints`);
      expect(api.status).toBe(401);

      const lines = stderr.trim().split('\n');
      expect(lines.filter((l) => l.startsWith('Sello se ejecuta sin ventana'))).toEqual(['Sello se ejecuta sin ventana: no hay pantalla (DISPLAY y WAYLAND_DISPLAY están vacíos).']);
      // On a Node older than Electron's tooling wants, one more line says so, once.
      const warning = nodeSupport().warning;
      expect(lines.filter((l) => l.startsWith('Aviso: Node.js'))).toEqual(warning ? [warning] : []);
      expect(lines.filter((l) => !l.startsWith('Sello se ejecuta sin ventana') && !l.startsWith('Aviso: Node.js'))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});
