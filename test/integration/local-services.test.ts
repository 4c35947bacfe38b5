/**
 * The throwaway-server module (scripts/lib/local-services.ts) itself: Postgres and Redis start on free
 * loopback ports, real clients (pg, ioredis) use them, stopServer/startServer keep data and port, pause
 * freezes them, stop() leaves no process and no directory behind.
 *
 * One pass (npm test): it tests the harness that starts Postgres, Redis, PgBouncer and HAProxy, not the engine under the app.
 */
import fs from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptsConnections as accepts, localServicesSkipReason, startPostgres, startRedis, type LocalService } from '../helpers/local-services.js';

const skipPostgres = localServicesSkipReason('postgres');
const skipRedis = localServicesSkipReason('redis');

const started: LocalService[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, query_timeout: 2000 });
  client.on('error', () => undefined); // surfaced by the awaited calls below
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end().catch(() => undefined); // a dead server has nothing left to close
  }
}

describe.skipIf(skipPostgres)('throwaway Postgres', () => {
  it('starts on a free loopback port with a database, keeps data across stopServer/startServer, freezes on pause, leaves nothing after stop', async () => {
    const postgres = await startPostgres({ database: 'gateway_test' });
    started.push(postgres);
    expect(postgres.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/gateway_test$/);
    expect(postgres.running()).toBe(true);

    await query(postgres.url, 'CREATE TABLE t (v text); INSERT INTO t VALUES (\'kept\')');
    expect(await query(postgres.url, 'SELECT v FROM t')).toEqual([{ v: 'kept' }]);
    expect(await query(postgres.url, 'SHOW listen_addresses')).toEqual([{ listen_addresses: '127.0.0.1' }]);

    await postgres.stopServer();
    expect(postgres.running()).toBe(false);
    expect(await accepts(postgres.port)).toBe(false);
    await expect(query(postgres.url, 'SELECT 1')).rejects.toThrow();

    await postgres.startServer(); // same data, same port
    expect(await query(postgres.url, 'SELECT v FROM t')).toEqual([{ v: 'kept' }]);

    postgres.pause();
    expect(await accepts(postgres.port)).toBe(true); // the kernel still accepts ...
    await expect(query(postgres.url, 'SELECT 1')).rejects.toThrow(); // ... but nothing answers
    postgres.resume();
    expect(await query(postgres.url, 'SELECT v FROM t')).toEqual([{ v: 'kept' }]);

    await postgres.stop();
    expect(fs.existsSync(postgres.dir)).toBe(false);
    expect(await accepts(postgres.port)).toBe(false);
    await postgres.stop(); // idempotent
  });
});

describe.skipIf(skipRedis)('throwaway Redis', () => {
  it('starts on a free loopback port, stopServer/startServer reuse the port, pause freezes it, stop leaves nothing', async () => {
    const redis = await startRedis();
    started.push(redis);
    expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    const client = new Redis(redis.url, { enableOfflineQueue: false, commandTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => 50, lazyConnect: true });
    client.on('error', () => undefined); // reconnect errors while the server is stopped are expected; commands below assert
    try {
      await client.connect();
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');

      await redis.stopServer();
      expect(await accepts(redis.port)).toBe(false);
      await expect(client.ping()).rejects.toThrow();

      await redis.startServer();
      await waitFor(async () => (await client.ping().catch(() => 'down')) === 'PONG');
      expect(await client.get('k')).toBeNull(); // no persistence: a restarted Redis is empty

      redis.pause();
      await expect(client.ping()).rejects.toThrow(/timed out/i);
      redis.resume();
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
    await redis.stop();
    expect(fs.existsSync(redis.dir)).toBe(false);
    expect(await accepts(redis.port)).toBe(false);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
