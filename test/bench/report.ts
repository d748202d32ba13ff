/**
 * What a benchmark reports: tables, lines and goals, printed as they come and kept as
 * Markdown, so that `npm run bench` can write them into docs/PERFORMANCE.md unchanged.
 */
export interface Report {
  /** A Markdown table; numbers are right-aligned. */
  table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): void;
  /** A line of prose (Markdown). */
  text(line: string): void;
  /** A goal of the issue and whether this run met it. */
  goal(description: string, met: boolean): void;
}

export interface Goal {
  description: string;
  met: boolean;
}

export interface RecordedReport extends Report {
  markdown(): string;
  goals(): readonly Goal[];
}

export function createReport(print: (text: string) => void = (t) => process.stdout.write(t)): RecordedReport {
  const blocks: string[] = [];
  const goals: Goal[] = [];
  const add = (block: string): void => {
    blocks.push(block);
    print(`${block}\n\n`);
  };
  return {
    table(header, rows) {
      const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
      const cell = (v: string | number): string => (typeof v === 'number' ? v.toLocaleString('en-US') : v).replaceAll('|', '\\|');
      add(
        [
          `| ${header.join(' | ')} |`,
          `|${numeric.map((n) => (n ? '---:' : '---')).join('|')}|`,
          ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
        ].join('\n'),
      );
    },
    text(line) {
      add(line);
    },
    goal(description, met) {
      goals.push({ description, met });
      add(`Goal: ${description} — **${met ? 'met' : 'not met'}**.`);
    },
    markdown: () => blocks.join('\n\n'),
    goals: () => goals,
  };
}
