/**
 * Scenario 1: `kill -9` at seeded random moments while the three pipelines run together —
 * documents whose status changes are webhook events, signing requests with `send: true` and
 * a callback, PDFs dropped into a watched folder — with a restart after each kill. At the end,
 * a graceful stop and the checker (checker.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestPki } from '../helpers/test-ca.js';
import { deliveredIds, withStoreFile, scenarioRow, type Row } from './checker.js';
import { addWatchedFolder, seededRandom, setUpOffice, SelloUnderTest, sleep, tempDir, waitUntil, type FaultsSettings } from './harness.js';
import { startFaultReceiver } from './receiver.js';
import { finishAndCheck, serveEnv } from './scenario.js';
import { Workload } from './workload.js';

/** Which pipelines have work under way right now: attempts sending, requests being signed, files being signed. */
function inFlight(dataDir: string): { deliveries: boolean; requests: boolean; files: boolean } {
  return withStoreFile(dataDir, (d) => ({
    deliveries: d.prepare("select 1 from deliveries where state = 'sending' limit 1").get() !== undefined,
    requests: d.prepare("select 1 from signing_requests where status = 'processing' limit 1").get() !== undefined,
    files: d.prepare("select 1 from watch_ledger where state in ('queued', 'signing') limit 1").get() !== undefined,
  }));
}

export async function killCampaign(pki: TestPki, settings: FaultsSettings, log: (line: string) => void): Promise<Row> {
  const started = Date.now();
  const random = seededRandom(settings.seed);
  const work = tempDir('sello-faults-kill-');
  const dataDir = path.join(work, 'data');
  const office = setUpOffice(dataDir, work);
  const folder = addWatchedFolder(dataDir, path.join(work, 'facturas'), office.certificateId);
  const sello = new SelloUnderTest(dataDir, serveEnv(pki));
  // Answers take 0–300 ms: attempts are in flight when a kill comes.
  const receiver = await startFaultReceiver(pki, sello, () => ({ status: 200, delayMs: Math.floor(random() * 300) }));
  const deadline = Date.now() + 420_000;
  const workload = new Workload({ sello, office, receiverUrl: receiver.url, random, deadline: () => deadline });
  const deliveredAtEnd = new Map<number, Set<string>>();
  const atKills = { deliveries: 0, requests: 0, files: 0 };
  try {
    await sello.start();
    await workload.createEndpoint();

    // Spread the work over the campaign (about 2 s per kill and restart), so that kills land
    // in every phase of every pipeline.
    const campaignMs = settings.kills * 2_000;
    const producing = Promise.all([
      workload.runDocuments(settings.documents, 2, (campaignMs * 2) / settings.documents),
      workload.runRequests(settings.requests, settings.signaturesPerRequest, 2, (campaignMs * 2) / settings.requests),
      workload.runFolder(folder.path, settings.files, campaignMs / settings.files),
    ]);

    for (let k = 0; k < settings.kills; k++) {
      // A random moment, most often one where the chosen pipeline has work under way:
      // uniform moments alone hit a signing pass or a folder file only now and then.
      await sleep(150 + random() * 700);
      const aim = (['deliveries', 'requests', 'files', 'any'] as const)[Math.floor(random() * 4)]!;
      if (aim !== 'any') await waitUntil(() => inFlight(dataDir)[aim], (busy) => busy, 3_000, aim, 3).catch(() => undefined);
      await sleep(random() * 40);
      const epoch = sello.epoch;
      await sello.kill9();
      deliveredAtEnd.set(epoch, deliveredIds(dataDir));
      const left = inFlight(dataDir);
      if (left.deliveries) atKills.deliveries++;
      if (left.requests) atKills.requests++;
      if (left.files) atKills.files++;
      // Now and then down for a while: files keep coming, the ERP keeps retrying.
      if (random() < 0.25) await sleep(random() * 1_500);
      await sello.start();
    }
    workload.stop();
    await producing;
    log(
      `kill campaign: ${sello.kills} kills; work in flight at the kills: deliveries ${atKills.deliveries}, signing requests ${atKills.requests}, folder files ${atKills.files}; ` +
        `${workload.documents.size} documents, ${workload.requests.size} requests, ${workload.dropped.size} files`,
    );

    const check = await finishAndCheck({ sello, receiver, workload, folder, deliveredAtEnd, pdfsigAll: settings.pdfsigAll, what: 'kill campaign' });
    // Only connection errors are expected while the process is down; a 5xx or a stuck 409 is a bug.
    const answers = workload.transients.filter((a) => !(a.status === 409 && /en curso/.test(a.text)));
    if (answers.length > 0) check.problems.push(`answers that were not final: ${answers.slice(0, 3).map((a) => `${a.status} ${a.text.slice(0, 120)}`).join(' | ')}`);
    return scenarioRow('kill -9 during deliveries, signing requests and folder signing', `kill -9 × ${sello.kills}; in flight at the kill: deliveries ${atKills.deliveries}, requests ${atKills.requests}, files ${atKills.files}`, sello.starts, check, started);
  } finally {
    sello.forceKill();
    await receiver.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
