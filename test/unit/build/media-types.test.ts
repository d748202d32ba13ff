/**
 * The bundle gives mime-types (Koa's media types) a smaller mime-db (scripts/build.mjs,
 * usedMediaTypes): mime-types built on it must answer every question as on the whole one.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { usedMediaTypes } from '../../../scripts/build.mjs';

const require = createRequire(import.meta.url);

type MimeTypes = {
  lookup(p: string): string | false;
  extension(t: string): string | false;
  charset(t: string): string | false;
  contentType(t: string): string | false;
  extensions: Record<string, string[]>;
  types: Record<string, string>;
};

/** mime-types' own code, loaded with `db` as its mime-db. */
function mimeTypesOn(db: unknown): MimeTypes {
  const file = require.resolve('mime-types');
  const source = fs.readFileSync(file, 'utf8');
  const module = { exports: {} as MimeTypes };
  const requireFor = (id: string): unknown => (id === 'mime-db' ? db : createRequire(file)(id));
  new Function('exports', 'require', 'module', '__filename', '__dirname', source)(module.exports, requireFor, module, file, path.dirname(file));
  return module.exports;
}

describe('the media types in the bundle', () => {
  const full = require('mime-db') as Record<string, { extensions?: string[] }>;
  const whole = mimeTypesOn(full);
  const bundled = mimeTypesOn(usedMediaTypes(full));

  it('are fewer', () => {
    expect(Object.keys(usedMediaTypes(full)).length).toBeLessThan(Object.keys(full).length / 2);
  });

  it('give mime-types the same answers for every type and extension of mime-db', () => {
    expect(bundled.extensions).toEqual(whole.extensions);
    expect(bundled.types).toEqual(whole.types);
    const extensions = Object.values(full).flatMap((t) => t.extensions ?? []);
    for (const ext of [...extensions, 'json', 'html', 'pdf', 'xml', 'nada', '']) {
      expect(bundled.lookup(`x.${ext}`), ext).toBe(whole.lookup(`x.${ext}`));
      expect(bundled.contentType(ext), ext).toBe(whole.contentType(ext));
    }
    for (const type of [...Object.keys(full), 'application/vnd.api+json', 'text/x-nada', 'nada']) {
      expect(bundled.extension(type), type).toBe(whole.extension(type));
      expect(bundled.charset(type), type).toBe(whole.charset(type));
      expect(bundled.contentType(type), type).toBe(whole.contentType(type));
    }
  });
});
