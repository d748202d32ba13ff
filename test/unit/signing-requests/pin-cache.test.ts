import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../core/db/index.js';
import { loadSecretBox } from '../../../core/secrets/index.js';
import { createPinCache } from '../../../core/signing/requests/index.js';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-pins-'));
  store = await openStore(path.join(dir, 'sello.db'));
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('createPinCache', () => {
  it('keeps a PIN in memory until its time is up, and never writes it', () => {
    let now = 1_000;
    const pins = createPinCache({ store, secrets: loadSecretBox(dir), ttlMs: 60_000, now: () => now });
    pins.set('serial-1', '1234');
    expect(pins.get('serial-1')).toBe('1234');
    now += 59_999;
    expect(pins.has('serial-1')).toBe(true);
    now += 2;
    expect(pins.get('serial-1')).toBeUndefined();
    expect(store.sqlite.prepare("select count(*) as n from settings where name like 'token_pin:%'").get()).toEqual({ n: 0 });
  });

  it('writes a remembered PIN sealed, reads it back after the memory expires, and forgets it on demand', () => {
    let now = 0;
    const pins = createPinCache({ store, secrets: loadSecretBox(dir), ttlMs: 10, now: () => now });
    pins.set('serial-2', '5678', { remember: true });
    const row = store.sqlite.prepare("select value from settings where name = 'token_pin:serial-2'").get() as { value: string };
    expect(row.value).not.toContain('5678');
    now += 100;
    expect(pins.get('serial-2')).toBe('5678');
    pins.forget('serial-2');
    expect(pins.get('serial-2')).toBeUndefined();
  });

  it('tells its listeners which token got a PIN, until they stop listening', () => {
    const pins = createPinCache({ store, secrets: loadSecretBox(dir), ttlMs: 60_000 });
    const heard: string[] = [];
    const stop = pins.onSet((serial) => heard.push(serial));
    pins.set('serial-3', '1111');
    pins.forget('serial-3');
    pins.set('serial-4', '2222', { remember: true });
    stop();
    pins.set('serial-3', '3333');
    expect(heard).toEqual(['serial-3', 'serial-4']);
  });
});
