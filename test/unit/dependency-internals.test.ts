/**
 * The two adapters that read a dependency's internals on purpose (docs/DEPENDENCIES.md) still find what they
 * rely on. An upgrade that changes either layout fails here, naming the adapter, before it quietly slows the
 * server down (every answer streamed) or stops it at start (a rate budget cannot be built).
 */
import { createYoga } from 'graphql-yoga';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { memoryStorageOf } from '../../src/pipeline/budgets/rate-limiter-memory-storage.js';
import { ponyfillBodyBytes } from '../../src/pipeline/transport/ponyfill-body.js';

describe('src/pipeline/transport/ponyfill-body.ts', () => {
  // The Response class Yoga hands plugins and result processors on this Node version.
  const { Response } = createYoga({ logging: false }).fetchAPI;

  it.each([
    ['a string', 'héllo, "wörld"', Buffer.from('héllo, "wörld"', 'utf8')],
    ['a Buffer', Buffer.from([1, 2, 3]), Buffer.from([1, 2, 3])],
    ['a Uint8Array', new Uint8Array([4, 5]), Buffer.from([4, 5])],
    ['no body', null, Buffer.alloc(0)],
  ])('reads the bytes of a Response built from %s', (_what, body, expected) => {
    const bytes = ponyfillBodyBytes(new Response(body));
    expect(bytes, 'the ponyfill Response layout changed: update src/pipeline/transport/ponyfill-body.ts').not.toBeNull();
    expect(Buffer.compare(bytes!, expected)).toBe(0);
  });

  it('leaves a streamed body alone', () => {
    const stream = new ReadableStream({ start: (c) => c.close() });
    expect(ponyfillBodyBytes(new Response(stream))).toBeNull();
  });
});

describe('src/pipeline/budgets/rate-limiter-memory-storage.ts', () => {
  it('finds the storage of a RateLimiterMemory and decides with it as consume() would', async () => {
    const limiter = new RateLimiterMemory({ points: 2, duration: 60, keyPrefix: '' });
    const storage = memoryStorageOf(limiter);
    expect(storage.incrby('k', 1, 60).consumedPoints).toBe(1);
    expect(storage.incrby('k', 1, 60).consumedPoints).toBe(2);
    expect(storage._storage.size).toBe(1);
    // The public API sees the same record: the third point is over the budget of 2.
    await expect(limiter.consume('k')).rejects.toMatchObject({ consumedPoints: 3 });
    expect(storage.incrby('other', 1, 60).msBeforeNext).toBeGreaterThan(59_000);
    expect(storage._storage.size).toBe(2);
  });

  it('refuses, naming the adapter, a limiter whose storage is not what it expects', () => {
    const limiter = new RateLimiterMemory({ points: 1, duration: 1 });
    Object.defineProperty(limiter, '_memoryStorage', { value: {} });
    expect(() => memoryStorageOf(limiter)).toThrow(/rate-limiter-memory-storage\.ts/);
  });
});
