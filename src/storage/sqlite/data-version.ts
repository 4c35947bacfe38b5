/**
 * A cheap "has the database changed?" token for caches.
 *
 * Two parts, which together change on every commit from anywhere:
 * - `PRAGMA data_version` on this process's connection changes whenever
 *   ANOTHER connection (another process such as the admin CLI, a cluster
 *   worker, or a second connection in this process) commits to the file;
 * - `total_changes()` counts rows changed through THIS connection, which
 *   `data_version` deliberately ignores.
 *
 * Cost: `total_changes()` is ~0.1 µs and is read on every call, so a change
 * made through this connection is seen by the very next read. `data_version`
 * costs ~3 µs (it opens a WAL read snapshot), which was ~9 % of a cached
 * request when read several times per request; it is therefore read at most
 * once per event-loop turn: a commit by another process is seen by every
 * request processed from the next turn on (typically well under a
 * millisecond later), never later.
 */
import type Database from 'better-sqlite3';

import type { DataVersion } from '../../shared/versioned-cache.js';

/** A {@link DataVersion} whose once-per-turn `PRAGMA data_version` can be re-read on demand. */
export interface SqliteDataVersion {
  current: DataVersion;
  /** Forget this turn's `data_version`, so the next `current()` sees commits made by others up to now. */
  invalidate(): void;
}

export function createDataVersion(sqlite: Database.Database): SqliteDataVersion {
  const external = sqlite.prepare('PRAGMA data_version').pluck();
  const local = sqlite.prepare('select total_changes()').pluck();
  let turnVersion: number | undefined;
  const nextTurn = () => {
    turnVersion = undefined;
  };
  const version = () => {
    if (turnVersion === undefined) {
      turnVersion = external.get() as number;
      setImmediate(nextTurn);
    }
    return `${turnVersion}:${local.get() as number}`;
  };
  return { current: version, invalidate: nextTurn };
}
