import { describe, expect, it } from 'vitest';
import { VersionedCache } from '../../src/shared/versioned-cache.js';

describe('VersionedCache', () => {
  it('serves a value until the version changes, then rebuilds', () => {
    let version = 'a';
    const cache = new VersionedCache<string, number>(() => version);
    let builds = 0;
    const get = () => cache.get('k', () => ++builds);
    expect(get()).toBe(1);
    expect(get()).toBe(1);
    version = 'b';
    expect(get()).toBe(2);
  });

  it('never keeps a value built from data older than the current version', () => {
    let version = 'a';
    const cache = new VersionedCache<string, string>(() => version);
    const { value, token } = cache.peek('k');
    expect(value).toBeUndefined();
    version = 'b'; // a commit while the value was being built
    cache.put('k', 'stale', token);
    expect(cache.peek('k').value).toBeUndefined();
    cache.put('k', 'fresh', cache.peek('k').token);
    expect(cache.peek('k').value).toBe('fresh');
  });

  it('stays within its entry and weight budgets', () => {
    const cache = new VersionedCache<string, string>(() => 'v', 3, { weigh: (s) => s.length, max: 10 });
    const t = cache.peek('x').token;
    cache.put('a', 'xxxx', t);
    cache.put('b', 'xxxx', t);
    cache.put('c', 'xxxx', t); // 12 > 10: the oldest goes first
    expect(cache.peek('a').value).toBeUndefined();
    expect(cache.peek('b').value).toBe('xxxx');
    expect(cache.peek('c').value).toBe('xxxx');
    cache.put('huge', 'x'.repeat(11), t); // heavier than the whole budget: not kept
    expect(cache.peek('huge').value).toBeUndefined();
    expect(cache.peek('c').value).toBe('xxxx');
  });

  it('driven far past its entry bound, keeps exactly the newest entries (random traffic over many keys)', () => {
    const cache = new VersionedCache<string, number>(() => 'v', 1_000);
    for (let i = 0; i < 25_000; i += 1) cache.get(`k${i}`, () => i);
    expect(cache.size).toBe(1_000);
    expect(cache.peek('k24999').value).toBe(24_999);
    expect(cache.peek('k24000').value).toBe(24_000);
    expect(cache.peek('k23999').value).toBeUndefined();
  });
});
