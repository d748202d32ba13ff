import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { startTestAgent, createEndpoint } from '../helpers/agent.js';
import { repoRoot } from '../helpers/cli.js';
import { emitEvent, emitEvents, type EmittedEvent } from '../helpers/events.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';
import type { Benchmark } from './run.js';

interface Receiver {
  url: string;
  requests: Array<{ webhookId: string; receivedAt: number }>;
  waitFor(done: (r: Receiver['requests']) => boolean, timeoutMs: number): Promise<void>;
  stop(): void;
}

/** The receiver runs in its own process (test/bench/fixtures/receiver-process.ts). */
async function startReceiverProcess(pki: TestPki): Promise<Receiver> {
  const cert = pki.issue({ subject: { commonName: 'receptor' }, purpose: 'tls-server', altNames: ['127.0.0.1'] });
  fs.writeFileSync(path.join(pki.dir, 'receiver.cert.pem'), cert.certificatePem);
  fs.writeFileSync(path.join(pki.dir, 'receiver.key.pem'), cert.privateKeyPem);
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/bench/fixtures/receiver-process.ts')], {
    env: { ...process.env, RECEIVER_CERT: path.join(pki.dir, 'receiver.cert.pem'), RECEIVER_KEY: path.join(pki.dir, 'receiver.key.pem') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const requests: Receiver['requests'] = [];
  const url = await new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      if (line.startsWith('{')) return resolve((JSON.parse(line) as { url: string }).url);
      const [webhookId = '', at = '0'] = line.split(' ');
      requests.push({ webhookId, receivedAt: Number(at) });
    });
  });
  return {
    url,
    requests,
    async waitFor(done, timeoutMs) {
      const until = Date.now() + timeoutMs;
      while (!done(requests)) {
        if (Date.now() > until) throw new Error(`receiver: ${requests.length} requests after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    stop: () => child.kill('SIGTERM'),
  };
}

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const PACED = Number(process.env.BENCH_PACED_EVENTS ?? 2_000);
const BATCH = 100;

interface Figures {
  events: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** Commit → first arrival of each event's Webhook-Id, and the arrival rate. */
function figures(events: EmittedEvent[], receiver: Receiver, from: number): Figures {
  const firstArrival = new Map<string, number>();
  for (const req of receiver.requests.slice(from)) if (!firstArrival.has(req.webhookId)) firstArrival.set(req.webhookId, req.receivedAt);
  const latencies = events.map((e) => firstArrival.get(e.eventId)! - e.committedAt).sort((a, b) => a - b);
  const start = Math.min(...events.map((e) => e.committedAt));
  const end = Math.max(...firstArrival.values());
  const seconds = (end - start) / 1000;
  return { events: events.length, seconds, perSecond: events.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

const notes = `
The store runs with \`synchronous=FULL\`. In the bulk run the p50 is mostly time spent queued
behind 10,000 events; the paced run shows the latency of one new event: the delivery engine
is woken right after the commit that enqueued it, without waiting for a poll.
`;

const benchmark: Benchmark = {
  notes,
  description: `webhook deliveries to a local HTTPS receiver: ${EVENTS} events committed ${BATCH} per transaction, then ${PACED} events one per transaction at 500/s; receiver in its own process`,
  async run(report) {
    const pki = await createTestPki();
    const receiver = await startReceiverProcess(pki);
    const agent = await startTestAgent({ caFile: pki.ca.certificatePath, rateLimitPerMinute: 1_000_000_000 });
    try {
      await createEndpoint(agent, agent.liveKey, { url: receiver.url, secret: 'secreto-del-benchmark' });
      const bookId = agent.book.id;

      // Warm-up: TLS sessions and keep-alive sockets, statement caches.
      const warm = emitEvents(agent, 200, { bookId });
      await receiver.waitFor((r) => r.length >= warm.length, 60_000);

      // Throughput: the status changes of 10,000 documents, committed in batches.
      let from = receiver.requests.length;
      const bulk: EmittedEvent[] = [];
      for (let i = 0; i < EVENTS; i += BATCH) {
        bulk.push(...emitEvents(agent, Math.min(BATCH, EVENTS - i), { bookId }));
        await tick();
      }
      await receiver.waitFor((r) => r.length - from >= EVENTS, 300_000);
      const throughput = figures(bulk, receiver, from);

      // Latency: one status change per transaction, paced at 500 per second.
      from = receiver.requests.length;
      const paced: EmittedEvent[] = [];
      const started = performance.now();
      for (let i = 0; i < PACED; i++) {
        paced.push(emitEvent(agent, { bookId }));
        const wait = started + (i + 1) * 2 - performance.now();
        await new Promise((r) => setTimeout(r, Math.max(0, wait)));
      }
      await receiver.waitFor((r) => r.length - from >= PACED, 120_000);
      const latency = figures(paced, receiver, from);

      const states = agent.store.sqlite.prepare('select state, count(*) as n from deliveries group by state').all() as Array<{ state: string; n: number }>;
      report.table(
        ['run', 'events', 'seconds', 'deliveries/s', 'p50 ms commit→arrival', 'p99 ms', 'max ms'],
        [
          [`bulk: ${throughput.events} events committed ${BATCH} per transaction`, throughput.events, throughput.seconds.toFixed(2), Math.round(throughput.perSecond), throughput.p50, throughput.p99, throughput.max],
          ['paced: one event per transaction, 500/s', latency.events, latency.seconds.toFixed(2), Math.round(latency.perSecond), latency.p50, latency.p99, latency.max],
        ],
      );
      report.text(`Requests received: ${receiver.requests.length}; deliveries by state: ${states.map((s) => `${s.state} ${s.n}`).join(', ')}.`);
      report.goal(`≥ 1,000 deliveries/s in the bulk run (this run: ${Math.round(throughput.perSecond)})`, throughput.perSecond >= 1000);
      report.goal(`p50 ≤ 20 ms from the commit to the first attempt's arrival, paced (this run: ${latency.p50} ms)`, latency.p50 <= 20);
    } finally {
      await agent.close();
      receiver.stop();
      await pki.cleanup();
    }
  },
};

export default benchmark;
