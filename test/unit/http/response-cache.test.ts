import { describe, expect, it } from 'vitest';
import { createResponseCache } from '../../../core/http/jsonapi/response-cache.js';

describe('createResponseCache', () => {
  it('serves a body only while the change marker is the same', () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1000 });
    cache.set('k', '1:1', Buffer.from('body'));
    expect(cache.get('k', '1:1')?.toString()).toBe('body');
    expect(cache.get('k', '2:1')).toBeUndefined();
    // A stale entry is dropped, not revived when the marker comes back.
    expect(cache.get('k', '1:1')).toBeUndefined();
  });

  it('evicts the least recently used entry past maxEntries', () => {
    const cache = createResponseCache({ maxEntries: 2, maxBytes: 1000 });
    cache.set('a', 'm', Buffer.from('A'));
    cache.set('b', 'm', Buffer.from('B'));
    cache.get('a', 'm');
    cache.set('c', 'm', Buffer.from('C'));
    expect(cache.get('b', 'm')).toBeUndefined();
    expect(cache.get('a', 'm')?.toString()).toBe('A');
    expect(cache.get('c', 'm')?.toString()).toBe('C');
  });

  it('keeps the total size under maxBytes and skips bodies too large to keep', () => {
    const cache = createResponseCache({ maxEntries: 100, maxBytes: 80 });
    cache.set('big', 'm', Buffer.alloc(11));
    expect(cache.get('big', 'm')).toBeUndefined();
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'm', Buffer.alloc(10));
    const kept = Array.from({ length: 10 }, (_, i) => cache.get(`k${i}`, 'm')).filter(Boolean);
    expect(kept.length).toBe(8);
  });
});
