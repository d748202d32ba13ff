/**
 * `npm run test:fuzz` (issue 15, point 10): seeded mutants of the PDF corpus against what the
 * agent does with an untrusted file. Each mutant must give, at every stage, a result or a
 * SelloError with a known code — no crash, no hang past the deadline, no memory past the limit —
 * and every file signed must be valid for pdfsig and sound for qpdf. See config.ts for the sizes
 * and docs/RELIABILITY.md ("Fuzz") for how to read and replay a run.
 *
 *   SELLO_PDF_CORPUS=../shared/pdf-corpus npm run test:fuzz
 *   FUZZ_SEED=123 FUZZ_ONLY=456 npm run test:fuzz     # one mutant again
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testPdfSigner } from '../helpers/pdf-signer.js';
import { runCampaign } from './campaign.js';
import { fuzzConfig } from './config.js';
import { findingsTable, outcomeTable, summary } from './report.js';
import { loadSeeds } from './seeds.js';
import { zlibBomb } from './zlib-bomb.js';

const cfg = fuzzConfig(process.env);
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

describe('fuzz: mutants of the PDF corpus against inspect, sign and verify', () => {
  it(`no crash, no hang, bounded memory; every signed output valid per pdfsig and qpdf (seed ${cfg.seed})`, async () => {
    const signer = testPdfSigner();
    const seeds = await loadSeeds(signer, cfg.corpusDir);
    const bomb = await zlibBomb();
    const findingsDir = mkdtempSync(path.join(tmpdir(), `sello-fuzz-${cfg.seed}-`));
    log(`[fuzz] seed ${cfg.seed}; ${cfg.only ? `mutants ${cfg.only.join(', ')}` : `${cfg.runs} mutants`}; ${seeds.length} seed files${cfg.corpusDir ? '' : ' (generated only: SELLO_PDF_CORPUS not set)'}; findings go to ${findingsDir}`);

    const result = await runCampaign(cfg, seeds, bomb, { type: 'init', keyPem: signer.keyPem, certPem: signer.certPem }, findingsDir, log);

    const findings = findingsTable(result.records, cfg.seed);
    log(`\n[fuzz] ${summary(cfg, result, seeds.length).replace(/\n/g, '\n[fuzz] ')}\n\n${outcomeTable(result.records)}\n\n${findings}\n`);
    const bad = result.records.filter((r) => r.findings.length > 0);
    if (bad.length > 0) log(`[fuzz] reproducers and reports in ${findingsDir}`);
    else rmSync(findingsDir, { recursive: true, force: true });
    expect(bad.length, `${bad.length} mutants with findings (files in ${findingsDir}):\n${findings}`).toBe(0);
  });
});
