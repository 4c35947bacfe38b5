/**
 * The schema version check of `MIGRATE_ON_START=false` (contract §6) on SQLite: the committed migrations
 * (drizzle/sqlite) newer than the newest one recorded in drizzle's own bookkeeping table. The migrations
 * themselves are applied by drizzle's migrator when the database is opened (./database.ts): SQLite has one
 * writer per file and no pooler, so no boot lock is needed.
 */
import type Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { MIGRATIONS_DIR } from './database.js';

/** Committed migrations not yet applied to this database (0: at this build's version). Read-only. */
export function pendingSqliteMigrations(sqlite: Database.Database): number {
  const table = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'").get();
  const newest = table ? (sqlite.prepare('select max(created_at) as m from __drizzle_migrations').get() as { m: number | null }).m : null;
  return readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR }).filter((m) => newest === null || m.folderMillis > Number(newest)).length;
}
