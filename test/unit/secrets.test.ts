import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSecretBox } from '../../core/secrets/index.js';
import { tempDir } from '../helpers/agent.js';

describe('loadSecretBox', () => {
  it('creates a 0600 key once and opens what it sealed, across loads', () => {
    const dir = tempDir();
    const sealed = loadSecretBox(dir).seal('mi secreto ñ');
    expect(sealed).not.toContain('secreto');
    expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadSecretBox(dir).open(sealed)).toBe('mi secreto ñ');
  });

  it('refuses a tampered value', () => {
    const box = loadSecretBox(tempDir());
    const sealed = box.seal('abc');
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    expect(() => box.open(tampered)).toThrow();
  });

  it('seals bytes (a .p12) that only the same key opens, and seal/open still read what sealBytes wrote as text', () => {
    const dir = tempDir();
    const bytes = Buffer.from([0x30, 0x82, 0x00, 0xff, 0xfe, 0x00, 0x01]);
    const sealed = loadSecretBox(dir).sealBytes(bytes);
    expect(sealed).toMatch(/^v1\./);
    expect(loadSecretBox(dir).openBytes(sealed).equals(bytes)).toBe(true);
    expect(() => loadSecretBox(tempDir()).openBytes(sealed)).toThrow();
    const text = loadSecretBox(dir).seal('contraseña');
    expect(loadSecretBox(dir).openBytes(text).toString('utf8')).toBe('contraseña');
  });
});
