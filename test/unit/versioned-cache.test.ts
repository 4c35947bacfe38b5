import { describe, expect, it } from 'vitest';
import { VersionedCache, type DataStamp } from '../../src/shared/versioned-cache.js';

/** A stamp as the catalogue hands it out: marked once the merchant it stands for changed. */
const stamp = (): { superseded?: boolean } => ({});

/** The value kept for `key`, or `build()`'s, kept under `s`. */
function getOrBuild<V>(cache: VersionedCache<string, V>, key: string, build: () => V, s: DataStamp | null = null): V {
  const { value, token } = cache.peek(key);
  if (value !== undefined) return value;
  const built = build();
  cache.put(key, built, token, s);
  return built;
}

describe('VersionedCache', () => {
  it('serves a value until the shared version changes, then rebuilds', () => {
    let version = 'a';
    const cache = new VersionedCache<string, number>(() => version);
    let builds = 0;
    const get = () => getOrBuild(cache, 'k', () => ++builds);
    expect(get()).toBe(1);
    expect(get()).toBe(1);
    version = 'b';
    expect(get()).toBe(2);
  });

  it('never keeps a value built from data older than the current shared version', () => {
    let version = 'a';
    const cache = new VersionedCache<string, string>(() => version);
    const { value, token } = cache.peek('k');
    expect(value).toBeUndefined();
    version = 'b'; // a commit while the value was being built
    cache.put('k', 'stale', token, null);
    expect(cache.peek('k').value).toBeUndefined();
    cache.put('k', 'fresh', cache.peek('k').token, null);
    expect(cache.peek('k').value).toBe('fresh');
  });

  it("a superseded stamp drops its merchant's entries only; the shared version drops every entry", () => {
    let version = 1;
    const cache = new VersionedCache<string, string>(() => version);
    const a = stamp();
    const b = stamp();
    const t = cache.peek('x').token;
    cache.put('a1', 'A1', t, a);
    cache.put('a2', 'A2', t, a);
    cache.put('b1', 'B1', t, b);
    a.superseded = true; // merchant A changed
    expect(cache.peek('a1').value).toBeUndefined();
    expect(cache.peek('a2').value).toBeUndefined();
    expect(cache.peek('b1').value).toBe('B1');
    expect(cache.size).toBe(1); // A's entries are gone, not only hidden
    version = 2; // a change for everyone
    expect(cache.peek('b1').value).toBeUndefined();
  });

  it('never keeps a value built across a change of its merchant', () => {
    const cache = new VersionedCache<string, string>(() => 'v');
    const a = stamp();
    const { token } = cache.peek('k');
    a.superseded = true; // the merchant changed while the value was being built
    cache.put('k', 'stale', token, a);
    expect(cache.peek('k').value).toBeUndefined();
    const next = stamp();
    cache.put('k', 'fresh', cache.peek('k').token, next);
    expect(cache.peek('k').value).toBe('fresh');
  });

  it('stays within its entry and weight budgets', () => {
    const cache = new VersionedCache<string, string>(() => 'v', 3, { weigh: (s) => s.length, max: 10 });
    const t = cache.peek('x').token;
    cache.put('a', 'xxxx', t, null);
    cache.put('b', 'xxxx', t, null);
    cache.put('c', 'xxxx', t, null); // 12 > 10: the oldest goes first
    expect(cache.peek('a').value).toBeUndefined();
    expect(cache.peek('b').value).toBe('xxxx');
    expect(cache.peek('c').value).toBe('xxxx');
    cache.put('huge', 'x'.repeat(11), t, null); // heavier than the whole budget: not kept
    expect(cache.peek('huge').value).toBeUndefined();
    expect(cache.peek('c').value).toBe('xxxx');
  });

  it('a superseded entry gives its weight back', () => {
    const cache = new VersionedCache<string, string>(() => 'v', 10, { weigh: (s) => s.length, max: 8 });
    const t = cache.peek('x').token;
    const a = stamp();
    cache.put('a', 'xxxx', t, a);
    cache.put('b', 'xxxx', t, null);
    a.superseded = true;
    expect(cache.peek('a').value).toBeUndefined();
    cache.put('c', 'xxxx', t, null); // fits in the weight A gave back: B stays
    expect(cache.peek('b').value).toBe('xxxx');
    expect(cache.peek('c').value).toBe('xxxx');
  });

  it('driven far past its entry bound, keeps exactly the newest entries (random traffic over many keys and merchants)', () => {
    const cache = new VersionedCache<string, number>(() => 'v', 1_000);
    for (let i = 0; i < 25_000; i += 1) getOrBuild(cache, `k${i}`, () => i, stamp());
    expect(cache.size).toBe(1_000);
    expect(cache.peek('k24999').value).toBe(24_999);
    expect(cache.peek('k24000').value).toBe(24_000);
    expect(cache.peek('k23999').value).toBeUndefined();
  });
});
