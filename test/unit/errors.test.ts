import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalog, SelloError } from '../../core/errors/index.js';
import { repoRoot } from '../helpers/cli.js';

describe('error catalog', () => {
  it('documents every code in docs/errors.md with its status', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs/errors.md'), 'utf8');
    const missing = Object.entries(errorCatalog)
      .filter(([code, entry]) => !doc.includes(`| \`${code}\` | ${entry.status} |`))
      .map(([code]) => code);
    expect(missing).toEqual([]);
  });

  it('has a Spanish and an English text for every code', () => {
    for (const [code, entry] of Object.entries(errorCatalog)) {
      expect(entry.es.length, code).toBeGreaterThan(5);
      expect(entry.en.length, code).toBeGreaterThan(5);
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
    }
  });

  it('gives a SelloError its catalog status and text unless told otherwise', () => {
    const err = new SelloError('pin_incorrect');
    expect(err.status).toBe(400);
    expect(err.text('es')).toBe(errorCatalog.pin_incorrect.es);
    expect(err.text('en')).toBe(errorCatalog.pin_incorrect.en);
    const specific = new SelloError('page_out_of_range', { detail: 'El PDF tiene 3 páginas.', detailEn: 'The PDF has 3 pages.' });
    expect(specific.message).toBe('El PDF tiene 3 páginas.');
    expect(specific.text('en')).toBe('The PDF has 3 pages.');
  });
});
