/**
 * A cheap "has the database changed?" token for caches.
 *
 * `PRAGMA data_version` on this process's connection changes whenever ANOTHER
 * connection (another process such as the admin CLI, a cluster worker, or a
 * second connection in this process) commits to the database file. It does
 * NOT change for commits made through this same connection, so the token
 * also includes `total_changes()`, which counts rows changed through this
 * connection. Together they change on every committed change from anywhere.
 *
 * One prepared statement, no table access: about a microsecond, so callers
 * check it on every request and a revoked key or edited channel is seen by
 * the very next request.
 */
import type Database from 'better-sqlite3';

/** Returns the current version token; equal tokens mean no commit in between. */
export type DataVersion = () => string;

export function createDataVersion(sqlite: Database.Database): DataVersion {
  const stmt = sqlite.prepare('select data_version as v, total_changes() as c from pragma_data_version').raw(true);
  return () => {
    const row = stmt.get() as [number, number];
    return `${row[0]}:${row[1]}`;
  };
}
