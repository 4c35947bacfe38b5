/**
 * Fair share of a process between merchants (contract §9, amended 2026-11-25): one merchant's checkout
 * sessions together cannot slow other merchants, and the share is work-conserving.
 *
 * Model, in work units (src/graphql/operation-cost.ts) per one-second window of this process:
 * - every request of every merchant is recorded (signed calls and sessions), so a merchant whose server is
 *   calling counts as needing capacity;
 * - a session request is admitted when the process has spare capacity this window (`total + cost ≤
 *   capacity`: work-conserving, a sale may use what nobody else uses), or when its merchant is the only one
 *   active (this window or the last), or when its merchant is within its fair share (`capacity / active
 *   merchants`). Otherwise it is refused (429, retry in the next window) before anything executes.
 * - signed (SVC1) requests are never refused here: each key has its own budget, and the share exists to
 *   protect them.
 * So under contention a merchant's sessions get max(its fair share, what the others leave), and a merchant
 * at a sale alone on the process is never refused by the share (the per-session budgets still hold).
 *
 * Capacity is a configured figure, but what a process can serve moves (other processes on the machine, a
 * slow disk, GC): when the process was overloaded in the last window (`overloaded()`, the event loop's delay,
 * asked once per window, never per request), this window's capacity is 80 % of what was served in the last
 * one (never less than {@link OVERLOADED_FLOOR} of the configured capacity), so while merchants compete on an
 * overloaded process the sessions past their share are shed until it recovers, and the signed calls of the
 * others keep their latency.
 *
 * Per process on purpose, also with REDIS_URL: what it divides is this process's CPU (each replica and each
 * worker has its own), while what bounds a principal (the per-session and per-key budgets) is shared.
 * Decisions are synchronous map operations (nothing to await on the request path).
 *
 * Memory is bounded: at most `maxMerchants` merchants are tracked per window; merchants beyond share one
 * overflow record (stricter for them, never more lenient).
 */

/** Options of {@link MerchantShare}. */
export interface MerchantShareOptions {
  /** Work units per second this process gives to all merchants together when they compete (≥ 1). */
  capacityPerSecond: number;
  /** Most merchants tracked per window (memory bound; default 10,000). */
  maxMerchants?: number;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** Whether the process was overloaded since the last call (asked once per window); default never. */
  overloaded?: () => boolean;
}

const OVERFLOW = '\u0000overflow';

/**
 * An overloaded window's capacity never drops below this part of the configured one. A process that served
 * little yet saw a slow event loop was slowed by something else (other processes on the machine, a GC):
 * shedding its few session requests frees nothing, and it refused a checkout page's first request on a busy
 * machine at almost no load (seen in the browser test beside a 3,000-page test).
 */
export const OVERLOADED_FLOOR = 0.05;

export class MerchantShare {
  readonly #capacity: number;
  readonly #maxMerchants: number;
  readonly #now: () => number;
  readonly #overloaded: () => boolean;
  /** The least capacity of an overloaded window ({@link OVERLOADED_FLOOR} of the configured one). */
  readonly #floor: number;
  /** This window's capacity: the configured one, or less while the process is overloaded. */
  #windowCapacity: number;
  #window = Number.NEGATIVE_INFINITY;
  #current = new Map<string, number>();
  #previous = new Map<string, number>();
  #total = 0;
  /** |keys of current ∪ keys of previous|: the merchants active this window or the last. */
  #active = 0;

  constructor(options: MerchantShareOptions) {
    if (!Number.isInteger(options.capacityPerSecond) || options.capacityPerSecond < 1) throw new Error('MerchantShare: capacityPerSecond must be a positive integer');
    this.#capacity = options.capacityPerSecond;
    this.#maxMerchants = options.maxMerchants ?? 10_000;
    if (!Number.isInteger(this.#maxMerchants) || this.#maxMerchants < 1) throw new Error('MerchantShare: maxMerchants must be a positive integer');
    this.#now = options.now ?? Date.now;
    this.#overloaded = options.overloaded ?? (() => false);
    this.#windowCapacity = this.#capacity;
    this.#floor = Math.max(1, Math.floor(this.#capacity * OVERLOADED_FLOOR));
  }

  /** The capacity of the current window (tests, diagnosis). */
  get windowCapacity(): number {
    this.#roll();
    return this.#windowCapacity;
  }

  /** Merchants tracked this window (tests: the memory bound). */
  get trackedMerchants(): number {
    this.#roll();
    return this.#current.size;
  }

  /** Work units spent this window by all merchants (tests, diagnosis). */
  get spentThisWindow(): number {
    this.#roll();
    return this.#total;
  }

  #roll(): void {
    const window = Math.floor(this.#now() / 1000);
    if (window === this.#window) return;
    // What the last window served, if it was the one just before: the measure of what an overloaded process manages.
    const served = window === this.#window + 1 ? this.#total : 0;
    this.#windowCapacity = this.#overloaded() && served > 0 ? Math.max(this.#floor, Math.min(this.#capacity, Math.floor(served * 0.8))) : this.#capacity;
    this.#previous = window === this.#window + 1 ? this.#current : new Map<string, number>();
    this.#current = new Map<string, number>();
    this.#total = 0;
    this.#active = this.#previous.size;
    this.#window = window;
  }

  #keyOf(merchantId: string): string {
    return this.#current.size >= this.#maxMerchants && !this.#current.has(merchantId) ? OVERFLOW : merchantId;
  }

  #add(key: string, units: number): void {
    const used = this.#current.get(key);
    if (used === undefined && !this.#previous.has(key)) this.#active++;
    this.#current.set(key, (used ?? 0) + units);
    this.#total += units;
  }

  /** Record work a merchant's signed call spends (never refused). */
  record(merchantId: string, units: number): void {
    this.#roll();
    this.#add(this.#keyOf(merchantId), units);
  }

  /**
   * Admit (and record) `units` of work for one of the merchant's sessions: true, or false when the process
   * is at capacity, other merchants are active and this merchant is past its fair share.
   */
  admit(merchantId: string, units: number): boolean {
    this.#roll();
    const key = this.#keyOf(merchantId);
    const capacity = this.#windowCapacity;
    if (this.#total + units > capacity) {
      const alone = this.#active === 0 || (this.#active === 1 && (this.#current.has(key) || this.#previous.has(key)));
      if (!alone && (this.#current.get(key) ?? 0) + units > capacity / Math.max(1, this.#active + (this.#current.has(key) || this.#previous.has(key) ? 0 : 1))) {
        return false;
      }
    }
    this.#add(key, units);
    return true;
  }
}
