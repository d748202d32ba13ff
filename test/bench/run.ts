/**
 * `npm run bench`: every benchmark (`test/bench/NAME.bench.ts`) in one run, then
 * docs/PERFORMANCE.md written from their reports and the machine they ran on.
 * `npm run bench -- NAME…` runs the named ones and only prints. A benchmark
 * measures and reports its goals; it never fails on a time.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createReport, type Goal, type Report } from './report.js';

export interface Benchmark {
  /** One line saying what is measured. */
  description: string;
  /** Markdown for docs/PERFORMANCE.md after the figures: how to read them, what it took. */
  notes?: string;
  run(report: Report): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const performanceDoc = path.resolve(here, '../../docs/PERFORMANCE.md');
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length > 0 ? wanted : available;
for (const name of names) {
  if (!available.includes(name)) {
    process.stderr.write(`No existe el benchmark "${name}". Disponibles: ${available.join(', ')}\n`);
    process.exit(2);
  }
}

interface Outcome {
  name: string;
  bench: Benchmark;
  markdown: string;
  goals: readonly Goal[];
  seconds: number;
  failure?: string;
}

const machine = describeMachine();
process.stdout.write(`${machine.map(([k, v]) => `${k}: ${v}`).join('\n')}\n`);
const outcomes: Outcome[] = [];
for (const name of names) {
  const bench = ((await import(pathToFileURL(path.join(here, `${name}.bench.ts`)).href)) as { default: Benchmark }).default;
  process.stdout.write(`\n## ${name}: ${bench.description}\n\n`);
  const report = createReport();
  const t0 = performance.now();
  let failure: string | undefined;
  try {
    await bench.run(report);
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
    process.stderr.write(`El benchmark ${name} falló: ${failure}\n`);
  }
  outcomes.push({ name, bench, markdown: report.markdown(), goals: report.goals(), seconds: (performance.now() - t0) / 1000, ...(failure ? { failure } : {}) });
}

if (wanted.length === 0) {
  writeFileSync(performanceDoc, performanceMarkdown(outcomes));
  process.stdout.write(`\nEscrito ${path.relative(process.cwd(), performanceDoc)}.\n`);
}
if (outcomes.some((o) => o.failure)) process.exit(1);

function describeMachine(): Array<[string, string]> {
  const cpus = os.cpus();
  const release = (() => {
    try {
      return /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os.type();
    } catch {
      return os.type();
    }
  })();
  const disk = (() => {
    try {
      return execFileSync('df', ['-h', '--output=source,fstype,size', os.tmpdir()], { encoding: 'utf8' }).trim().split('\n').pop()!.trim().split(/\s+/).join(' ');
    } catch {
      return 'unknown';
    }
  })();
  return [
    ['CPU', `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`],
    ['memory', `${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB`],
    ['system', `${release}, Linux ${os.release()}`],
    ['temporary folder', `${os.tmpdir()} on ${disk}`],
    ['Node', process.version],
    ['load average at the start', os.loadavg().map((l) => l.toFixed(2)).join(', ')],
    ['date', new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC'],
  ];
}

function performanceMarkdown(results: readonly Outcome[]): string {
  const summary = results.flatMap((o) =>
    o.failure ? [`| ${o.name} | the run failed: ${o.failure} | **no** |`] : o.goals.map((g) => `| ${o.name} | ${g.description} | ${g.met ? 'yes' : '**no**'} |`),
  );
  return [
    '# Performance',
    '',
    'Written by `npm run bench`, which runs every benchmark under `test/bench` and rewrites this',
    'file; run it again on a quiet machine to refresh the figures. `npm run bench -- NAME` runs one',
    'benchmark and only prints. Benchmarks measure; they never fail on a time.',
    '',
    '## Machine',
    '',
    '| | |',
    '|---|---|',
    ...machine.map(([k, v]) => `| ${k} | ${v} |`),
    '',
    '## Goals',
    '',
    '| benchmark | goal | met |',
    '|---|---|---|',
    ...summary,
    '',
    ...results.flatMap((o) => [
      `## ${o.name} — \`npm run bench -- ${o.name}\``,
      '',
      `${o.bench.description} (${o.seconds.toFixed(0)} s).`,
      '',
      ...(o.failure ? [`**The run failed:** ${o.failure}`, ''] : []),
      o.markdown,
      '',
      ...(o.bench.notes ? [o.bench.notes.trim(), ''] : []),
    ]),
  ].join('\n');
}
