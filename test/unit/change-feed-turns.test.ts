/**
 * The change feed wakes its watchers in turns of WAKE_BATCH (src/modules/live/change-feed.ts): the
 * first turn's streams compute and send their events before the next turn's are woken, so their bytes go out
 * and other requests are served between turns. Every watcher still gets the change, a watcher gone before its
 * turn is skipped, and a newer change during the turns reaches every watcher with the newer version.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFeed, WAKE_BATCH, type ChangeEvent } from '../../src/modules/live/change-feed.js';
import { FAKE_FEED_PRINCIPAL, fakeFeedStore } from '../helpers/fake-feed-store.js';

const principal = FAKE_FEED_PRINCIPAL;
/** Lets every pending promise reaction run (a woken watcher's next() resolves in a few hops). */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

let feed: ChangeFeed | undefined;
afterEach(() => feed?.shutdown());

describe('change feed: watchers woken in turns', () => {
  it(`wakes ${WAKE_BATCH} watchers in the change's own turn and the rest in the turns after it; each reports the change once`, async () => {
    const { store, change } = fakeFeedStore();
    feed = new ChangeFeed({ store: store as never, catchUpIntervalMs: 60_000 });
    const watchers = Array.from({ length: WAKE_BATCH * 2 + 10 }, () => feed!.watch(principal));
    // The first event of each is the current state.
    for (const w of watchers) expect(((await w.next()).value as ChangeEvent).kind).toBe('changed');
    const got: (ChangeEvent | undefined)[] = new Array(watchers.length);
    const waiting = watchers.map((w, i) => w.next().then((r) => (got[i] = r.value as ChangeEvent)));
    // One gone before its turn: skipped, nothing thrown.
    await watchers.at(-1)!.return!();

    change('v2');
    await settle();
    expect(got.filter(Boolean).length).toBe(WAKE_BATCH);
    await turn();
    await settle();
    expect(got.filter(Boolean).length).toBe(2 * WAKE_BATCH);
    await turn();
    await settle();
    // The last watcher returned: its pending next() ended (done), the others reported v2.
    await Promise.all(waiting);
    const changed = got.filter((e) => e?.kind === 'changed');
    expect(changed.length).toBe(watchers.length - 1);
    expect(changed.every((e) => e.kind === 'changed' && e.version === 'v2')).toBe(true);
  });

  it('a newer change during the turns reaches every watcher with the newer version', async () => {
    const { store, change } = fakeFeedStore();
    feed = new ChangeFeed({ store: store as never, catchUpIntervalMs: 60_000 });
    const watchers = Array.from({ length: WAKE_BATCH * 3 }, () => feed!.watch(principal));
    for (const w of watchers) await w.next();
    const reported: string[][] = watchers.map(() => []);
    // Each watcher keeps reading: it reports every version it is woken for.
    const readers = watchers.map(async (w, i) => {
      for (;;) {
        const r = await w.next();
        if (r.done) return;
        if (r.value.kind === 'changed') reported[i]!.push(r.value.version);
      }
    });
    change('v2');
    await settle();
    // Only the first turn has woken; the next change comes before the others' turns.
    change('v3');
    for (let i = 0; i < 5; i++) {
      await turn();
      await settle();
    }
    // Every watcher ends on v3, none reports a version twice in a row, and those of the first turn saw v2 first.
    for (const [i, versions] of reported.entries()) {
      expect(versions.at(-1), `watcher ${i}`).toBe('v3');
      expect(versions.every((v, j) => j === 0 || versions[j - 1] !== v)).toBe(true);
    }
    expect(reported.slice(0, WAKE_BATCH).every((v) => v[0] === 'v2')).toBe(true);
    feed.shutdown();
    await Promise.all(readers);
  });
});
