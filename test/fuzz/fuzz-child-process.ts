/**
 * The parent's side of one long-lived fuzz child (fuzz-child.ts). A child process rather than a
 * worker thread: an out-of-memory abort or a native crash takes down only the child, its exit
 * status and stderr say what happened, and its whole resident memory — Buffers included, which
 * V8's heap limit does not count — can be read from /proc. Starting one costs about half a
 * second (tsx), so a child runs mutant after mutant and is replaced only when it dies, hangs or
 * outgrows the memory limit.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FromChild, InitMessage, ResultMessage, Stage } from './protocol.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ChildLimits {
  /** Per stage of a mutant (one call: inspect, sign, verify), from the moment it starts. */
  deadlineMs: number;
  /** Resident memory (V8 heap, Buffers, native): above it the child is killed. */
  maxRssBytes: number;
  /** V8's old-space limit: past it the child aborts, as the agent's PDF thread would. */
  maxHeapMb: number;
}

export type ChildVerdict =
  | { kind: 'done'; result: ResultMessage }
  | { kind: 'crash' | 'hang' | 'memory'; stage: Stage | null; detail: string };

/** VmRSS of a running process, or 0 where /proc is not there. */
function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

const MB = 1024 * 1024;

export class FuzzChildProcess {
  private proc: ChildProcess | null = null;
  private ready: Promise<void> | null = null;
  private stderrTail = '';
  /** Children started, the first included. */
  starts = 0;

  constructor(
    private readonly init: InitMessage,
    private readonly limits: ChildLimits,
    /** Extra environment for the child (the harness's own test turns canaries on). */
    private readonly env: Record<string, string> = {},
  ) {}

  private start(): Promise<void> {
    this.starts++;
    const proc = fork(path.join(ROOT, 'bin/run-ts.mjs'), [path.join(ROOT, 'test/fuzz/fuzz-child.ts')], {
      cwd: ROOT,
      // Not vitest's own flags: only the heap limit (so that a runaway heap aborts here, as in
      // the agent's PDF thread) and gc, to measure each mutant from a clean baseline.
      execArgv: [`--max-old-space-size=${this.limits.maxHeapMb}`, '--expose-gc'],
      serialization: 'advanced',
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.proc = proc;
    this.stderrTail = '';
    proc.stderr?.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-3000);
    });
    proc.on('close', () => {
      if (this.proc === proc) {
        this.proc = null;
        this.ready = null;
      }
    });
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fuzz child did not start in 60 s: ${this.stderrTail}`)), 60_000);
      proc.on('message', (m: FromChild) => {
        if (m.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      proc.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`fuzz child exited at start (${code ?? signal}): ${this.stderrTail}`));
      });
      proc.send(this.init);
    });
  }

  private kill(): void {
    this.proc?.kill('SIGKILL');
    this.proc = null;
    this.ready = null;
  }

  /** Runs one mutant: its outcome, or how the child failed with it. */
  async run(index: number, pdf: Buffer): Promise<ChildVerdict> {
    if (!this.proc || !this.ready) this.ready = this.start();
    await this.ready;
    const proc = this.proc!;
    this.stderrTail = '';
    return new Promise<ChildVerdict>((resolve) => {
      let stage: Stage | null = null;
      let settled = false;
      const finish = (v: ChildVerdict): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(poll);
        proc.off('message', onMessage);
        proc.off('close', onClose);
        resolve(v);
      };
      const onMessage = (m: FromChild): void => {
        if (m.type === 'stage' && m.index === index) {
          stage = m.stage;
          timer.refresh();
        } else if (m.type === 'result' && m.index === index) finish({ kind: 'done', result: m });
      };
      const onClose = (code: number | null, signal: NodeJS.Signals | null): void => {
        finish({ kind: 'crash', stage, detail: `the child died (exit ${code ?? '-'}, signal ${signal ?? '-'}):\n${this.stderrTail.trim()}` });
      };
      const timer = setTimeout(() => {
        finish({ kind: 'hang', stage, detail: `no answer after ${this.limits.deadlineMs / 1000} s` });
        this.kill();
      }, this.limits.deadlineMs);
      // Sampled: a spike shorter than this is still caught by the child's own VmHWM afterwards.
      const poll = setInterval(() => {
        const rss = rssOf(proc.pid!);
        if (rss <= this.limits.maxRssBytes) return;
        finish({ kind: 'memory', stage, detail: `resident memory ${Math.round(rss / MB)} MB, above the limit of ${Math.round(this.limits.maxRssBytes / MB)} MB` });
        this.kill();
      }, 100);
      proc.on('message', onMessage);
      proc.on('close', onClose);
      proc.send({ type: 'run', index, pdf });
    });
  }

  stop(): void {
    this.kill();
  }
}
