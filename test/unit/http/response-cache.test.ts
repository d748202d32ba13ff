import { describe, expect, it } from 'vitest';
import { createResponseCache, type CachedRead } from '../../../core/http/jsonapi/response-cache.js';

const read = (body: Buffer): CachedRead => ({ body, scope: undefined });

describe('createResponseCache', () => {
  it('serves a body only while the change marker is the same', () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1000 });
    cache.set('k', '1:1', read(Buffer.from('body')));
    expect(cache.get('k', '1:1')?.body.toString()).toBe('body');
    expect(cache.get('k', '2:1')).toBeUndefined();
    // A stale entry is dropped, not revived when the marker comes back.
    expect(cache.get('k', '1:1')).toBeUndefined();
  });

  it('evicts the least recently used entry past maxEntries', () => {
    const cache = createResponseCache({ maxEntries: 2, maxBytes: 1000 });
    cache.set('a', 'm', read(Buffer.from('A')));
    cache.set('b', 'm', read(Buffer.from('B')));
    cache.get('a', 'm');
    cache.set('c', 'm', read(Buffer.from('C')));
    expect(cache.get('b', 'm')).toBeUndefined();
    expect(cache.get('a', 'm')?.body.toString()).toBe('A');
    expect(cache.get('c', 'm')?.body.toString()).toBe('C');
  });

  it('keeps the total size under maxBytes and skips bodies too large to keep', () => {
    const cache = createResponseCache({ maxEntries: 100, maxBytes: 80 });
    cache.set('big', 'm', read(Buffer.alloc(11)));
    expect(cache.get('big', 'm')).toBeUndefined();
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'm', read(Buffer.alloc(10)));
    const kept = Array.from({ length: 10 }, (_, i) => cache.get(`k${i}`, 'm')).filter(Boolean);
    expect(kept.length).toBe(8);
  });
});
