/**
 * The data folder's lock (core/data-dir.ts `lockDataDir`) with real processes: a lock the
 * operating system holds on `sello.lock` and drops when its holder dies, whatever the pid
 * written in the file says.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../core/data-dir.js';
import { tempDir } from '../helpers/agent.js';
import { sello, selloBin, startServe, type ServeProcess } from '../helpers/cli.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function serve(dir: string): Promise<ServeProcess> {
  const s = await startServe(dir);
  children.push(s.child);
  return s;
}

const refusal = (dir: string, pid: number | undefined): string =>
  `sello: Otro proceso de Sello (pid ${pid}) ya usa la carpeta de datos ${dir}.`;

function secondServe(dir: string): { status: number | null; stderr: string } {
  const res = sello(['serve', '--port', '0', '--data-dir', dir]);
  return { status: res.status, stderr: res.stderr.trim() };
}

/** The lock and whatever SQLite might leave beside it (`-journal`, `-wal`, `-shm`). */
const lockFiles = (dir: string): string[] => fs.readdirSync(dir).filter((name) => name.startsWith('sello.lock')).sort();

/** A process's state letter from /proc (Z: a zombie, dead but not yet waited for). */
function procState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

describe('the data folder lock', () => {
  it('refuses a second sello serve on the folder while the first runs, naming its pid, and frees it on exit', async () => {
    const dir = tempDir();
    const first = await serve(dir);
    expect(secondServe(dir)).toEqual({ status: 1, stderr: refusal(dir, first.child.pid) });
    // The journal stays in memory: the lock has no siblings, neither while held nor after.
    expect(lockFiles(dir)).toEqual(['sello.lock']);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(lockFiles(dir)).toEqual(['sello.lock']);

    const next = await serve(dir);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  });

  it.skipIf(process.platform !== 'linux')('starts again at once after kill -9, while the killed agent is still a zombie', async () => {
    const dir = tempDir();
    // The agent's parent is a shell that execs `sleep` and so never waits for it: killed, the
    // agent stays a zombie (its pid alive to kill(pid, 0)) for as long as this test wants.
    const parent = spawn('sh', ['-c', '"$0" "$1" serve --port 0 --json --data-dir "$2" & echo $!; exec sleep 600', process.execPath, selloBin, dir], {
      env: { ...process.env, SELLO_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(parent);
    let stderr = '';
    parent.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const lines = readline.createInterface({ input: parent.stdout! })[Symbol.asyncIterator]();
    const pid = Number((await lines.next()).value);
    const ready = (await lines.next()).value as string | undefined;
    expect(ready, stderr).toMatch(/"base_url"/);
    expect(procState(pid)).not.toBe('Z');

    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 500 && procState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(procState(pid)).toBe('Z');
    // What the pid-file lock was fooled by: the dead agent's pid still answers kill(pid, 0).
    expect(() => process.kill(pid, 0)).not.toThrow();

    const second = await serve(dir);
    expect(procState(pid)).toBe('Z');
    expect((await fetch(`${second.baseUrl}/api/v1/openapi`)).status).toBe(200);
    expect(secondServe(dir)).toEqual({ status: 1, stderr: refusal(dir, second.child.pid) });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('replaces an old-format sello.lock holding the pid of a live, unrelated process', async () => {
    const dir = tempDir();
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(sleeper);
    const file = path.join(dir, 'sello.lock');
    fs.writeFileSync(file, String(sleeper.pid), { mode: 0o600 });

    const first = await serve(dir);
    // Now a lock database: its header names the agent, only for the refusal's message.
    const header = fs.readFileSync(file).subarray(0, 100);
    expect(header.subarray(0, 16).equals(SQLITE_MAGIC)).toBe(true);
    expect(header.readInt32BE(60)).toBe(first.child.pid);
    expect(secondServe(dir)).toEqual({ status: 1, stderr: refusal(dir, first.child.pid) });
    expect(lockFiles(dir)).toEqual(['sello.lock']);
    expect(sleeper.exitCode).toBeNull();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('takes over a lock file torn by a power cut', () => {
    const dir = tempDir();
    const file = path.join(dir, 'sello.lock');
    fs.writeFileSync(file, Buffer.concat([SQLITE_MAGIC, Buffer.alloc(200, 0xa5)]));
    const release = lockDataDir(dir);
    release();
    expect(fs.readFileSync(file).readInt32BE(60)).toBe(process.pid);
    expect(lockFiles(dir)).toEqual(['sello.lock']);
  });

  it('is released and taken again within one process, and holds against other processes each time', async () => {
    const dir = tempDir();
    // An old-format lock naming this very process: no reason to refuse either.
    fs.writeFileSync(path.join(dir, 'sello.lock'), String(process.pid));
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(`Otro proceso de Sello (pid ${process.pid}) ya usa la carpeta de datos ${dir}.`);
    expect(secondServe(dir)).toEqual({ status: 1, stderr: refusal(dir, process.pid) });
    release();
    release(); // a second call does nothing

    const again = lockDataDir(dir);
    expect(secondServe(dir)).toEqual({ status: 1, stderr: refusal(dir, process.pid) });
    again();

    const agent = await serve(dir);
    expect(() => lockDataDir(dir)).toThrow(refusal(dir, agent.child.pid).replace('sello: ', ''));
    agent.child.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    lockDataDir(dir)();
    expect(lockFiles(dir)).toEqual(['sello.lock']);
  });
});
