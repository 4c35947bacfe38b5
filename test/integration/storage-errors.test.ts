/**
 * Storage failures are told apart the same way on both engines (src/storage/errors.ts): a database that
 * cannot be used right now (503, the process stays up) versus a bug (500, masked). Real engines, real errors.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../src/storage/index.js';
import { makeTempDir } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/engine.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function failureOf(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('SQLite', () => {
  it('a closed connection and a busy database are unavailable; a bad statement is a bug', async () => {
    const dir = makeTempDir('pgw-storage-errors-');
    dirs.push(dir);
    const file = path.join(dir, 'x.db');
    const a = new Database(file);
    const b = new Database(file);
    try {
      a.exec('create table t (v text)');
      expect(isStorageUnavailable(await failureOf(() => a.exec('select * from nowhere')))).toBe(false);
      b.pragma('busy_timeout = 0');
      a.exec('begin exclusive');
      expect(isStorageUnavailable(await failureOf(() => b.exec("insert into t values ('x')")))).toBe(true);
      a.exec('rollback');
    } finally {
      a.close();
      b.close();
    }
    expect(isStorageUnavailable(await failureOf(() => a.exec('select 1')))).toBe(true);
  });
});

describe('Postgres', () => {
  it('a refused connection is unavailable', async () => {
    const client = new pg.Client({ connectionString: `postgres://nobody@127.0.0.1:${await closedPort()}/x`, connectionTimeoutMillis: 2000 });
    expect(isStorageUnavailable(await failureOf(() => client.connect()))).toBe(true);
  });

  it.runIf(Boolean(process.env.TEST_DATABASE_URL))('a read-only transaction refusing a write is unavailable; a bad statement is a bug', async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      expect(isStorageUnavailable(await failureOf(() => client.query('select * from nowhere')))).toBe(false);
      await client.query('begin read only');
      expect(isStorageUnavailable(await failureOf(() => client.query('create table t (v text)')))).toBe(true);
      await client.query('rollback');
    } finally {
      await client.end();
      await db.drop();
    }
  });

  it('non-database failures are not storage failures', () => {
    expect(isStorageUnavailable(new Error('boom'))).toBe(false);
    expect(isStorageUnavailable(undefined)).toBe(false);
    expect(isStorageUnavailable('ECONNREFUSED')).toBe(false);
  });
});
