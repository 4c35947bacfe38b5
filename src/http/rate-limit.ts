/**
 * Token buckets keyed by string (API key id, client address), with bounded
 * memory.
 *
 * A bucket holds at most `burst` tokens and refills at `ratePerSecond`. A
 * bucket idle for `burst / ratePerSecond` seconds is full again, which is
 * the same as having no bucket, so such buckets are evicted without changing
 * any decision. The map is kept in last-use order (delete + set on every
 * touch), so idle buckets are found at its head; on top of that, a hard cap
 * drops the least recently used bucket when `maxEntries` is reached.
 */

/** Options of a {@link TokenBuckets} store. */
export interface TokenBucketOptions {
  ratePerSecond: number;
  burst: number;
  /** Hard cap on tracked keys. */
  maxEntries: number;
  /** Clock in ms. */
  now: () => number;
}

interface Bucket {
  tokens: number;
  /** Time of the last refill, ms. */
  at: number;
}

/** Outcome of taking a token. */
export interface TakeResult {
  allowed: boolean;
  /** Whole seconds until one token is available again (≥ 1 when refused). */
  retryAfterSeconds: number;
}

export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #fullAfterMs: number;

  constructor(readonly options: TokenBucketOptions) {
    const { ratePerSecond, burst, maxEntries } = options;
    if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) throw new Error('TokenBuckets: ratePerSecond must be a positive number');
    if (!Number.isInteger(burst) || burst < 1) throw new Error('TokenBuckets: burst must be a positive integer');
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error('TokenBuckets: maxEntries must be a positive integer');
    this.#fullAfterMs = (burst / ratePerSecond) * 1000;
  }

  /** Number of tracked (not full) buckets. */
  get size(): number {
    return this.#buckets.size;
  }

  #refilled(key: string, now: number): Bucket {
    const existing = this.#buckets.get(key);
    const { ratePerSecond, burst } = this.options;
    const bucket = existing
      ? { tokens: Math.min(burst, existing.tokens + ((now - existing.at) / 1000) * ratePerSecond), at: now }
      : { tokens: burst, at: now };
    return bucket;
  }

  #store(key: string, bucket: Bucket, now: number): void {
    this.#buckets.delete(key);
    this.#evictIdle(now);
    if (this.#buckets.size >= this.options.maxEntries) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    this.#buckets.set(key, bucket);
  }

  /** Drop buckets that have been idle long enough to be full (they start at the map's head). */
  #evictIdle(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (now - bucket.at < this.#fullAfterMs) break;
      this.#buckets.delete(key);
    }
  }

  #retryAfter(tokens: number): number {
    return Math.max(1, Math.ceil((1 - tokens) / this.options.ratePerSecond));
  }

  /** Take one token for `key`. */
  take(key: string): TakeResult {
    const now = this.options.now();
    const bucket = this.#refilled(key, now);
    if (bucket.tokens < 1) {
      this.#store(key, bucket, now);
      return { allowed: false, retryAfterSeconds: this.#retryAfter(bucket.tokens) };
    }
    bucket.tokens -= 1;
    this.#store(key, bucket, now);
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** Whether a token is available, without taking it. */
  peek(key: string): TakeResult {
    const existing = this.#buckets.get(key);
    if (!existing) return { allowed: true, retryAfterSeconds: 0 };
    const bucket = this.#refilled(key, this.options.now());
    return bucket.tokens >= 1 ? { allowed: true, retryAfterSeconds: 0 } : { allowed: false, retryAfterSeconds: this.#retryAfter(bucket.tokens) };
  }
}

/**
 * The bucket key of a client address: IPv4-mapped IPv6 as plain IPv4, and
 * IPv6 reduced to its /64 prefix (one host usually owns a whole /64, so
 * per-address buckets would be trivially sidestepped).
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.toLowerCase().split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = address.includes('::') ? [...headParts, ...Array(Math.max(0, 8 - headParts.length - tailParts.length)).fill('0'), ...tailParts] : headParts;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
