/**
 * A bounded work queue: at most `concurrency` jobs at once, and at most `maxWeight` of their
 * weights (the bytes of the files being signed: memory), though always at least one job; each
 * key queued once at a time (a file announced twice, by the initial scan and an event, runs
 * once). A job may give its place back before it ends (`release`): the next job starts, while
 * the key stays taken until the job ends (a signed file whose original is still being moved is
 * not taken again).
 */
export interface WorkQueue {
  push(key: string, job: (release: () => void) => Promise<void>, weight?: number): void;
  /** Whether `key` is queued or running. */
  has(key: string): boolean;
  /** Jobs queued or running. */
  readonly size: number;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  /** Stops taking jobs; resolves when the running ones end. */
  stop(): Promise<void>;
}

export function createWorkQueue(concurrency: number, maxWeight = Infinity): WorkQueue {
  const waiting: Array<[string, (release: () => void) => Promise<void>, number]> = [];
  const keys = new Set<string>();
  const running = new Set<Promise<void>>();
  /** Running jobs that still hold a place, and their weights. */
  let holding = 0;
  let held = 0;
  let idlers: Array<() => void> = [];
  let stopped = false;

  const pump = (): void => {
    while (!stopped && holding < concurrency && waiting.length > 0 && (holding === 0 || held + waiting[0]![2] <= maxWeight)) {
      const [key, job, weight] = waiting.shift()!;
      let holds = true;
      const release = (): void => {
        if (!holds) return;
        holds = false;
        holding--;
        held -= weight;
        queueMicrotask(pump);
      };
      holding++;
      held += weight;
      let started: Promise<void>;
      try {
        started = job(release);
      } catch (err) {
        started = Promise.reject(err);
      }
      const p: Promise<void> = started
        .catch(() => undefined)
        .finally(() => {
          release();
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
    push(key, job, weight = 0) {
      if (stopped || keys.has(key)) return;
      keys.add(key);
      waiting.push([key, job, Math.max(0, weight)]);
      queueMicrotask(pump);
    },
    has(key) {
      return keys.has(key);
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
