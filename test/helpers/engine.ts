/**
 * Which storage engine the suite runs on. `npm test` uses SQLite;
 * `npm run test:pg` sets TEST_DB=postgres and the global setup
 * (test/helpers/global-setup.ts) starts one throwaway Postgres server and
 * exports its admin URL as TEST_DATABASE_URL. Each test app then gets a
 * database of its own on that server, dropped when the app closes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import pg from 'pg';

export type TestEngine = 'sqlite' | 'postgres';
export const TEST_ENGINE: TestEngine = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** A fresh, empty Postgres database and how to drop it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL (set by test/helpers/global-setup.ts)');
  return url;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`create database ${name}`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // WITH (FORCE) ends connections a test left open (a killed server's pool), so the drop never hangs.
    drop: () => withAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/**
 * For tests that start real processes (server, admin CLI) on a DATA_DIR: under TEST_DB=postgres, the
 * DATABASE_URL of a database that belongs to that DATA_DIR (created on first use; the same DATA_DIR always
 * maps to the same database, so a server and the CLI in one test share their data, as they share the
 * directory on SQLite). Undefined on SQLite. Synchronous (psql), because environments are built synchronously.
 */
export function databaseUrlForDataDir(dataDir: string): string | undefined {
  if (TEST_ENGINE !== 'postgres') return undefined;
  const name = `d_${createHash('sha256').update(dataDir).digest('hex').slice(0, 20)}`;
  const admin = adminUrl();
  const exists = execFileSync('psql', [admin, '-tAc', `select 1 from pg_database where datname = '${name}'`], { encoding: 'utf8' }).trim();
  if (exists !== '1') execFileSync('psql', [admin, '-qc', `create database ${name}`], { stdio: 'ignore' });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
