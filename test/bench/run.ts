/**
 * `npm run bench -- NAME…`: runs the named benchmarks (`test/bench/NAME.bench.ts`),
 * or all of them when none is named. Each prints its own table of figures; a
 * benchmark measures, it never fails on a time.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface Benchmark {
  /** One line saying what is measured. */
  description: string;
  run(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
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
for (const name of names) {
  const mod = (await import(pathToFileURL(path.join(here, `${name}.bench.ts`)).href)) as { default: Benchmark };
  process.stdout.write(`\n## ${name}: ${mod.default.description}\n\n`);
  await mod.default.run();
}
