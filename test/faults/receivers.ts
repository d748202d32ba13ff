/**
 * Scenario 4: receivers that misbehave. Each Webhook-Id (events and callbacks) gets a seeded
 * behaviour: hang twice (accept and never answer: the real 15 s attempt timeout of CONTRACT §9
 * applies), reset the connection twice, answer slowly (2–5 s), or answer at once. A `kill -9`
 * comes while attempts hang, and a graceful stop while another receiver hangs must still end
 * (drained, exit 0). The checker proves every event and callback arrived, nothing confirmed was
 * sent again, and each failed attempt was recorded with what happened.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestPki } from '../helpers/test-ca.js';
import { deliveredIds, withStoreFile, scenarioRow, type Row } from './checker.js';
import { seededRandom, setUpOffice, SelloUnderTest, sleep, tempDir, waitUntil, type FaultsSettings } from './harness.js';
import { startFaultReceiver, type Behaviour } from './receiver.js';
import { finishAndCheck, serveEnv } from './scenario.js';
import { Workload } from './workload.js';

type Mode = 'hang' | 'reset' | 'slow' | 'ok';
const MODES: readonly Mode[] = ['hang', 'reset', 'slow', 'ok'];

export async function misbehavingReceivers(pki: TestPki, settings: FaultsSettings, log: (line: string) => void): Promise<Row> {
  const started = Date.now();
  const random = seededRandom(settings.seed + 4);
  const work = tempDir('sello-faults-receivers-');
  const dataDir = path.join(work, 'datos');
  const office = setUpOffice(dataDir, work);
  const sello = new SelloUnderTest(dataDir, serveEnv(pki));
  // The mode of a Webhook-Id, fixed by the seed and the id itself, whatever the order of arrival.
  const modeOf = (id: string): Mode => MODES[crypto.createHash('sha256').update(`${settings.seed}:${id}`).digest()[0]! % MODES.length]!;
  const slowMs = (id: string): number => 2_000 + (crypto.createHash('sha256').update(`slow:${id}`).digest().readUInt16BE(0) % 3_000);
  const behaviour: Behaviour = (id, nth) => {
    switch (modeOf(id)) {
      case 'hang':
        // Twice: the kill below cuts some first tries short, and the timeout must still be met.
        return nth < 2 ? { hang: true } : { status: 200 };
      case 'reset':
        return nth < 2 ? { reset: true } : { status: 200 };
      case 'slow':
        return { status: 200, delayMs: slowMs(id) };
      default:
        return { status: 200 };
    }
  };
  const receiver = await startFaultReceiver(pki, sello, behaviour);
  const deadline = Date.now() + 300_000;
  const workload = new Workload({ sello, office, receiverUrl: receiver.url, random, deadline: () => deadline });
  const deliveredAtEnd = new Map<number, Set<string>>();
  const problems: string[] = [];
  const documents = settings.ci ? 16 : 30;
  const requests = settings.ci ? 8 : 16;
  try {
    await sello.start();
    await workload.createEndpoint();
    await Promise.all([workload.runDocuments(documents, 2), workload.runRequests(requests, 2, 2)]);

    // While the first attempts of the hanging ones wait for their 15 s timeout: kill -9.
    await waitUntil(() => receiver.receipts.filter((r) => modeOf(r.webhookId) === 'hang').length, (n) => n >= 3, 30_000, 'receivers: hangs under way');
    await sleep(1_000);
    const epoch = sello.epoch;
    await sello.kill9();
    deliveredAtEnd.set(epoch, deliveredIds(dataDir));
    await sello.start();

    // A graceful stop while a receiver hangs on fresh events: bounded (drain 5 s, close 5 s), exit 0.
    await waitUntil(() => receiver.confirmed().size, (n) => n >= documents * 2 + requests, 120_000, 'receivers: every event and callback confirmed');
    receiver.setBehaviour(() => ({ hang: true }));
    await workload.runDocuments(2, 1);
    await waitUntil(() => withStoreFile(dataDir, (db) => (db.prepare("select count(*) as n from deliveries where state = 'sending'").get() as { n: number }).n), (n) => n > 0, 10_000, 'receivers: attempts hanging');
    const stopping = Date.now();
    const before = sello.epoch;
    const exit = await sello.stop();
    const stopMs = Date.now() - stopping;
    deliveredAtEnd.set(before, deliveredIds(dataDir));
    if (exit !== 0) problems.push(`graceful stop with hanging attempts exited ${exit}`);
    if (stopMs > 20_000) problems.push(`graceful stop with hanging attempts took ${(stopMs / 1000).toFixed(1)} s`);
    receiver.setBehaviour(behaviour);
    await sello.start();
    const check = await finishAndCheck({ sello, receiver, workload, deliveredAtEnd, pdfsigAll: true, what: 'receivers' });

    // Every failed attempt was recorded with what the receiver did.
    const attempts = withStoreFile(dataDir, (db) => db.prepare('select d.message_id, a.status, a.error, a.duration_ms from delivery_attempts a join deliveries d on d.id = a.delivery_id').all() as Array<{ message_id: string; status: number | null; error: string | null; duration_ms: number }>);
    const byMode = new Map<Mode, typeof attempts>();
    for (const a of attempts) byMode.set(modeOf(a.message_id), [...(byMode.get(modeOf(a.message_id)) ?? []), a]);
    const timeouts = (byMode.get('hang') ?? []).filter((a) => a.status === null && /tiempo de espera agotado/.test(a.error ?? ''));
    if (timeouts.length === 0) problems.push('no attempt recorded as timed out');
    for (const a of timeouts) if (a.duration_ms < 14_000) problems.push(`${a.message_id}: timed out after ${a.duration_ms} ms, before 15 s`);
    const resets = (byMode.get('reset') ?? []).filter((a) => a.status === null && /cortó la conexión|cerró la conexión/.test(a.error ?? ''));
    if (resets.length === 0) problems.push('no attempt recorded as a reset connection');
    const slow = (byMode.get('slow') ?? []).filter((a) => a.status === 200);
    if (slow.some((a) => a.duration_ms < 1_900)) problems.push('a slow answer was recorded faster than it came');
    const counts = Object.fromEntries(MODES.map((m) => [m, new Set(receiver.receipts.filter((r) => modeOf(r.webhookId) === m).map((r) => r.webhookId)).size]));
    log(`receivers: ids by mode ${JSON.stringify(counts)}; ${timeouts.length} timeouts, ${resets.length} resets recorded; graceful stop with hanging attempts in ${(stopMs / 1000).toFixed(1)} s`);
    check.problems.unshift(...problems);
    return scenarioRow('receivers that hang (15 s timeout), reset and answer slowly', `${timeouts.length} timeouts, ${resets.length} resets, ${slow.length} slow answers, kill -9 × 1 mid-hang, stop mid-hang`, sello.starts, check, started);
  } finally {
    sello.forceKill();
    await receiver.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
