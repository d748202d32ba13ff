import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const selloBin = path.join(repoRoot, 'bin/sello.mjs');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `sello ARGS…` to completion. */
export function sello(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const res = spawnSync(process.execPath, [selloBin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SELLO_LOG_LEVEL: 'warn', ...options.env },
    input: options.input ?? '',
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** `sello … --json` and parse its one line. */
export function selloJson<T>(args: string[], env?: NodeJS.ProcessEnv): T {
  const res = sello([...args, '--json'], env ? { env } : {});
  if (res.status !== 0) throw new Error(`sello ${args.join(' ')} → ${res.status}: ${res.stderr}`);
  return JSON.parse(res.stdout) as T;
}

export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  adminUrl: string;
  /** The whole first line (`tls_fingerprint` and the rest, on a LAN host). */
  json: Record<string, unknown>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts `sello serve --port 0 --json [ARGS…]` and waits for its first line. */
export async function startServe(dataDir: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [selloBin, 'serve', '--port', '0', '--json', '--data-dir', dataDir, ...args], {
    env: { ...process.env, SELLO_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once('line', resolve)),
    exited.then((code) => {
      throw new Error(`sello serve exited ${code}: ${stderr}`);
    }),
  ]);
  const json = JSON.parse(first) as { base_url: string; admin_url: string };
  return { child, baseUrl: json.base_url, adminUrl: json.admin_url, json, exited, stderr: () => stderr };
}
