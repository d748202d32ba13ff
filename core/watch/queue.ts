/**
 * A bounded work queue: at most `concurrency` jobs at once, each key queued once at a
 * time (a file announced twice, by the initial scan and an event, runs once).
 */
export interface WorkQueue {
  push(key: string, job: () => Promise<void>): void;
  /** Jobs queued or running. */
  readonly size: number;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  /** Stops taking jobs; resolves when the running ones end. */
  stop(): Promise<void>;
}

export function createWorkQueue(concurrency: number): WorkQueue {
  const waiting: Array<[string, () => Promise<void>]> = [];
  const keys = new Set<string>();
  const running = new Set<Promise<void>>();
  let idlers: Array<() => void> = [];
  let stopped = false;

  const pump = (): void => {
    while (!stopped && running.size < concurrency && waiting.length > 0) {
      const [key, job] = waiting.shift()!;
      const p: Promise<void> = job()
        .catch(() => undefined)
        .finally(() => {
          running.delete(p);
          keys.delete(key);
          pump();
        });
      running.add(p);
    }
    if (running.size === 0 && waiting.length === 0) {
      const done = idlers;
      idlers = [];
      for (const resolve of done) resolve();
    }
  };

  return {
    push(key, job) {
      if (stopped || keys.has(key)) return;
      keys.add(key);
      waiting.push([key, job]);
      queueMicrotask(pump);
    },
    get size() {
      return keys.size;
    },
    idle() {
      if (keys.size === 0) return Promise.resolve();
      return new Promise((resolve) => idlers.push(resolve));
    },
    async stop() {
      stopped = true;
      waiting.length = 0;
      await Promise.all([...running]);
    },
  };
}
