import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

/**
 * One direction of imports (ENGINEERING.md): main → core → native; the renderer
 * reaches core only over HTTP. `core/errors` is a leaf that every layer may use, so
 * `native/` can throw coded errors.
 */
const allowed: Record<string, Array<(target: string) => boolean>> = {
  core: [(t) => t.startsWith('core/'), (t) => t.startsWith('native/')],
  native: [(t) => t.startsWith('native/'), (t) => t.startsWith('core/errors/')],
  // main/index.cjs, a launcher like bin/sello.mjs, asks bin/build-state.mjs whether dist/ is current.
  main: [(t) => t.startsWith('main/'), (t) => t.startsWith('core/'), (t) => t === 'bin/build-state.mjs'],
  renderer: [(t) => t.startsWith('renderer/')],
};

function sources(dir: string): string[] {
  const abs = path.join(repoRoot, dir);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name))
    .map((e) => path.relative(repoRoot, path.join(e.parentPath, e.name)));
}

function relativeImports(file: string): string[] {
  // Comments may show imports as examples: leave them out.
  const text = fs
    .readFileSync(path.join(repoRoot, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const specs = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specs;
}

describe('layering', () => {
  for (const [layer, rules] of Object.entries(allowed)) {
    it(`${layer}/ imports only what its layer may`, () => {
      const breaches: string[] = [];
      for (const file of sources(layer)) {
        for (const spec of relativeImports(file)) {
          if (spec === 'electron' && file !== 'main/index.ts') breaches.push(`${file} → electron`);
          if (!spec.startsWith('.')) continue;
          const target = path.relative(repoRoot, path.resolve(repoRoot, path.dirname(file), spec));
          if (!rules.some((ok) => ok(target))) breaches.push(`${file} → ${target}`);
        }
      }
      expect(breaches).toEqual([]);
    });
  }
});
