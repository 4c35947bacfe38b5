/**
 * Opening the database: one better-sqlite3 connection per process, WAL
 * journal, foreign keys on, migrations from `drizzle/` applied at start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema.js';

/** The typed drizzle handle used by repositories. */
export type Db = BetterSQLite3Database<typeof schema>;

/** An open database: the drizzle handle and the raw connection it wraps. */
export interface DatabaseHandle {
  db: Db;
  sqlite: Database.Database;
  file: string;
  close(): void;
}

/** Absolute path of the committed migrations folder. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Open (creating if needed) and migrate the database at `file` (`:memory:` allowed). */
export function openDatabase(file: string): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 2000');
  sqlite.pragma('synchronous = NORMAL');
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return {
    db,
    sqlite,
    file,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

/** better-sqlite3 result codes that mean "the database cannot be used right now", not a bug. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|READONLY|CORRUPT|NOTADB|FULL|PROTOCOL)/;

/** True for a database error that should surface as 503 SERVICE_UNAVAILABLE. */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof Database.SqliteError) return UNAVAILABLE_CODES.test(err.code);
  return err instanceof TypeError && /database connection is not open/.test(err.message);
}
