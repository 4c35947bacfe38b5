/**
 * How a replica keeps up with the change log at scale (contract §15), the same on both engines: catch-up
 * slices, and the bounded history (`change_log` rows older than the retention are pruned).
 */

/**
 * Change-log rows read and applied per slice (one read transaction each). Reading, assembling and applying a
 * changed merchant costs 50–200 µs on this project's shared 2-core machine (its rows from five tables), so a
 * slice stays near 10 ms.
 */
export const CATCH_UP_SLICE = 100;

/**
 * Postgres reads a slice with round-trips (a transaction, a statement a table) that leave the event loop free:
 * larger slices, whose rows are then applied {@link APPLY_CHUNK} merchants at a time within the turn budget.
 * What stays synchronous per slice is grouping its rows by merchant (about 13 rows a merchant) and collecting
 * what they leave behind: 1,000 merchants keep that within a few milliseconds.
 */
export const CATCH_UP_SLICE_POSTGRES = 1_000;
export const APPLY_CHUNK = 100;

/**
 * Slices applied in one event-loop turn until this much time has passed; the rest waits for a later turn
 * ({@link afterRequests}), so requests are answered in between. A turn's work is this budget plus at most one
 * slice, and a young-generation collection may fall into it: well under the 50 ms pause bound.
 */
export const CATCH_UP_TURN_MS = 10;

/**
 * Resolves in the check phase of the event-loop iteration after the current one, so that a poll phase (the
 * requests that arrived meanwhile) and the timers come between the work before and after it. A single
 * `setImmediate` from a request's callback would run in the same iteration's check phase, right after that
 * callback's own work: two turns of catch-up back to back, one pause twice as long.
 */
export function afterRequests(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** How often a server prunes the change log, and the most rows one pruning deletes (one short transaction). */
export const PRUNE_INTERVAL_MS = 60_000;
export const PRUNE_BATCH = 10_000;

/** The margin the default retention keeps beyond MAX_STALENESS_SECONDS. */
export const RETENTION_MARGIN_SECONDS = 3600;

/** Options of the stores' history handling. */
export interface HistoryOptions {
  /** CHANGE_LOG_RETENTION_SECONDS: rows older than this are pruned (default MAX_STALENESS_SECONDS + 1 h). */
  retentionSeconds?: number;
  /** Change-log rows per catch-up slice (default {@link CATCH_UP_SLICE}). */
  catchUpSlice?: number;
  /** Work per event-loop turn before a catch-up yields (default {@link CATCH_UP_TURN_MS}; 0: a slice a turn). */
  catchUpTurnMs?: number;
  /** How often a server prunes (default {@link PRUNE_INTERVAL_MS}). */
  pruneIntervalMs?: number;
}

/** The instant (ISO text, as change-log rows record it) before which rows may be pruned. */
export function pruneBefore(now: number, retentionSeconds: number): string {
  return new Date(now - retentionSeconds * 1000).toISOString();
}
