/**
 * The one place that reads rate-limiter-flexible's internals (docs/DEPENDENCIES.md): the storage behind a
 * RateLimiterMemory. Why: a per-key decision in memory is then synchronous, with nothing to await on the
 * request path (the public `consume()` wraps the same `incrby` in a Promise), and the records map's size is
 * the memory bound of a budget. The layout is checked when a budget is built, so an upgrade that changes it
 * stops the start with a message naming this file instead of misbehaving; test/unit/dependency-internals.test.ts
 * drives it.
 */
import type { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** What RateBudget uses of a RateLimiterMemory's storage component (rate-limiter-flexible's MemoryStorage). */
export interface MemoryStorage {
  /** Add `points` to `key` in its current window (a new window of `durationSec` if none); the key's state after. */
  incrby(key: string, points: number, durationSec: number): RateLimiterRes;
  /** The records: key → record, deleted when the window ends. */
  _storage: Map<string, unknown>;
}

/**
 * The storage behind a RateLimiterMemory. Not public API, so checked once at construction: reading it
 * directly makes a memory decision synchronous (RateLimiterMemory.consume wraps the same `incrby` in a
 * Promise), and its size is the memory bound.
 */
export function memoryStorageOf(limiter: RateLimiterMemory): MemoryStorage {
  const storage = (limiter as unknown as { _memoryStorage?: Partial<MemoryStorage> })._memoryStorage;
  if (!(storage?._storage instanceof Map) || typeof storage.incrby !== 'function') {
    throw new Error('rate-limiter-flexible: memory storage layout changed; update src/pipeline/budgets/rate-limiter-memory-storage.ts (docs/DEPENDENCIES.md)');
  }
  return storage as MemoryStorage;
}
