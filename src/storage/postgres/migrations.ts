/**
 * The committed Postgres migrations (drizzle/pg, written by `npm run db:generate`) applied inside a
 * transaction the caller owns, and the schema version check of `MIGRATE_ON_START=false` (contract §6).
 *
 * Why not drizzle's `migrate()`: it opens its own transaction (BEGIN … COMMIT on the connection), so it
 * cannot run inside the transaction that holds the boot lock. Under a transaction pooler (PgBouncer) a
 * session-level advisory lock does not work (lock and unlock land on different server connections), so the
 * boot lock is a transaction-level one and the migrations, the seed and the lock share one transaction.
 * The bookkeeping is drizzle's own (`drizzle.__drizzle_migrations`, one row per migration with its hash and
 * `folderMillis`), read by `readMigrationFiles`, so a database migrated by either path is the same.
 */
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { sql } from 'drizzle-orm';
import { projectPath } from '../../shared/paths.js';
import type { PgDb } from './admin.js';

/** Absolute path of the committed Postgres migrations. */
export const PG_MIGRATIONS_DIR = projectPath('drizzle/pg');

const MIGRATIONS_SCHEMA = 'drizzle';
const MIGRATIONS_TABLE = '__drizzle_migrations';

let committed: MigrationMeta[] | undefined;

/** The committed migrations, oldest first (read once per process). */
function committedMigrations(): MigrationMeta[] {
  committed ??= readMigrationFiles({ migrationsFolder: PG_MIGRATIONS_DIR });
  return committed;
}

/** `folderMillis` of the newest applied migration, or null when none (or no bookkeeping table) exists. Read-only: works on a standby. */
async function newestApplied(db: PgDb): Promise<number | null> {
  const table = await db.execute<{ present: boolean }>(sql`select to_regclass(${`${MIGRATIONS_SCHEMA}.${MIGRATIONS_TABLE}`}) is not null as present`);
  if (!table.rows[0]?.present) return null;
  const newest = await db.execute<{ m: string | null }>(sql`select max(created_at)::text as m from ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)}`);
  const m = newest.rows[0]?.m;
  return m === null || m === undefined ? null : Number(m);
}

/** True once any of this project's migrations has been applied (read-only: creates nothing). */
export async function hasSchema(db: PgDb): Promise<boolean> {
  return (await newestApplied(db)) !== null;
}

/** How far the database's schema is from this build's: the number of committed migrations not applied yet (0: at version). */
export async function pendingMigrationCount(db: PgDb): Promise<number> {
  const applied = await newestApplied(db);
  return committedMigrations().filter((m) => applied === null || m.folderMillis > applied).length;
}

/**
 * Apply every pending migration through `tx`, which must be a transaction (the caller's, holding the boot
 * lock). Returns how many were applied. Same rule as drizzle's migrator: a migration is pending when it is
 * newer than the newest applied one.
 */
export async function applyMigrations(tx: PgDb): Promise<number> {
  await tx.execute(sql`create schema if not exists ${sql.identifier(MIGRATIONS_SCHEMA)}`);
  await tx.execute(
    sql`create table if not exists ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)} (id serial primary key, hash text not null, created_at bigint)`,
  );
  const applied = await newestApplied(tx);
  let count = 0;
  for (const migration of committedMigrations()) {
    if (applied !== null && migration.folderMillis <= applied) continue;
    for (const statement of migration.sql) {
      if (statement.trim()) await tx.execute(sql.raw(statement));
    }
    await tx.execute(
      sql`insert into ${sql.identifier(MIGRATIONS_SCHEMA)}.${sql.identifier(MIGRATIONS_TABLE)} ("hash", "created_at") values (${migration.hash}, ${migration.folderMillis})`,
    );
    count += 1;
  }
  return count;
}
