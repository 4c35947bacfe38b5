/**
 * Live change notifications for subscriptions (contract §8), per API key.
 *
 * No extra pub/sub infrastructure: every replica's store already applies
 * every committed change to its in-memory catalogue (Postgres: LISTEN/NOTIFY
 * plus a change-log poll; SQLite: the trigger-written change log) and calls
 * `store.onChange` listeners afterwards, whichever process committed. A
 * watcher compares `catalog.merchantVersion(merchantId)`, which changes
 * exactly when something that merchant could see changed, so another
 * merchant's change wakes nobody here.
 *
 * SQLite catches its catalogue up lazily (on the next request's `version()`),
 * so while any watcher is open the feed calls `store.version()` every
 * `catchUpIntervalMs`: a commit by the admin CLI reaches an idle server's
 * streams within that interval. On Postgres `version()` is a plain read and
 * the store's own listener does the work.
 *
 * Invariants: a watcher reports its key's current principal (KYC may have
 * changed since the stream opened), reports a revoked key once and then
 * ends, and never reports the same merchant version twice in a row.
 */
import type { Logger } from 'pino';
import type { Store } from '../../storage/index.js';
import type { Catalog } from '../catalogue/catalog.js';
import type { Principal } from '../auth/principal.js';
import type { PullReceiver, PullSource } from '../../shared/pull.js';

/** What a watcher reports. */
export type ChangeEvent =
  /** The key's merchant may see something new (or this is the first event). */
  | { kind: 'changed'; principal: Principal; version: string }
  /** The key was revoked (or its merchant deleted): last event. */
  | { kind: 'revoked' }
  /** The checkout session the stream was opened with expired (contract §9): last event. */
  | { kind: 'expired' };

/** Options of {@link ChangeFeed}. */
export interface ChangeFeedOptions {
  store: Pick<Store<Catalog>, 'catalog' | 'onChange' | 'version'>;
  /** How often the catalogue is caught up while watchers are open (ms, > 0). */
  catchUpIntervalMs: number;
  logger?: Logger;
  /** Clock in ms (checkout session expiry); default Date.now. */
  now?: () => number;
}

/**
 * One stream's view of the feed: an async iterator of {@link ChangeEvent}s, which can also be pulled
 * (shared/pull.ts: a waiting stream then holds its receiver only, no promise chain).
 * Written by hand rather than as an async generator: `return()` (client gone,
 * server draining) must end a `next()` that is waiting for a change at once,
 * which a suspended generator cannot do.
 */
class Watcher implements AsyncIterableIterator<ChangeEvent>, PullSource<ChangeEvent> {
  #lastVersion: string | undefined;
  #dirty = true; // the first event is the current state
  #done = false;
  #revoked = false;
  #expired = false;
  #expiryTimer: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;
  /** A pull waiting for a change (at most one). */
  #receiver: PullReceiver<ChangeEvent> | undefined;
  /** A waiting pull's step is being looked for in a microtask already. */
  #resuming = false;
  /** The principal of the last event ({@link #principal}). */
  #last: Principal | undefined;
  private readonly keyId: string;
  private readonly merchantId: string;
  /** The checkout session of the stream, kept on every reported principal (its scope never changes). */
  private readonly session: Principal['session'];

  constructor(
    private readonly feed: ChangeFeed,
    private readonly store: ChangeFeedOptions['store'],
    opener: Principal,
    now: number,
  ) {
    this.keyId = opener.apiKeyId;
    this.merchantId = opener.merchantId;
    this.session = opener.session;
    if (this.session) {
      // A session's stream ends at its expiry (contract §9), whether or not anything changes.
      this.#expiryTimer = setTimeout(() => {
        this.#expired = true;
        this.#signal();
      }, Math.max(0, this.session.expiresAt - now));
      this.#expiryTimer.unref();
    }
  }

  /**
   * The principal this stream's events carry, the same object for as long as nothing of it changes: each
   * stream keeps the one of its last event (its context), and a fresh copy per stream per change lived until
   * the next change, so the garbage collector copied and promoted 15,000 of them per change at a sale's peak
   *.
   */
  #principal(): Principal | undefined {
    const key = this.store.catalog.findActiveKey(this.keyId);
    if (!key) return undefined;
    const last = this.#last;
    if (last !== undefined && last.mode === key.mode && last.merchantId === key.merchantId && last.merchantKyc === key.merchantKyc) return last;
    const p: Principal = { apiKeyId: key.keyId, mode: key.mode, merchantId: key.merchantId, merchantKyc: key.merchantKyc };
    return (this.#last = this.session ? { ...p, session: this.session } : p);
  }

  /** Called by the feed after every catalogue change. */
  notify(): void {
    if (this.#done) return;
    if (!this.store.catalog.findActiveKey(this.keyId)) this.#revoked = true;
    else if (this.store.catalog.merchantVersion(this.merchantId) !== this.#lastVersion) this.#dirty = true;
    else return;
    this.#signal();
  }

  /** Something to report (or the end): release a waiting `next()`, or answer a waiting pull in a microtask. */
  #signal(): void {
    this.#wake?.();
    if (this.#receiver !== undefined && !this.#resuming) {
      this.#resuming = true;
      queueMicrotask(() => this.#resume());
    }
  }

  /** A waiting pull gets its step, if there is one now. */
  #resume(): void {
    this.#resuming = false;
    const receiver = this.#receiver;
    if (receiver === undefined) return;
    const step = this.#ready();
    if (step === undefined) return;
    this.#receiver = undefined;
    receiver.pulled(step);
  }

  /** The step to report now, or undefined when there is nothing yet (wait for a change). */
  #ready(): IteratorResult<ChangeEvent> | undefined {
    while (!this.#done) {
      if (this.#expired) {
        this.#finish();
        return { done: false, value: { kind: 'expired' } };
      }
      if (this.#revoked) {
        this.#finish();
        return { done: false, value: { kind: 'revoked' } };
      }
      if (!this.#dirty) return undefined;
      this.#dirty = false;
      // Read the version before building anything: a change landing after this line marks us dirty again.
      this.#lastVersion = this.store.catalog.merchantVersion(this.merchantId);
      const principal = this.#principal();
      if (!principal) {
        this.#revoked = true;
        continue;
      }
      // The version lets every stream of the merchant share one execution per change (live streams' fan-out).
      return { done: false, value: { kind: 'changed', principal, version: this.#lastVersion } };
    }
    return { done: true, value: undefined };
  }

  async next(): Promise<IteratorResult<ChangeEvent>> {
    for (;;) {
      const step = this.#ready();
      if (step !== undefined) return step;
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  /** shared/pull.ts: the same steps as `next()`, to a receiver (never synchronously). */
  pull(receiver: PullReceiver<ChangeEvent>): void {
    if (this.#receiver !== undefined) throw new Error('Watcher: a pull is already waiting');
    this.#receiver = receiver;
    this.#resuming = true;
    queueMicrotask(() => this.#resume());
  }

  return(): Promise<IteratorResult<ChangeEvent>> {
    this.#finish();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** End: detach from the feed and release a waiting `next()`. Idempotent. */
  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#expiryTimer);
    this.feed.detach(this);
    this.#signal();
  }

  /** The feed is shutting down. */
  end(): void {
    this.#finish();
  }
}

/**
 * Watchers woken per turn of the event loop after a change ({@link ChangeFeed}). Why in turns: a woken stream
 * computes and writes its event in the same run of promise reactions, and Node sends a socket's written bytes
 * (and lets go of them) only when that run ends. Woken all at once, 15,000 checkout pages' events (3.5 KB each)
 * stayed alive until the last page was computed: no page got its event before the last one was made (p50 about
 * the slowest), no other request was served meanwhile, and each scavenge of the change found 3–5 MB alive
 * (about 1 MB in turns, measured with --trace-gc). In turns of this many, each turn's events go out
 * at its end, and requests waiting meanwhile are served between turns. Streams of one question or class still
 * share one execution across turns (shared-executions.ts keeps it for the data version: warm groups).
 */
export const WAKE_BATCH = 256;

/** Change notifications per API key, for the subscriptions of one app (see the module comment). */
export class ChangeFeed {
  readonly #options: ChangeFeedOptions;
  readonly #watchers = new Set<Watcher>();
  #unsubscribe: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /**
   * The watchers to wake for the latest change, in turns of {@link WAKE_BATCH} from `#woken` on. Bound: the
   * watchers open when the change came (≤ open streams), dropped once all are woken.
   */
  #toWake: Watcher[] = [];
  #woken = 0;
  #waking = false;

  constructor(options: ChangeFeedOptions) {
    if (!Number.isInteger(options.catchUpIntervalMs) || options.catchUpIntervalMs <= 0) throw new Error('ChangeFeed: catchUpIntervalMs must be a positive integer');
    this.#options = options;
  }

  /** Open watchers (streams), for metrics and tests. */
  get size(): number {
    return this.#watchers.size;
  }

  /**
   * Watch what `principal`'s key may see. The first `next()` reports the current state; later ones wait for a
   * change of that merchant's data (or the key's revocation). After {@link shutdown} the iterator is already done.
   */
  watch(principal: Principal): AsyncIterableIterator<ChangeEvent> {
    const watcher = new Watcher(this, this.#options.store, principal, (this.#options.now ?? Date.now)());
    if (this.#closed) {
      watcher.end();
      return watcher;
    }
    this.#watchers.add(watcher);
    if (this.#watchers.size === 1) this.#start();
    return watcher;
  }

  /** End every open watcher and refuse new ones (graceful shutdown: clients reconnect to another replica). */
  shutdown(): void {
    this.#closed = true;
    for (const w of [...this.#watchers]) w.end();
  }

  /** @internal A watcher ended. */
  detach(watcher: Watcher): void {
    if (this.#watchers.delete(watcher) && this.#watchers.size === 0) this.#stop();
  }

  #start(): void {
    const { store, logger } = this.#options;
    this.#unsubscribe = store.onChange(() => {
      // A newer change while earlier turns are still waking: every watcher looks again (one woken already for the
      // previous change reports the newer version; one not yet woken reports it once).
      this.#toWake = [...this.#watchers];
      this.#woken = 0;
      if (!this.#waking) this.#wakeTurn();
    });
    this.#timer = setInterval(() => {
      try {
        store.version();
      } catch (err) {
        // version() does not throw by contract; should it, streams keep their last state and the next tick retries.
        logger?.warn({ err }, 'live updates: catalogue catch-up failed');
      }
    }, this.#options.catchUpIntervalMs);
    this.#timer.unref();
  }

  /** Wake the next {@link WAKE_BATCH} watchers now, and the rest in later turns. */
  readonly #wakeTurn = (): void => {
    const watchers = this.#toWake;
    const end = Math.min(watchers.length, this.#woken + WAKE_BATCH);
    for (; this.#woken < end; this.#woken++) watchers[this.#woken]!.notify();
    this.#waking = this.#woken < watchers.length;
    if (this.#waking) setImmediate(this.#wakeTurn);
    else this.#toWake = [];
  };

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
