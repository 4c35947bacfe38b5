/**
 * Rate-limit budgets (contract §4 RATE_LIMITED, §6 "Shared limits") on
 * rate-limiter-flexible: in process memory, or in Redis shared by every
 * replica with each replica's memory as the fallback.
 *
 * Model: a fixed window per key. rate-limiter-flexible counts `points`
 * consumptions per key in a window of `duration` seconds that starts with the
 * key's first consumption; the (points+1)-th consumption inside the window
 * is refused until the window ends (that remaining time is the Retry-After).
 * Windows are whole seconds because Redis keys expire in whole seconds there
 * (`EX`); a window under one second would never expire in Redis.
 *
 * Shared store invariants (REDIS_URL):
 * - One budget per key across replicas: every replica increments the same
 *   Redis counter (one atomic Lua script per decision).
 * - Redis trouble never fails or stalls a request: commands fail at once
 *   while disconnected (no offline queue) and after `commandTimeoutMs` on a
 *   connection that stopped answering; rate-limiter-flexible then decides
 *   with the `insuranceLimiter` (this replica's memory budget). After the
 *   first failure the replica stops asking Redis (no per-request timeout
 *   while it is down) and probes it once a second; the first successful probe
 *   switches back to the shared budget.
 * - One warning per outage (not per request), one info line on recovery, and
 *   metrics: `gateway_rate_limit_store_up` (1/0) and
 *   `gateway_rate_limit_fallback_total{budget}` (decisions made in memory
 *   while Redis was configured but unreachable).
 *
 * Memory is bounded: a memory record disappears when its window ends, and at
 * most `maxEntries` keys are tracked per budget; keys beyond that share one
 * overflow record (stricter for them, never more lenient). Redis bounds
 * itself: every key carries the window's expiry.
 */
import type { Tracer } from '@opentelemetry/api';
import { Redis, type Command } from 'ioredis';
import { endWithError, startClientSpan } from '../../shared/tracing.js';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { memoryStorageOf, type MemoryStorage } from './rate-limiter-memory-storage.js';

/** A fixed-window budget as rate-limiter-flexible takes it. */
export interface WindowBudget {
  /** Requests allowed per window. */
  points: number;
  /** Window length in whole seconds (≥ 1). */
  durationSeconds: number;
}

/**
 * The fixed window standing in for the token bucket the configuration
 * describes (sustained `ratePerSecond`, bursts of `burst`): a window of
 * `round(burst / rate)` seconds (at least 1) holding `max(burst, rate × window)`
 * requests. Over time a key gets at most `rate` per second on average and
 * `burst` at once; the window boundary can let up to twice the window's
 * points through in a short span (fixed windows' known edge). A burst below
 * the per-second rate cannot be expressed in whole-second windows: the
 * window is then 1 s holding `rate` requests (the rate is kept, the burst
 * becomes the rate).
 */
export function keyBudgetWindow(ratePerSecond: number, burst: number): WindowBudget {
  if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) throw new Error('keyBudgetWindow: ratePerSecond must be a positive number');
  if (!Number.isInteger(burst) || burst < 1) throw new Error('keyBudgetWindow: burst must be a positive integer');
  const durationSeconds = Math.max(1, Math.round(burst / ratePerSecond));
  return { points: Math.max(burst, Math.round(ratePerSecond * durationSeconds)), durationSeconds };
}

/** Options of {@link SharedRateLimitStore}. */
export interface SharedStoreOptions {
  /** `redis://` or `rediss://` URL. */
  redisUrl: string;
  logger: Logger;
  /** Registry for `gateway_rate_limit_store_up` and `gateway_rate_limit_fallback_total`. */
  registry?: Registry;
  /** A command unanswered this long counts as a failure (default 250 ms). */
  commandTimeoutMs?: number;
  /** Interval of the recovery probe while Redis is down (default 1000 ms). */
  probeIntervalMs?: number;
  /** Contract §13: a CLIENT span per Redis command made under a traced request or background span; absent = off. */
  tracer?: Tracer;
}

/**
 * One Redis connection for all budgets of a process (and its event-stream
 * slots, stream-slots.ts), with its health: `up` is true while decisions go
 * to Redis. Created by the app when REDIS_URL is
 * set; `close()` on shutdown.
 */
export class SharedRateLimitStore {
  readonly client: Redis;
  readonly #logger: Logger;
  readonly #probeIntervalMs: number;
  readonly #upGauge: Gauge | undefined;
  readonly #fallbacks: Counter<'budget'> | undefined;
  #up = false;
  /** The current outage was logged (reset when Redis is back): one warning per outage. */
  #outageLogged = false;
  #probe: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SharedStoreOptions) {
    if (!/^rediss?:\/\/\S+$/.test(options.redisUrl)) throw new Error('SharedRateLimitStore: redisUrl must be a redis:// or rediss:// URL');
    const commandTimeout = options.commandTimeoutMs ?? 250;
    this.#probeIntervalMs = options.probeIntervalMs ?? 1000;
    if (!(commandTimeout > 0) || !(this.#probeIntervalMs > 0)) throw new Error('SharedRateLimitStore: timeouts must be positive');
    this.#logger = options.logger;
    if (options.registry) {
      this.#upGauge = new Gauge({
        name: 'gateway_rate_limit_store_up',
        help: '1 while rate-limit budgets are shared through Redis (REDIS_URL), 0 while this replica falls back to its own in-memory budgets.',
        registers: [options.registry],
      });
      this.#upGauge.set(0);
      this.#fallbacks = new Counter({
        name: 'gateway_rate_limit_fallback_total',
        help: 'Rate-limit decisions made with this replica’s in-memory budget because Redis was unreachable, by budget.',
        labelNames: ['budget'] as const,
        registers: [options.registry],
      });
    }
    this.client = new Redis(options.redisUrl, {
      // Fail fast instead of queueing while disconnected: a queued command would hold its request until Redis returns.
      enableOfflineQueue: false,
      // A connection that stopped answering (Redis paused, network black hole) fails each command after this.
      commandTimeout,
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      // Reconnect forever with a bounded backoff (100 ms doubling up to 2 s): Redis may come back at any time.
      retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times - 1, 5), 2000),
      // Never let the client keep the process alive on its own (shutdown closes it anyway).
      lazyConnect: false,
    });
    // ioredis emits 'error' on every failed (re)connection; an unhandled 'error' event would crash the process.
    this.client.on('error', (err: Error) => this.markDown(err));
    this.client.on('close', () => this.markDown(new Error('Redis connection closed')));
    this.client.on('ready', () => this.#checkNow());
    if (options.tracer !== undefined) traceCommands(this.client, options.tracer, options.redisUrl);
  }

  /** Whether decisions currently go to Redis. */
  get up(): boolean {
    return this.#up;
  }

  /** Resolves once Redis answers (tests, tools); rejects after `timeoutMs`. */
  async waitUntilUp(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#up) {
      if (Date.now() > deadline) throw new Error(`Redis not reachable within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Redis failed (connection error, timeout, not ready): decide in memory and probe until it answers again. */
  markDown(err: unknown): void {
    if (this.#closed) return;
    this.#up = false;
    this.#upGauge?.set(0);
    if (!this.#outageLogged) {
      this.#outageLogged = true;
      this.#logger.warn({ err }, 'rate-limit store (Redis) unreachable: each replica uses its own in-memory budgets until it is back');
    }
    this.#probe ??= setInterval(() => this.#checkNow(), this.#probeIntervalMs).unref();
  }

  /** Count one decision made in memory while Redis was configured. */
  countFallback(budget: string): void {
    this.#fallbacks?.inc({ budget });
  }

  #checkNow(): void {
    if (this.#closed || this.client.status !== 'ready') return;
    this.client.ping().then(
      () => this.#markUp(),
      (err: unknown) => this.markDown(err),
    );
  }

  #markUp(): void {
    if (this.#closed || this.#up) return;
    this.#up = true;
    this.#upGauge?.set(1);
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = undefined;
    if (this.#outageLogged) this.#logger.info('rate-limit store (Redis) reachable again: budgets are shared again');
    this.#outageLogged = false;
  }

  /** Disconnect at once (pending commands fail and fall back; nothing is waited for). */
  close(): void {
    this.#closed = true;
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = undefined;
    this.client.disconnect();
  }
}

/** Options of {@link RateBudget}. */
export interface RateBudgetOptions extends WindowBudget {
  /** Names the budget in Redis keys, metrics and logs (`key`, `auth_failures`). */
  name: string;
  /** Most keys kept in memory (default 100,000). */
  maxEntries?: number;
  /** Shared store; absent: this process's memory only. */
  store?: SharedRateLimitStore;
  /** For budget decisions that cannot be made at all (a bug: they are let through and logged). */
  logger: Logger;
}

/** Key that keys beyond `maxEntries` share in memory. */
const OVERFLOW_KEY = '\u0000overflow';

/**
 * One budget: `consume(key)` answers 0 (allowed) or the whole seconds until
 * the key has budget again. Never rejects: a decision that cannot be made is
 * logged and allowed (limits protect capacity; they must not take it away).
 * In memory the answer is synchronous (a number, nothing to await on the hot
 * path); through Redis it is a promise.
 */
export class RateBudget {
  readonly #memory: RateLimiterMemory;
  readonly #storage: MemoryStorage;
  readonly #shared: RateLimiterRedis | undefined;
  readonly #store: SharedRateLimitStore | undefined;
  readonly #points: number;
  readonly #durationSeconds: number;
  readonly #maxEntries: number;
  readonly #name: string;
  readonly #logger: Logger;

  constructor(options: RateBudgetOptions) {
    const { points, durationSeconds, name, store } = options;
    if (!Number.isInteger(points) || points < 1) throw new Error(`RateBudget ${name}: points must be a positive integer`);
    if (!Number.isInteger(durationSeconds) || durationSeconds < 1) throw new Error(`RateBudget ${name}: durationSeconds must be a positive integer`);
    this.#maxEntries = options.maxEntries ?? 100_000;
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1) throw new Error(`RateBudget ${name}: maxEntries must be a positive integer`);
    this.#points = points;
    this.#durationSeconds = durationSeconds;
    this.#name = name;
    this.#logger = options.logger;
    this.#store = store;
    // No key prefix: each budget has its own memory, and direct decisions and insurance decisions of
    // RateLimiterRedis must land on the same record.
    const memoryOptions = { points, duration: durationSeconds, keyPrefix: '' };
    this.#memory = store ? new InsuranceMemory(memoryOptions, () => this.#onInsurance()) : new RateLimiterMemory(memoryOptions);
    this.#storage = memoryStorageOf(this.#memory);
    this.#shared = store
      ? new RateLimiterRedis({
          storeClient: store.client,
          points,
          duration: durationSeconds,
          keyPrefix: `gateway:rl:${name}`,
          // Not connected: straight to the insurance limiter, without sending anything.
          rejectIfRedisNotReady: true,
          insuranceLimiter: this.#memory,
          // A key over its budget is answered from memory for the rest of its window: no Redis round trip per refusal.
          inMemoryBlockOnConsumed: points + 1,
        })
      : undefined;
  }

  /** Keys tracked in this process's memory (tests: the memory bound). */
  get memoryEntries(): number {
    return this.#storage._storage.size;
  }

  #onInsurance(): void {
    this.#store?.markDown(new Error(`Redis did not answer a ${this.#name} budget decision`));
    this.#store?.countFallback(this.#name);
  }

  /**
   * Spend `points` (a request's cost, ≥ 1) of `key`'s budget: 0 when allowed; otherwise whole seconds (≥ 1)
   * until `key` has budget again. A refused spend still counts in the window (as rate-limiter-flexible
   * counts it), so hammering a spent budget never earns anything back early.
   */
  consume(key: string, points = 1): number | Promise<number> {
    if (this.#shared !== undefined && this.#store!.up) return this.#shared.consume(key, points).then(ALLOWED, this.#refused);
    if (this.#store !== undefined) this.#store.countFallback(this.#name);
    // Bounded memory: a key not tracked yet joins the shared overflow record once the table is full.
    const records = this.#storage._storage;
    const storeKey = records.size >= this.#maxEntries && !records.has(key) ? OVERFLOW_KEY : key;
    const state = this.#storage.incrby(storeKey, points, this.#durationSeconds);
    return state.consumedPoints > this.#points ? retryAfterSeconds(state.msBeforeNext) : 0;
  }

  readonly #refused = (rejection: unknown): number => {
    if (rejection instanceof RateLimiterRes) return retryAfterSeconds(rejection.msBeforeNext);
    // Invariant: store errors go to the insurance limiter, so only a bug gets here. Let the request through.
    this.#logger.error({ err: rejection, budget: this.#name }, 'rate-limit decision failed; request allowed');
    return 0;
  };
}

function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

const ALLOWED = (): number => 0;

/** The in-memory fallback of a shared budget; tells the budget each time rate-limiter-flexible falls back to it. */
class InsuranceMemory extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    readonly onInsurance: () => void,
  ) {
    super(options);
  }

  /** Called by RateLimiterRedis only when Redis failed (the budget's own memory decisions use the storage directly). */
  override consume(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.onInsurance();
    return super.consume(key, points, options);
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
  const groups = address.includes('::') ? [...headParts, ...Array<string>(Math.max(0, 8 - headParts.length - tailParts.length)).fill('0'), ...tailParts] : headParts;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Contract §13: a CLIENT span for every command this connection sends under an active span, at ioredis's one
 * door (`sendCommand`, which every command, script and pipeline goes through). By hand rather than by
 * `@opentelemetry/instrumentation-ioredis`: that instrumentation patches `require`, which a package imported
 * from the ESM bundle (dist/main.mjs) does not go through without a loader hook. The span names the command
 * only (`EVALSHA`, `ZADD`): never a key (it names an API key id) nor an argument.
 */
function traceCommands(client: Redis, tracer: Tracer, redisUrl: string): void {
  const url = new URL(redisUrl);
  const server = { 'server.address': url.hostname, 'server.port': Number(url.port || 6379) };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    const operation = command.name.toUpperCase();
    const span = startClientSpan(tracer, operation, { 'db.system.name': 'redis', 'db.operation.name': operation, ...server });
    const sent = send(command, stream);
    if (span !== undefined) command.promise.then(() => span.end(), (err: unknown) => endWithError(span, err));
    return sent;
  };
}
