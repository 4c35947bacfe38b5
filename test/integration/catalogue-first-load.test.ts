/**
 * A replica's first load and another process's commit at the same moment, on the engine under test (TEST_DB):
 * the commit lands after the load's snapshot was read and before the loaded catalogue is swapped in (what a
 * server waiting for `npm run migrate` meets when it loads between the migration's schema and its demo data).
 * Whatever the load missed is served from the next check on, as any change is; it is never counted as applied.
 *
 * The commit is placed there deterministically by the catalogue the store loads into: on SQLite the first load
 * reads and swaps within one synchronous call, so the commit is made in `commit` through a connection of its
 * own (better-sqlite3 is synchronous too); on Postgres the load settles a step per event-loop turn before the
 * swap, so the commit is made, and waited for, in those steps.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/modules/catalogue/catalog.js';
import { DATABASE_FILE, openStore, type Store } from '../../src/storage/index.js';
import type { CatalogueLoad } from '../../src/storage/model/store.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A catalogue whose first load has `write` committed between its snapshot and its swap: `sync` in `commit`
 * (SQLite), or `async` during the settle steps, each step waiting a turn until it is committed (Postgres).
 */
class CommitDuringFirstLoad extends Catalog {
  #loads = 0;
  /** The write was committed (inside the first load). */
  written = false;

  constructor(private readonly write: { sync: () => void } | { async: () => Promise<void> }) {
    super();
  }

  override beginLoad(): CatalogueLoad {
    const load = super.beginLoad();
    if ((this.#loads += 1) > 1) return load;
    const { write } = this;
    const written = () => (this.written = true);
    return {
      add: (rows) => load.add(rows),
      *settle() {
        if ('async' in write) {
          const outcome: { committed: boolean; error?: Error } = { committed: false };
          write.async().then(
            () => (outcome.committed = true),
            (err: unknown) => (outcome.error = err instanceof Error ? err : new Error(String(err))),
          );
          while (!outcome.committed && outcome.error === undefined) yield;
          if (outcome.error) throw outcome.error;
          written();
        }
        for (const steps = load.settle(); !steps.next().done; ) yield;
      },
      commit: (lastSeq) => {
        if ('sync' in write) {
          write.sync();
          written();
        }
        load.commit(lastSeq);
      },
    };
  }
}

describe("a commit landing during a replica's first load", () => {
  it('is served from the next check on: the load never counts it as applied', async () => {
    const t: TestApp = await createTestApp();
    cleanups.push(() => t.close());
    const merchantId = t.approved.merchantId;
    const renamed = 'renamed while the first load was read';
    const statement = `update merchants set name = '${renamed}' where id = '${merchantId}'`;

    let write: ConstructorParameters<typeof CommitDuringFirstLoad>[0];
    if (t.sqlTarget.engine === 'sqlite') {
      // Another process's connection (as the admin CLI's): its commit moves the replica's data_version.
      const other = new Database(path.join(t.dataDir, DATABASE_FILE));
      cleanups.push(() => void other.close());
      write = { sync: () => void other.exec(statement) };
    } else {
      write = { async: () => t.sql().exec(statement) };
    }
    const catalogue = new CommitDuringFirstLoad(write);
    const databaseUrl = t.sqlTarget.engine === 'postgres' ? t.sqlTarget.url : null;
    const { store }: { store: Store<CommitDuringFirstLoad> } = await openStore({ dataDir: t.dataDir, databaseUrl, catalogue, watch: true, maxStalenessSeconds: 300 });
    cleanups.push(() => store.close());

    // The load read the snapshot before the commit: the catalogue it swapped in has the old name.
    expect(catalogue.written).toBe(true);
    expect(catalogue.merchantNameOf(merchantId)).toBe(t.approved.name);

    // A commit by another process is seen by every request from the next event-loop turn on.
    await new Promise((resolve) => setImmediate(resolve));
    if (t.sqlTarget.engine === 'sqlite') {
      // A request's check catches up at once (no later commit, no timer needed).
      expect(store.check().ok).toBe(true);
      expect(catalogue.merchantNameOf(merchantId)).toBe(renamed);
    }
    // And a sync (every commit made before it) on either engine.
    await store.sync();
    expect(catalogue.merchantNameOf(merchantId)).toBe(renamed);
  });
});
