/**
 * A real second computer on a real LAN, for tests of what Sello serves beyond loopback: a network
 * namespace joined to this one by a veth pair with 10.x addresses. A client run in the namespace
 * (`lan.run('curl', …)`) reaches Sello from a non-loopback address, exactly as the ERP on another
 * computer of the office would. Needs root (CAP_NET_ADMIN) and iproute2, as the tests have here
 * and in CI.
 *
 * @example
 *   const lan = createLan();
 *   const agent = await startTestAgent({ host: lan.hostIp });
 *   await lan.run('curl', ['-sS', `http://${lan.hostIp}:${port}/`]);
 *   lan.close();
 */
import { spawn, spawnSync } from 'node:child_process';

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface Lan {
  /** The namespace: the other computer. */
  ns: string;
  /** This machine's address on the LAN (the veth end that stays here). */
  hostIp: string;
  /** The other computer's address. */
  peerIp: string;
  /** This machine's end of the veth pair. */
  hostInterface: string;
  /** A prefix free for more addresses of this machine: `${prefix}.7`. */
  prefix: string;
  /** Runs a command on the other computer, without blocking this process (a server here must answer it). */
  run(command: string, args: string[], options?: { input?: string; timeoutMs?: number }): Promise<RunResult>;
  close(): void;
}

function ip(args: string[]): void {
  const res = spawnSync('ip', args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`ip ${args.join(' ')}: ${res.error?.message ?? res.stderr.trim()} (the LAN tests need root and iproute2)`);
}

/** Runs a command to completion without blocking the event loop. */
export function run(command: string, args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    // A command that exits without reading its input must not fail the writer.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

export function createLan(): Lan {
  const id = process.pid % 10_000_000;
  const ns = `sello-lan-${id}`;
  const hostInterface = `sl${id}a`;
  const peerInterface = `sl${id}b`;
  const prefix = `10.${100 + (process.pid % 100)}.${Math.floor(process.pid / 100) % 250}`;
  const hostIp = `${prefix}.1`;
  const peerIp = `${prefix}.2`;
  ip(['netns', 'add', ns]);
  try {
    ip(['link', 'add', hostInterface, 'type', 'veth', 'peer', 'name', peerInterface]);
    ip(['link', 'set', peerInterface, 'netns', ns]);
    ip(['addr', 'add', `${hostIp}/24`, 'dev', hostInterface]);
    ip(['link', 'set', hostInterface, 'up']);
    ip(['-n', ns, 'addr', 'add', `${peerIp}/24`, 'dev', peerInterface]);
    ip(['-n', ns, 'link', 'set', peerInterface, 'up']);
    ip(['-n', ns, 'link', 'set', 'lo', 'up']);
  } catch (err) {
    spawnSync('ip', ['netns', 'del', ns]);
    throw err;
  }
  return {
    ns,
    hostIp,
    peerIp,
    hostInterface,
    prefix,
    run: (command, args, options) => run('ip', ['netns', 'exec', ns, command, ...args], options),
    close() {
      // Deleting the namespace deletes its veth end, and with it this one.
      spawnSync('ip', ['netns', 'del', ns]);
      spawnSync('ip', ['link', 'del', hostInterface], { stdio: 'ignore' });
    },
  };
}
