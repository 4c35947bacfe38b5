/** Which SQLite failures mean "the database cannot be used right now" (503), as opposed to a bug. */
import Database from 'better-sqlite3';

/** better-sqlite3 result codes that mean "the database cannot be used right now", not a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|READONLY|CORRUPT|NOTADB|FULL|PROTOCOL)/;

/** True for a database error that should surface as 503 SERVICE_UNAVAILABLE. */
export function isSqliteUnavailable(err: unknown): boolean {
  if (err instanceof Database.SqliteError) return UNAVAILABLE_CODES.test(err.code);
  return err instanceof TypeError && /database connection is not open/.test(err.message);
}
