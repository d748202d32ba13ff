/**
 * `npm run test:faults` (issue 8, item 1): scripted faults against real `sello serve`
 * processes, each followed by a restart and a checker that proves no event, signature or file
 * was lost or duplicated (checker.ts). Prints one table at the end. Knobs: FAULTS_SEED replays a
 * run, FAULTS_KILLS changes the number of kills (at least 20), CI=true a smaller workload.
 * See docs/RELIABILITY.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';
import { renderTable, type Row } from './checker.js';
import { faultsSettings } from './harness.js';
import { dbLock } from './db-lock.js';
import { fullDisk } from './full-disk.js';
import { killCampaign } from './kill-campaign.js';
import { fiscalKill } from './fiscal-kill.js';
import { misbehavingReceivers } from './receivers.js';
import { tokenRemoved } from './token.js';

const settings = faultsSettings();
const rows: Row[] = [];
let pki: TestPki;

const log = (line: string) => console.log(`[faults] ${line}`);

beforeAll(async () => {
  log(`seed ${settings.seed} (FAULTS_SEED=${settings.seed} replays it), ${settings.kills} kills, ${settings.ci ? 'CI size' : 'full size'}`);
  pki = await createTestPki();
});

afterAll(async () => {
  await pki?.cleanup();
  console.log(`\nFaults (seed ${settings.seed}):\n\n${renderTable(rows)}\n`);
});

/** Records the row, then fails the test with the checker's problems, if any (a skipped scenario says why). */
function report(row: Row): void {
  rows.push(row);
  if (row.result === 'skipped') {
    log(`${row.scenario}: skipped (${row.check.problems.join('; ')})`);
    return;
  }
  if (row.result === 'FAIL') log(`${row.scenario}:\n  ${row.check.problems.slice(0, 40).join('\n  ')}`);
  expect(row.check.problems).toEqual([]);
}

/** Runs a scenario; one that throws (a timeout, an unexpected answer) still gets its FAIL row. */
async function scenario(name: string, run: () => Promise<Row>): Promise<void> {
  let row: Row;
  try {
    row = await run();
  } catch (err) {
    rows.push({ scenario: name, faults: '–', restarts: '–', check: { expected: {}, found: {}, lost: {}, duplicated: {}, problems: [String(err)] }, result: 'FAIL' });
    throw err;
  }
  report(row);
}

describe('faults against a real sello serve', () => {
  it('kill -9 at random moments during deliveries, signing requests and folder signing', () => scenario('kill -9 campaign', () => killCampaign(pki, settings, log)));

  it('a full disk under the data folder and the watched folder', () => scenario('disk full', () => fullDisk(pki, settings, log)));

  it('the store locked by another process for longer than the busy timeout', () => scenario('database locked', () => dbLock(pki, settings, log)));

  it('receivers that hang, reset connections and answer slowly', () => scenario('misbehaving receivers', () => misbehavingReceivers(pki, settings, log)));

  it('a token pulled out mid-signing and plugged back in', () => scenario('token removed', () => tokenRemoved(pki, settings, log)));

  it('kill -9 with invoices in flight to the SRI', () => scenario('fiscal kill', () => fiscalKill(pki, settings, log)));
});
