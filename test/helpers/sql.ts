/**
 * Raw SQL on a test database from a connection of its own, as an operator's psql/sqlite3 session or another
 * process would: the app sees such commits only through its change feed (the change-log triggers), which is
 * what the tests using this want to exercise. Tests reach the engines only here and through the storage door.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

export type SqlTarget = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

export interface SqlConnection {
  exec(statement: string): Promise<void>;
  all<T>(statement: string): Promise<T[]>;
  close(): Promise<void>;
}

export function openSqlConnection(target: SqlTarget): SqlConnection {
  if (target.engine === 'sqlite') {
    const db = new Database(target.file);
    // The app's own connection may hold the write lock for a moment.
    db.pragma('busy_timeout = 2000');
    return {
      // better-sqlite3 is synchronous; promises keep one interface for both engines (a throw becomes a rejection).
      exec: (statement) => new Promise<void>((resolve) => resolve(void db.exec(statement))),
      all: <T>(statement: string) => new Promise<T[]>((resolve) => resolve(db.prepare(statement).all() as T[])),
      close: () => new Promise<void>((resolve) => resolve(void db.close())),
    };
  }
  const pool = new pg.Pool({ connectionString: target.url, max: 1 });
  return {
    exec: async (statement) => void (await pool.query(statement)),
    all: async <T>(statement: string) => (await pool.query(statement)).rows as T[],
    close: () => pool.end(),
  };
}
