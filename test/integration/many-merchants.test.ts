/**
 * Contract §15 on the engine under test (TEST_DB): a replica's catalogue at scale, with small data sets and
 * a small catch-up slice so the behaviour that matters at 100,000 merchants shows with a few dozen.
 * - a k-merchant SQL UPDATE is applied in slices, each merchant once (work counted, not timed), on SQLite
 *   one turn per event-loop iteration (turns counted);
 * - a catch-up naming more ids than SQLite's 32,766 bound variables works (ids read in chunks);
 * - a SQLite checkpoint by another connection is a routine write: caught up, no reload;
 * - a SQLite reload while serving reads a page per event-loop turn (turns counted), the live catalogue served until the swap;
 * - a restored SQLite file is validated in a worker thread: a main-thread timer ticks meanwhile (ticks counted);
 * - pruning deletes old change-log rows but keeps the newest, and a replica behind the pruned horizon reloads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/modules/catalogue/catalog.js';
import { DATABASE_FILE, openMonitoredSqlite, openStore, type Store } from '../../src/storage/index.js';
import { LOAD_PAGE, type ChangedEntities } from '../../src/storage/model/catalogue-rows.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** A catalogue whose `apply` can be made to fail: its replica then stays behind, as a stalled one would. */
class PausableCatalog extends Catalog {
  paused = false;
  override apply(changed: ChangedEntities, lastSeq: number): void {
    if (this.paused) throw new Error('paused by the test');
    super.apply(changed, lastSeq);
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function app(): Promise<TestApp> {
  const t = await createTestApp();
  cleanups.push(() => t.close());
  return t;
}

/** Another replica on the app's data, catching up `slice` change-log rows at a time. */
async function replica<C extends Catalog>(t: TestApp, catalogue: C, slice: number): Promise<Store<C>> {
  const databaseUrl = t.sqlTarget.engine === 'postgres' ? t.sqlTarget.url : null;
  // One slice a turn (no time budget), so the slices show with a few dozen merchants.
  const { store } = await openStore({ dataDir: t.dataDir, databaseUrl, catalogue, watch: true, history: { catchUpSlice: slice, catchUpTurnMs: 0 }, maxStalenessSeconds: 300 });
  cleanups.push(() => store.close());
  return store;
}

/** `n` merchants named `bulk N`, each with the approved demo merchant's channels, in one statement per table. */
async function insertMerchants(t: TestApp, n: number): Promise<void> {
  const numbers =
    t.sqlTarget.engine === 'sqlite'
      ? `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${n}) select n from s`
      : `select n from generate_series(1, ${n}) as s(n)`;
  await t.sql().exec(`insert into merchants (id, name, kyc_status) select 'bulk-' || n, 'bulk ' || n, 'approved' from (${numbers}) as x`);
  await t.sql().exec(
    `insert into merchant_channels (merchant_id, channel_id) select m.id, mc.channel_id from merchants m cross join merchant_channels mc where m.id like 'bulk-%' and mc.merchant_id = '${t.approved.merchantId}'`,
  );
}

/**
 * A replica of 10,000 merchants (each per-merchant table takes several pages of LOAD_PAGE rows; quick_check
 * reads well over a hundred thousand rows) and a backup of its file, taken before the replica applied a
 * change: restored, the file lacks the row the replica applied last (a restore, not a checkpoint).
 */
async function backedUpReplica(): Promise<{ r: Store<Catalog>; file: string; backup: string }> {
  const t = await app();
  await insertMerchants(t, 2 * LOAD_PAGE);
  const r = await replica(t, new Catalog(), 1000);
  const file = path.join(t.dataDir, DATABASE_FILE);
  const backup = path.join(t.dataDir, 'backup.db');
  await t.sql().exec(`VACUUM INTO '${backup}'`);
  await t.sql().exec(`update merchants set name = 'after the backup' where id = 'bulk-1'`);
  await t.sql().exec('pragma wal_checkpoint(TRUNCATE)');
  await r.sync();
  expect(r.catalog.merchantNameOf('bulk-1')).toBe('after the backup');
  return { r, file, backup };
}

describe('many merchants: changes cost what they touch (contract §15)', () => {
  it('a k-merchant SQL UPDATE is applied in slices, each merchant once, and is visible after catching up', async () => {
    const t = await app();
    await insertMerchants(t, 60);
    const r = await replica(t, new Catalog(), 7);
    await r.sync();
    expect(r.catalog.kycOf('bulk-60')).toBe('approved');
    let emits = 0;
    const off = r.onChange(() => (emits += 1));
    const before = r.catalog.counters;

    await t.sql().exec(`update merchants set kyc_status = 'rejected' where id like 'bulk-%'`);
    await r.sync();
    off();

    for (let i = 1; i <= 60; i += 1) expect(r.catalog.kycOf(`bulk-${i}`)).toBe('rejected');
    expect(r.catalog.kycOf(t.approved.merchantId)).toBe('approved');
    // 60 change-log rows, 7 a slice: 9 slices, each announced; 60 merchants handled, none twice, no reload.
    expect(emits).toBeGreaterThanOrEqual(Math.ceil(60 / 7));
    expect(r.catalog.counters.work - before.work).toBe(60);
    expect(r.catalog.counters.reloads).toBe(before.reloads);
  });

  it.skipIf(process.env.TEST_DB === 'postgres')('a large SQLite catch-up takes one turn per event-loop iteration, after the requests that came meanwhile', async () => {
    const t = await app();
    await insertMerchants(t, 30);
    const r = await replica(t, new Catalog(), 7);
    await r.sync();
    const before = r.catalog.counters.work;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await t.sql().exec(`update merchants set kyc_status = 'rejected' where id like 'bulk-%'`);
    await turn(); // a commit elsewhere is seen from the next turn on
    r.version(); // a request notices: one turn of catch-up (one slice here)
    expect(r.catalog.counters.work - before).toBe(7);
    r.version(); // more requests in the same iteration: served from what is applied, no more work
    expect(r.catalog.counters.work - before).toBe(7);
    await turn(); // this iteration's check phase: the continuation waits for the next poll phase
    expect(r.catalog.counters.work - before).toBe(7);
    await turn(); // the next iteration: one more turn
    expect(r.catalog.counters.work - before).toBe(14);
    await r.sync();
    expect(r.catalog.counters.work - before).toBe(30);
  });

  it('a catch-up naming more ids than SQLite binds in one statement reads them in chunks', async () => {
    const t = await app();
    const r = await replica(t, new Catalog(), 50_000);
    await r.sync();
    const before = r.catalog.counters;
    const numbers =
      t.sqlTarget.engine === 'sqlite'
        ? `with recursive s(n) as (select 1 union all select n + 1 from s where n < 33000) select n from s`
        : `select n from generate_series(1, 33000) as s(n)`;
    // Change-log rows naming 33,000 merchants that do not exist (an operator's script gone wrong): deletions of nothing.
    await t.sql().exec(`insert into change_log (entity, entity_id) select 'merchant', 'ghost-' || n from (${numbers}) as x`);
    await t.sql().exec(`update merchants set name = 'after the ghosts' where id = '${t.approved.merchantId}'`);
    await r.sync();
    expect(r.catalog.merchantNameOf(t.approved.merchantId)).toBe('after the ghosts');
    expect(r.catalog.counters.work - before.work).toBe(33_001);
  });

  it.skipIf(process.env.TEST_DB === 'postgres')('a SQLite checkpoint by another connection is caught up without a reload', async () => {
    const t = await app();
    const r = await replica(t, new Catalog(), 1000);
    await r.sync();
    const reloads = r.catalog.counters.reloads;
    for (let i = 0; i < 3; i += 1) {
      // The admin CLI's pattern: writes in a burst, each followed by a checkpoint, then one more write; the
      // replica looks only afterwards (a fresh connection's version token must not pass for the old one's).
      for (let j = 0; j < 5; j += 1) {
        await t.sql().exec(`update merchants set name = 'burst ${i}.${j}' where id = '${t.approved.merchantId}'`);
        // Moves the WAL's pages into the database file: its size and times change, its inode does not.
        await t.sql().exec('pragma wal_checkpoint(TRUNCATE)');
      }
      await t.sql().exec(`update merchants set name = 'checkpointed ${i}' where id = '${t.approved.merchantId}'`);
      await new Promise((resolve) => setImmediate(resolve)); // a commit elsewhere is seen from the next turn on
      expect(r.check().ok).toBe(true);
      await r.sync();
      expect(r.catalog.merchantNameOf(t.approved.merchantId)).toBe(`checkpointed ${i}`);
    }
    expect(r.catalog.counters.reloads).toBe(reloads);
  });

  it.skipIf(process.env.TEST_DB === 'postgres')('a SQLite reload while serving (a restored file) reads a page per turn: timers run between, the live catalogue is served until the swap', async () => {
    const { r, file, backup } = await backedUpReplica();
    const reloads = r.catalog.counters.reloads;

    fs.unlinkSync(file);
    fs.copyFileSync(backup, file);
    expect(r.check().ok).toBe(true); // notices the restore and starts the reload beside the live catalogue
    let turns = 0;
    while (r.catalog.counters.reloads === reloads) {
      // Until the swap every request is answered from the live catalogue, whole.
      expect(r.catalog.merchantNameOf('bulk-1')).toBe('after the backup');
      expect(r.catalog.kycOf('bulk-10000')).toBe('approved');
      await new Promise((resolve) => setTimeout(resolve, 0));
      turns += 1;
    }
    // merchants: 3 pages, merchant_channels: 10,000 × the demo merchant's channels in pages of 5,000, then the settle steps.
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(r.catalog.merchantNameOf('bulk-1')).toBe('bulk 1');
    expect(r.catalog.counters.reloads).toBe(reloads + 1);
  });

  it.skipIf(process.env.TEST_DB === 'postgres')('a restored SQLite file is validated off the event loop: timers run while it is checked, the live catalogue is served until the swap', async () => {
    const { r, file, backup } = await backedUpReplica();
    // The monitored connection itself, as a replica opens it, to see its validation from outside.
    const handle = openMonitoredSqlite(file, { migrate: false });
    cleanups.push(() => Promise.resolve(handle.close()));
    expect(handle.check().ok).toBe(true);
    const { generation, replacements } = handle;

    // A timer of the main thread, ticking once per event-loop iteration for as long as the test runs.
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    cleanups.push(() => Promise.resolve(void (ticking = false)));

    fs.unlinkSync(file);
    fs.copyFileSync(backup, file);
    await new Promise((resolve) => setImmediate(resolve)); // a change of the file is seen from the next turn on
    const ticksAtCheck = ticks;
    // Noticed: the validation starts in a worker; the check answers at once, without the new file.
    expect(handle.check()).toMatchObject({ ok: false, reason: expect.stringMatching(/validating/) });
    expect(handle.validating).toBe(true);
    expect(handle.replacements).toBe(replacements);
    // (The worker's answer comes in a later iteration of the event loop, never within this turn.)
    let ticksAtSwap = -1;
    handle.onReplaced(() => (ticksAtSwap = ticks));
    // The replica notices too, and keeps serving what it has while its own validation runs.
    expect(r.check().ok).toBe(true);
    let turns = 0;
    while (handle.validating) {
      expect(r.catalog.merchantNameOf('bulk-1')).toBe('after the backup');
      await new Promise((resolve) => setImmediate(resolve));
      turns += 1;
    }
    // The timer kept ticking while the file was validated: the swap came in a later iteration, after it ran.
    expect(turns).toBeGreaterThanOrEqual(1);
    expect(ticksAtSwap).toBeGreaterThan(ticksAtCheck);
    expect(handle.replacements).toBe(replacements + 1);
    expect(handle.generation).toBe(generation + 1);
    expect(handle.check().ok).toBe(true);
    expect(handle.sqlite.prepare(`select name from merchants where id = 'bulk-1'`).pluck().get()).toBe('bulk 1');

    // The replica's swap starts its reload by itself; sync() waits for both.
    await r.sync();
    expect(r.catalog.merchantNameOf('bulk-1')).toBe('bulk 1');
  });

  it('pruning deletes old change-log rows but the newest, and a replica behind the pruned horizon reloads', async () => {
    const t = await app();
    const catalogue = new PausableCatalog();
    const r = await replica(t, catalogue, 1000);
    await r.sync();
    const reloads = catalogue.counters.reloads;
    catalogue.paused = true;
    for (let i = 0; i < 5; i += 1) await t.sql().exec(`update merchants set name = 'missed ${i}' where id = '${t.approved.merchantId}'`);
    const rowsBefore = Number((await t.sql().all<{ n: number }>('select count(*) as n from change_log'))[0]!.n);
    // As of a day from now, every row is past the retention (MAX_STALENESS_SECONDS + 1 h): all go but the newest.
    let pruned = 0;
    for (let p = await t.store.pruneHistory(Date.now() + 86_400_000); p > 0; p = await t.store.pruneHistory(Date.now() + 86_400_000)) pruned += p;
    const left = await t.sql().all<{ n: number }>('select count(*) as n from change_log');
    expect(Number(left[0]!.n)).toBe(1);
    expect(pruned).toBe(rowsBefore - 1);

    await t.sql().exec(`update merchants set name = 'after the prune' where id = '${t.approved.merchantId}'`);
    catalogue.paused = false;
    await r.sync();
    expect(catalogue.merchantNameOf(t.approved.merchantId)).toBe('after the prune');
    expect(catalogue.counters.reloads).toBe(reloads + 1);
  });

  it('a replica that is not behind the horizon keeps catching up without a reload after a prune', async () => {
    const t = await app();
    const r = await replica(t, new Catalog(), 1000);
    await t.sql().exec(`update merchants set name = 'before the prune' where id = '${t.approved.merchantId}'`);
    await r.sync();
    const reloads = r.catalog.counters.reloads;
    while ((await t.store.pruneHistory(Date.now() + 86_400_000)) > 0);
    await t.sql().exec(`update merchants set name = 'after the prune' where id = '${t.approved.merchantId}'`);
    await r.sync();
    expect(r.catalog.merchantNameOf(t.approved.merchantId)).toBe('after the prune');
    expect(r.catalog.counters.reloads).toBe(reloads);
  });
});
