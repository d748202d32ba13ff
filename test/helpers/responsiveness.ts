/**
 * How an agent keeps answering while it works on something else: `probe` calls `target` in a
 * loop and records the slowest answer, until `stop()`.
 */
export function probe(target: () => Promise<Response>): { stop(): Promise<{ worstMs: number; count: number }> } {
  let running = true;
  let worstMs = 0;
  let count = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await target();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`probe: ${res.status}`);
      worstMs = Math.max(worstMs, performance.now() - t0);
      count++;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { worstMs, count };
    },
  };
}
