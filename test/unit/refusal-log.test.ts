/**
 * Repeated refusals are summarised in the log (src/pipeline/refusal-log.ts): per (client address, code) a
 * first line, then a count at most once a second; a bounded table of pairs, the rest counted together.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { IDLE_MS, RefusalLog } from '../../src/pipeline/refusal-log.js';

function harness(maxTracked?: number) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  const clock = { now: 1_000_000 };
  const log = new RefusalLog(logger, { maxTracked, now: () => clock.now });
  const firsts: string[] = [];
  const refuse = (address: string, code = 'SESSION_INVALID', status = 401) => log.record(address, code, status, () => firsts.push(`${address} ${code}`));
  return { lines, clock, log, firsts, refuse };
}

describe('refusal log', () => {
  it('writes the first refusal of a pair, then its count at most once a second', () => {
    const h = harness();
    for (let i = 0; i < 500; i++) h.refuse('10.0.0.1');
    expect(h.firsts).toEqual(['10.0.0.1 SESSION_INVALID']);
    expect(h.lines).toEqual([]);
    h.clock.now += 999;
    h.refuse('10.0.0.1');
    expect(h.lines).toEqual([]);
    h.clock.now += 1;
    h.refuse('10.0.0.1');
    expect(h.lines).toEqual([expect.objectContaining({ msg: 'refusals repeated', clientAddress: '10.0.0.1', errorCode: 'SESSION_INVALID', status: 401, count: 501 })]);
    // Another code of the same address is its own pair: its own first line.
    h.refuse('10.0.0.1', 'RATE_LIMITED', 429);
    expect(h.firsts).toEqual(['10.0.0.1 SESSION_INVALID', '10.0.0.1 RATE_LIMITED']);
    h.log.close();
  });

  it('writes a quiet pair\'s count at the sweep, then forgets it when idle', () => {
    const h = harness();
    h.refuse('10.0.0.2');
    h.refuse('10.0.0.2');
    h.refuse('10.0.0.2');
    h.clock.now += 1000;
    h.log.sweep();
    expect(h.lines).toEqual([expect.objectContaining({ clientAddress: '10.0.0.2', count: 2 })]);
    expect(h.log.tracked).toBe(1);
    h.clock.now += IDLE_MS;
    h.log.sweep();
    expect(h.log.tracked).toBe(0);
    h.refuse('10.0.0.2');
    expect(h.firsts).toHaveLength(2);
    h.log.close();
  });

  it('tracks at most maxTracked pairs; past the bound refusals are counted together, one line a second', () => {
    const h = harness(10);
    for (let round = 0; round < 3; round++) {
      for (let a = 0; a < 1000; a++) h.refuse(`10.1.${a >> 8}.${a & 255}`);
      h.clock.now += 1000;
    }
    expect(h.log.tracked).toBe(11);
    expect(h.firsts).toHaveLength(10);
    const untracked = h.lines.filter((l) => l.clientAddress === '*');
    // Its first refusal (a line of one), then one line a second: 3 rounds of 990 untracked refusals.
    expect(untracked.length).toBeLessThanOrEqual(4);
    expect(untracked.reduce((n, l) => n + Number(l.count), 0) + h.lines.filter((l) => l.clientAddress !== '*').reduce((n, l) => n + Number(l.count), 0)).toBeLessThanOrEqual(3000 - 10);
    h.log.close();
    // Every refusal is in a line: the first lines plus every count written (close writes what is pending).
    const counted = h.lines.reduce((n, l) => n + Number(l.count), 0);
    expect(counted + h.firsts.length).toBe(3000);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new RefusalLog(pino({ level: 'silent' }), { maxTracked: 0 })).toThrow(/positive integer/);
  });
});
