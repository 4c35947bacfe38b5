/**
 * The fair lanes of checkout-session requests (src/pipeline/transport/fair-lanes.ts), turn by turn: the
 * scheduler is the test's, so each "turn of the event loop" is a call the test makes.
 */
import { describe, expect, it } from 'vitest';
import { FairLanes, MAX_BATCH, TURN_TARGET_MS, type LaneTask } from '../../src/pipeline/transport/fair-lanes.js';

/**
 * `turnMs`: how long each turn takes on the test's clock; longer than the target (the default) keeps the
 * batch at one request per turn.
 */
function harness(maxQueued?: number, turnMs = TURN_TARGET_MS * 2) {
  const clock = { now: 0 };
  const turns: (() => void)[] = [];
  const started: string[] = [];
  const shed: string[] = [];
  const shedLanes: string[] = [];
  const lanes = new FairLanes({ maxQueued, schedule: (turn) => turns.push(turn), onShed: (lane) => shedLanes.push(lane), now: () => clock.now });
  const task = (name: string, gone = () => false): LaneTask => ({ start: () => started.push(name), shed: () => shed.push(name), gone });
  /** Run the one scheduled turn (a turn schedules at most one next turn). */
  const turn = (): void => {
    expect(turns.length).toBe(1);
    clock.now += turnMs;
    turns.shift()!();
  };
  return { lanes, task, turn, turns, started, shed, shedLanes, clock };
}

describe('fair lanes', () => {
  it('the first request of a turn starts at once; the next ones wait for turns, one each', () => {
    const h = harness();
    h.lanes.submit('m1', h.task('a1'));
    expect(h.started).toEqual(['a1']);
    h.lanes.submit('m1', h.task('a2'));
    h.lanes.submit('m1', h.task('a3'));
    expect(h.started).toEqual(['a1']);
    expect(h.lanes.queued).toBe(2);
    h.turn();
    expect(h.started).toEqual(['a1', 'a2']);
    h.turn();
    expect(h.started).toEqual(['a1', 'a2', 'a3']);
    h.turn(); // finds the lanes empty: no further turn is scheduled
    expect(h.turns).toHaveLength(0);
    // Idle again: the next request starts at once.
    h.lanes.submit('m1', h.task('a4'));
    expect(h.started.at(-1)).toBe('a4');
  });

  it('merchants take turns, one request each, however long one merchant’s queue is', () => {
    const h = harness();
    h.lanes.submit('crowd', h.task('c0'));
    for (let i = 1; i <= 100; i++) h.lanes.submit('crowd', h.task(`c${i}`));
    h.lanes.submit('other', h.task('o1'));
    h.lanes.submit('third', h.task('t1'));
    h.lanes.submit('other', h.task('o2'));
    for (let i = 0; i < 6; i++) h.turn();
    // Round robin in the order the lanes first queued: crowd, other, third, crowd, other, crowd.
    expect(h.started).toEqual(['c0', 'c1', 'o1', 't1', 'c2', 'o2', 'c3']);
    expect(h.lanes.lanes).toBe(1);
  });

  it('a request whose client left is dropped without using a turn', () => {
    const h = harness();
    h.lanes.submit('m1', h.task('a1'));
    h.lanes.submit('m1', h.task('gone', () => true));
    h.lanes.submit('m2', h.task('b1'));
    h.turn();
    expect(h.started).toEqual(['a1', 'b1']);
    expect(h.lanes.queued).toBe(0);
  });

  it('past the bound the longest lane gives up its newest request; a merchant with few waiting keeps them', () => {
    const h = harness(4);
    h.lanes.submit('crowd', h.task('c0')); // starts
    for (let i = 1; i <= 4; i++) h.lanes.submit('crowd', h.task(`c${i}`));
    h.lanes.submit('other', h.task('o1')); // 5 queued > 4: the crowd's newest goes
    expect(h.shed).toEqual(['c4']);
    for (let i = 5; i <= 20; i++) h.lanes.submit('crowd', h.task(`c${i}`)); // each one is shed at once
    expect(h.shed).toHaveLength(17);
    expect(h.shedLanes.every((l) => l === 'crowd')).toBe(true);
    expect(h.lanes.queued).toBe(4);
    h.lanes.submit('other', h.task('o2')); // the crowd is still the longest: it pays
    expect(h.shed.at(-1)).toBe('c3');
    // Every request got exactly one answer: started, shed or still waiting.
    while (h.turns.length) h.turn();
    expect(new Set([...h.started, ...h.shed]).size).toBe(h.started.length + h.shed.length);
    expect(h.started.length + h.shed.length).toBe(23);
    expect(h.started).toEqual(['c0', 'c1', 'o1', 'c2', 'o2']);
  });

  it('quick turns start growing batches (round robin still), up to the most; a slow turn halves the batch', () => {
    const h = harness(undefined, TURN_TARGET_MS / 4);
    h.lanes.submit('crowd', h.task('c0'));
    for (let i = 1; i <= 1000; i++) h.lanes.submit('crowd', h.task(`c${i}`));
    for (let i = 1; i <= 3; i++) h.lanes.submit('other', h.task(`o${i}`));
    h.turn(); // the first turn has nothing to measure: one request
    expect(h.started).toEqual(['c0', 'c1']);
    h.turn(); // quick: two
    expect(h.started).toEqual(['c0', 'c1', 'o1', 'c2']);
    h.turn(); // four
    expect(h.started.slice(4)).toEqual(['o2', 'c3', 'o3', 'c4']);
    for (let i = 0; i < 10; i++) h.turn();
    expect(h.lanes.batch).toBe(MAX_BATCH);
    // A slow turn (a heavy document): the next batch is half.
    const before = h.started.length;
    h.clock.now += TURN_TARGET_MS * 3;
    h.turn();
    expect(h.lanes.batch).toBe(MAX_BATCH / 2);
    expect(h.started.length - before).toBe(MAX_BATCH / 2);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new FairLanes({ maxQueued: 0 })).toThrow(/maxQueued/);
    expect(() => new FairLanes({ maxQueued: 1.5 })).toThrow(/maxQueued/);
  });
});
