/**
 * How long a replica may keep serving its in-memory catalogue while the database cannot be reached
 * (contract §6, `MAX_STALENESS_SECONDS`). Requests never read the database, so an outage shorter than the
 * bound costs no request; past it the catalogue may be too old to trust and data requests are refused.
 *
 * Invariants: the age is counted from the last moment the catalogue was KNOWN current (the start of the
 * last successful poll or catch-up), not from the first failure, so the bound holds however late the
 * failure is noticed. Before the first load nothing is served. An outage is logged once when it starts (a
 * warning naming the cause), once when the bound is passed (an error), and once when it ends (info).
 */
import type { Logger } from 'pino';
import type { DatabaseStatus } from './store.js';

/** Options of {@link CatalogueFreshness}. */
export interface FreshnessOptions {
  /** 0: refuse at once when the database cannot be reached. */
  maxStalenessMs: number;
  logger?: Logger;
  /** Where the data lives (for the log lines). */
  location: string;
  now?: () => number;
}

const OK: DatabaseStatus = Object.freeze({ ok: true });

export class CatalogueFreshness {
  #currentAt: number | null = null;
  #outage: { cause: string; since: number } | null = null;
  #refusing = false;
  readonly #now: () => number;

  constructor(private readonly options: FreshnessOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** The catalogue is known to be current as of `at` (a successful poll or load that started then). */
  current(at: number = this.#now()): void {
    if (this.#outage) {
      this.options.logger?.info(
        { database: this.options.location, outageSeconds: Math.round((this.#now() - this.#outage.since) / 1000) },
        'database reachable again; catalogue current',
      );
    }
    this.#outage = null;
    this.#refusing = false;
    if (this.#currentAt === null || at > this.#currentAt) this.#currentAt = at;
  }

  /** The database could not be reached or read; `cause` names the underlying error. */
  failed(cause: string): void {
    if (this.#outage) {
      this.#outage.cause = cause;
      return;
    }
    this.#outage = { cause, since: this.#now() };
    this.options.logger?.warn(
      { database: this.options.location, cause, maxStalenessSeconds: this.options.maxStalenessMs / 1000 },
      `database unreachable (${cause}); serving the last catalogue for at most ${this.options.maxStalenessMs / 1000} s`,
    );
  }

  /** Whether the outage (if any) is over as far as this object knows. */
  get inOutage(): boolean {
    return this.#outage !== null;
  }

  /** Serve (ok) or refuse, by the catalogue's age. Cheap; called per request. */
  status(): DatabaseStatus {
    if (this.#currentAt === null) return { ok: false, reason: this.#outage ? `catalogue not loaded: ${this.#outage.cause}` : 'catalogue not loaded yet' };
    if (!this.#outage) return OK;
    if (this.#now() - this.#currentAt <= this.options.maxStalenessMs) return OK;
    const reason = `database unreachable for longer than MAX_STALENESS_SECONDS (${this.options.maxStalenessMs / 1000} s): ${this.#outage.cause}`;
    if (!this.#refusing) {
      this.#refusing = true;
      this.options.logger?.error({ database: this.options.location, cause: this.#outage.cause }, 'catalogue older than MAX_STALENESS_SECONDS; refusing data requests until the database answers');
    }
    return { ok: false, reason };
  }

  /** Seconds since the catalogue was last known current (0 before the first load). */
  ageSeconds(): number {
    return this.#currentAt === null ? 0 : Math.max(0, this.#now() - this.#currentAt) / 1000;
  }
}
