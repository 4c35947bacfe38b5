/**
 * The staleness bound of contract §6 (src/storage/model/freshness.ts) on a fake clock: served while the
 * catalogue's age (from the last moment it was known current) is within MAX_STALENESS_SECONDS, refused past
 * it, one warning per outage naming the cause; and the cause of a Postgres failure unwrapped for that
 * warning (src/storage/errors.ts describeStorageFailure) from real pg errors.
 */
import net from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CatalogueFreshness } from '../../src/storage/model/freshness.js';
import { describeStorageFailure } from '../../src/storage/index.js';

function setup(maxStalenessMs: number) {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as { level: number; msg: string }) });
  const clock = { now: 1_000_000 };
  const freshness = new CatalogueFreshness({ maxStalenessMs, logger, location: 'test', now: () => clock.now });
  return { freshness, clock, lines };
}

describe('catalogue freshness (MAX_STALENESS_SECONDS)', () => {
  it('nothing is served before the first load', () => {
    const { freshness } = setup(3000);
    expect(freshness.status().ok).toBe(false);
    freshness.failed('connect ECONNREFUSED 127.0.0.1:5432');
    expect(freshness.status()).toMatchObject({ ok: false, reason: expect.stringMatching(/not loaded.*ECONNREFUSED/) as unknown });
  });

  it('served up to the bound counted from the last known-current moment, refused past it, served again once current', () => {
    const { freshness, clock, lines } = setup(3000);
    freshness.current(clock.now);
    const knownCurrent = clock.now;
    clock.now += 400; // the failure is noticed a poll later: it does not extend the bound
    freshness.failed('connect ECONNREFUSED 127.0.0.1:5432');
    for (const at of [400, 1000, 2999, 3000]) {
      clock.now = knownCurrent + at;
      expect(freshness.status().ok, `${at} ms`).toBe(true);
      freshness.failed('connect ECONNREFUSED 127.0.0.1:5432');
    }
    expect(freshness.ageSeconds()).toBe(3);
    clock.now = knownCurrent + 3001;
    const refused = freshness.status();
    expect(refused.ok).toBe(false);
    expect(refused.reason).toMatch(/MAX_STALENESS_SECONDS.*ECONNREFUSED/);
    freshness.status();
    // One warning at the start, one error at the bound, whatever the number of failures and checks.
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringMatching(/database unreachable \(connect ECONNREFUSED 127\.0\.0\.1:5432\)/) as unknown]);
    expect(lines.filter((l) => l.level === 50)).toHaveLength(1);

    clock.now += 5000;
    freshness.current(clock.now);
    expect(freshness.status().ok).toBe(true);
    expect(freshness.ageSeconds()).toBe(0);
    expect(lines.at(-1)?.msg).toMatch(/reachable again/);
  });

  it('a bound of 0 refuses as soon as the failure is known', () => {
    const { freshness, clock } = setup(0);
    freshness.current(clock.now);
    clock.now += 1;
    freshness.failed('gone');
    expect(freshness.status().ok).toBe(false);
  });
});

describe('the cause of a Postgres failure', () => {
  async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  it('names the refused address and port, also under a query wrapper (drizzle) and an AggregateError (one attempt per address)', async () => {
    const port = await closedPort();
    const client = new pg.Client({ connectionString: `postgres://u@127.0.0.1:${port}/db`, connectionTimeoutMillis: 2000 });
    const refused = await client.connect().then(
      () => null,
      (err: unknown) => err,
    );
    expect(describeStorageFailure(refused)).toMatch(new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
    const wrapped = new Error('Failed query: select max("seq") from "change_log"', { cause: new AggregateError([refused, refused], '') });
    expect(describeStorageFailure(wrapped)).toBe(describeStorageFailure(refused));
  });

  it('gives a server error its SQLSTATE', () => {
    const err = Object.assign(new Error('cannot execute LISTEN during recovery'), { code: '25006' });
    expect(describeStorageFailure(new Error('Failed query: LISTEN x', { cause: err }))).toBe('cannot execute LISTEN during recovery [SQLSTATE 25006]');
  });
});
