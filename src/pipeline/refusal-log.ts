/**
 * Refusals cost little to log: repeated refusals of one kind from one client address are summarised.
 *
 * A client sending garbage (a flood of bad Bearer secrets, unsigned requests, malformed bodies) is refused
 * cheaply, and the request log must not be what it costs us: a line per refusal was ~250 bytes, 2.5 MB/s of
 * log for one client at 10k requests/s. So, per (client address, error code):
 * - the first refusal writes its full request line (request id, route, status, code: what an operator
 *   needs to find the client and what it does);
 * - later ones are counted, and the count is written as one `refusals repeated` line at most once a second
 *   (`count`: refusals since the last line of that pair, none of them on a line of its own);
 * - a pair quiet for {@link IDLE_MS} with nothing to report is forgotten (its next refusal is a first line
 *   again).
 *
 * Bound: at most `maxTracked` pairs (default {@link MAX_TRACKED_REFUSALS}). Refusals of a pair that finds the
 * table full are counted together under one untracked entry (address `*`, code `*`), which writes at most one
 * line a second too, so however many addresses a flood comes from, the log gets at most
 * `maxTracked` first lines plus one line a second per tracked pair and one for the rest.
 *
 * Only refusals (4xx answers with a contract code) are summarised: successes, 5xx and unexpected failures
 * keep one line each. `/metrics` counts every request, refused or not (the metrics plugin does not read this).
 */
import type { Logger } from 'pino';

/** Pairs (client address, error code) tracked at once by default. */
export const MAX_TRACKED_REFUSALS = 4096;
/** At most one summary line a second per pair. */
export const SUMMARY_INTERVAL_MS = 1000;
/** A pair with nothing to report for this long is forgotten. */
export const IDLE_MS = 10_000;

interface Entry {
  /** Refusals since the last line of this pair (first line or summary). */
  count: number;
  /** When the last line of this pair was written. */
  lastLineAt: number;
  /** Status of the latest refusal (a code has one status, INVALID_REQUEST also 499: the latest wins). */
  status: number;
}

/** Options of {@link RefusalLog}. */
export interface RefusalLogOptions {
  maxTracked?: number;
  now?: () => number;
}

/** The untracked entry's key (no address or code is `*`). */
const UNTRACKED = '*\u0000*';

export class RefusalLog {
  readonly #entries = new Map<string, Entry>();
  readonly #maxTracked: number;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly logger: Logger,
    options: RefusalLogOptions = {},
  ) {
    this.#maxTracked = options.maxTracked ?? MAX_TRACKED_REFUSALS;
    if (!Number.isInteger(this.#maxTracked) || this.#maxTracked < 1) throw new Error('RefusalLog: maxTracked must be a positive integer');
    this.#now = options.now ?? Date.now;
  }

  /** Pairs tracked now, the untracked entry included (tests of the bound). */
  get tracked(): number {
    return this.#entries.size;
  }

  /**
   * One refusal from `address` with `code`: `writeLine` is called when this refusal gets its own full line
   * (the first of its pair); otherwise it is counted for the pair's next summary line.
   */
  record(address: string | undefined, code: string, status: number, writeLine: () => void): void {
    const now = this.#now();
    const key = `${address ?? ''}\u0000${code}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      // The untracked entry does not count against the bound: the table holds maxTracked pairs plus it.
      if (this.#entries.size - (this.#entries.has(UNTRACKED) ? 1 : 0) < this.#maxTracked) {
        this.#entries.set(key, { count: 0, lastLineAt: now, status });
        this.#schedule();
        writeLine();
        return;
      }
      entry = this.#entries.get(UNTRACKED);
      if (entry === undefined) {
        // The untracked entry's first refusal is a summary line of one (it stands for every untracked pair).
        entry = { count: 1, lastLineAt: now - SUMMARY_INTERVAL_MS, status };
        this.#entries.set(UNTRACKED, entry);
        this.#schedule();
        this.#summarise(UNTRACKED, entry, now);
        return;
      }
      entry.count++;
      entry.status = status;
      if (now - entry.lastLineAt >= SUMMARY_INTERVAL_MS) this.#summarise(UNTRACKED, entry, now);
      return;
    }
    entry.count++;
    entry.status = status;
    if (now - entry.lastLineAt >= SUMMARY_INTERVAL_MS) this.#summarise(key, entry, now);
  }

  /** Write every count that is due, forget idle pairs (the sweep's work; tests call it directly). */
  sweep(): void {
    this.#flushDue(this.#now());
  }

  #flushDue(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (entry.count > 0 && now - entry.lastLineAt >= SUMMARY_INTERVAL_MS) this.#summarise(key, entry, now);
      else if (entry.count === 0 && now - entry.lastLineAt >= IDLE_MS) this.#entries.delete(key);
    }
    if (this.#entries.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #summarise(key: string, entry: Entry, now: number): void {
    const split = key.indexOf('\u0000');
    const address = key.slice(0, split);
    this.logger.info(
      { clientAddress: address === '' ? undefined : address, errorCode: key.slice(split + 1), status: entry.status, count: entry.count, sinceMs: now - entry.lastLineAt },
      'refusals repeated',
    );
    entry.count = 0;
    entry.lastLineAt = now;
  }

  /** One sweep a second while anything is tracked, so a count is written even when its client goes quiet. */
  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.sweep(), SUMMARY_INTERVAL_MS);
    // Never what keeps a process alive (a count not yet written at exit is lost; /metrics has it).
    this.#timer.unref();
  }

  /** Write what is pending and stop the sweep (server close). */
  close(): void {
    for (const [key, entry] of this.#entries) if (entry.count > 0) this.#summarise(key, entry, this.#now());
    this.#entries.clear();
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** One summary per logger: the request pipeline and Node's client errors of a server share it. */
const perLogger = new WeakMap<Logger, RefusalLog>();
export function refusalLogOf(logger: Logger): RefusalLog {
  let log = perLogger.get(logger);
  if (log === undefined) {
    log = new RefusalLog(logger);
    perLogger.set(logger, log);
  }
  return log;
}

/** True for an answer that is a refusal: a 4xx (499 included) with a contract code. */
export function isRefusal(status: number, errorCode: string | undefined): errorCode is string {
  return status >= 400 && status < 500 && errorCode !== undefined;
}
