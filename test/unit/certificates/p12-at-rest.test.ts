import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sealStoredP12 } from '../../../core/certificates/index.js';
import { openStore, type Store } from '../../../core/db/index.js';
import { loadSecretBox } from '../../../core/secrets/index.js';
import { tempDir } from '../../helpers/agent.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function insertClear(s: Store, id: string, p12: Buffer | null): void {
  s.sqlite
    .prepare(
      `insert into certificates (id, environment, source, fingerprint, certificate, chain, subject_name, serial_number, not_before, not_after, p12, created_at)
       values (?, 'live', ?, ?, x'00', '[]', 'X', '1', '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', ?, '2026-01-01T00:00:00.000Z')`,
    )
    .run(id, p12 ? 'p12' : 'token', crypto.randomUUID(), p12);
}

describe('sealStoredP12', () => {
  it('seals the .p12 kept in clear, once, and does not touch the key when there is nothing to seal', async () => {
    const dir = tempDir();
    store = await openStore(path.join(dir, 'sello.db'));
    let loads = 0;
    const secrets = () => {
      loads++;
      return loadSecretBox(dir);
    };
    expect(sealStoredP12(store, secrets)).toBe(0);
    expect(loads).toBe(0);
    expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);

    const a = crypto.randomBytes(2500);
    const b = crypto.randomBytes(900);
    insertClear(store, 'a', a);
    insertClear(store, 'b', b);
    insertClear(store, 'token', null);
    expect(sealStoredP12(store, secrets)).toBe(2);
    expect(sealStoredP12(store, secrets)).toBe(0);
    const rows = store.sqlite.prepare('select id, p12, p12_sealed from certificates order by id').all() as Array<{ id: string; p12: Buffer | null; p12_sealed: string | null }>;
    expect(rows.map((r) => [r.id, r.p12, r.p12_sealed === null])).toEqual([
      ['a', null, false],
      ['b', null, false],
      ['token', null, true],
    ]);
    const box = loadSecretBox(dir);
    expect(box.openBytes(rows[0]!.p12_sealed!).equals(a)).toBe(true);
    expect(box.openBytes(rows[1]!.p12_sealed!).equals(b)).toBe(true);
    // secure_delete is back to what it was for the rest of the store's life.
    expect(store.sqlite.pragma('secure_delete', { simple: true })).toBe(0);
  });
});
