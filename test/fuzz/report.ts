/**
 * The campaign's tables, in Markdown (they go into docs/RELIABILITY.md as they are): class of
 * mutation × outcome, then the findings grouped by what they look like, with reproducers.
 */
import type { CampaignResult } from './campaign.js';
import type { FuzzConfig } from './config.js';
import { findingKey, type MutantRecord } from './findings.js';

const MB = 1024 * 1024;

function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

export function outcomeTable(records: readonly MutantRecord[]): string {
  const refusals = [...new Set(records.map((r) => r.outcome).filter((o) => o.startsWith('refused: ')))].sort();
  const columns = ['signed, valid', ...refusals, 'finding'];
  const classes = [...new Set(records.map((r) => r.mutation))].sort();
  const count = (rs: readonly MutantRecord[], outcome: string): number => rs.filter((r) => r.outcome === outcome).length;
  const lines = [
    row(['mutation', 'mutants', ...columns.map((c) => c.replace('refused: ', ''))]),
    row(['---', ...['', ...columns].map(() => '---:')]),
  ];
  for (const c of classes) {
    const rs = records.filter((r) => r.mutation === c);
    lines.push(row([c, rs.length, ...columns.map((o) => count(rs, o) || '')]));
  }
  lines.push(row(['**all**', `**${records.length}**`, ...columns.map((o) => `**${count(records, o)}**`)]));
  return lines.join('\n');
}

export function findingsTable(records: readonly MutantRecord[], seed: number): string {
  const groups = new Map<string, { records: Set<MutantRecord>; stages: Set<string> }>();
  for (const r of records) {
    for (const f of r.findings) {
      const g = groups.get(findingKey(f)) ?? { records: new Set<MutantRecord>(), stages: new Set<string>() };
      g.records.add(r);
      g.stages.add(f.stage ?? '–');
      groups.set(findingKey(f), g);
    }
  }
  if (groups.size === 0) return 'No findings.';
  const lines = [row(['mutants', 'finding', 'stages', 'mutations', `reproducers (FUZZ_SEED=${seed} FUZZ_ONLY=…)`]), row(['---:', '---', '---', '---', '---'])];
  for (const [key, g] of [...groups].sort((a, b) => b[1].records.size - a[1].records.size)) {
    const rs = [...g.records];
    const mutations = [...new Set(rs.map((r) => r.mutation))].slice(0, 4).join('; ');
    lines.push(row([rs.length, key.replace(/\|/g, '\\|'), [...g.stages].join(', '), mutations, rs.slice(0, 3).map((r) => r.index).join(', ')]));
  }
  return lines.join('\n');
}

function slowest(records: readonly MutantRecord[]): string {
  return [...records]
    .sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0))
    .slice(0, 3)
    .map((r) => `#${r.index} ${Math.round(r.ms ?? 0)} ms (${r.mutation}, ${r.seedName})`)
    .join('; ');
}

export function summary(cfg: FuzzConfig, result: CampaignResult, seedCount: number): string {
  const ran = result.records.length;
  const withFindings = result.records.filter((r) => r.findings.length > 0).length;
  const peaks = result.records.map((r) => r.peakRssBytes ?? 0);
  const times = result.records.map((r) => r.ms ?? 0).sort((a, b) => a - b);
  const p = (q: number): number => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
  return [
    `seed ${cfg.seed}; ${ran} of ${result.planned} mutants${result.stoppedByTimeLimit ? ` (time limit of ${cfg.timeLimitMs / 1000} s reached)` : ''} of ${seedCount} seed files in ${Math.round(result.elapsedMs / 1000)} s`,
    `${result.judged} signed outputs judged by pdfsig and qpdf; ${withFindings} mutants with findings; ${result.childStarts} child processes started`,
    `time in children ${Math.round(result.childMs / 1000)} s (${cfg.children} at a time), in pdfsig and qpdf ${Math.round(result.checkMs / 1000)} s (${cfg.checkers} at a time)`,
    `per mutant: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms; highest peak RSS ${Math.round(Math.max(0, ...peaks) / MB)} MB (limits: ${cfg.maxRssBytes / MB} MB resident, ${cfg.maxHeapMb} MB of heap, ${cfg.deadlineMs / 1000} s per call)`,
    `slowest: ${slowest(result.records)}`,
  ].join('\n');
}
