import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseAbandonedIdempotencyKeys,
  requestHash,
} from '../../../core/auth/index.js';
import { openStore, type Store } from '../../../core/db/index.js';
import { SelloError } from '../../../core/errors/index.js';
import { tempDir } from '../../helpers/agent.js';

describe('idempotency keys', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = tempDir();
    store = await openStore(path.join(dir, 'sello.db'));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const hash = requestHash({ a: 1 });

  it('claims a new key, then replays the stored response', () => {
    expect(claimIdempotencyKey(store, 'book:1:documents', 'ref-1', hash, 'external_ref')).toEqual({ kind: 'claimed' });
    completeIdempotencyKey(store, 'book:1:documents', 'ref-1', { status: 201, body: '{"id":1}', headers: { Location: '/x' } });
    expect(claimIdempotencyKey(store, 'book:1:documents', 'ref-1', hash, 'external_ref')).toEqual({
      kind: 'replay',
      response: { status: 201, body: '{"id":1}', headers: { Location: '/x' } },
    });
  });

  it('answers a repeat while the first runs with in_progress', () => {
    claimIdempotencyKey(store, 's', 'k', hash, 'external_ref');
    expect(() => claimIdempotencyKey(store, 's', 'k', hash, 'external_ref')).toThrow(expect.objectContaining({ code: 'in_progress', status: 409 }));
  });

  it('answers the same key with another body with validation_failed naming the field', () => {
    claimIdempotencyKey(store, 's', 'k', hash, 'external_ref');
    let thrown: unknown;
    try {
      claimIdempotencyKey(store, 's', 'k', requestHash({ a: 2 }), 'external_ref');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SelloError);
    expect((thrown as SelloError).code).toBe('validation_failed');
    expect(Object.keys((thrown as SelloError).details.fields ?? {})).toEqual(['external_ref']);
  });

  it('keeps scopes apart', () => {
    claimIdempotencyKey(store, 'book:1', 'k', hash, 'external_ref');
    expect(claimIdempotencyKey(store, 'book:2', 'k', requestHash({ other: true }), 'external_ref')).toEqual({ kind: 'claimed' });
  });

  it('frees a key whose first attempt failed (claimed in its transaction), and keys left running by a dead process', () => {
    expect(() =>
      store.transaction(() => {
        claimIdempotencyKey(store, 's', 'failed', hash, 'external_ref');
        throw new Error('the create failed');
      }),
    ).toThrow('the create failed');
    expect(claimIdempotencyKey(store, 's', 'failed', requestHash({ fixed: true }), 'external_ref')).toEqual({ kind: 'claimed' });
    claimIdempotencyKey(store, 's', 'orphan', hash, 'external_ref');
    claimIdempotencyKey(store, 's', 'done', hash, 'external_ref');
    completeIdempotencyKey(store, 's', 'done', { status: 200, body: '', headers: {} });
    expect(releaseAbandonedIdempotencyKeys(store)).toBe(2);
    expect(claimIdempotencyKey(store, 's', 'done', hash, 'external_ref').kind).toBe('replay');
  });

  it('hashes bodies independently of key order', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    expect(requestHash({ a: 1, b: 2 })).toBe(requestHash({ b: 2, a: 1 }));
  });
});
