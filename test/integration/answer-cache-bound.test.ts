/**
 * The answer cache (src/pipeline/plugins/use-answer-cache.ts) driven past its entry bound through the app: with
 * room for ENTRIES answers, asking 4 × ENTRIES distinct questions (each twice, so each is admitted) must
 * not keep them all; a kept answer is served again only while it fits. docs/OPERATIONS.md, "Memory bounds".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

const ENTRIES = 50;
const CALC = 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { amount fee } }';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ transport: 'in-process', app: { answerCacheEntries: ENTRIES } });
});
afterAll(() => t?.close());

const ask = async (n: number) => {
  const res = await gql(t, CALC, { i: { amount: 10_000 + n, currency: 'IDR', method: 'QRIS' } });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { data: { calculateFee: { amount: number } } }).data.calculateFee.amount).toBe(10_000 + n);
};

describe('answer cache past its bound', () => {
  it(`holds at most ${ENTRIES} answers: of ${4 * ENTRIES} kept ones, the earliest are gone`, async () => {
    const questions = 4 * ENTRIES;
    // First sighting only leaves a fingerprint; the second is executed and kept.
    for (let n = 0; n < questions; n++) await ask(n);
    for (let n = 0; n < questions; n++) await ask(n);
    const hits = async (from: number, to: number) => {
      const before = t.app.answerCacheStats.resultHits;
      for (let n = from; n < to; n++) await ask(n);
      return t.app.answerCacheStats.resultHits - before;
    };
    // The latest ones are served from the cache (it works at all), at most ENTRIES of them…
    const latest = await hits(questions - ENTRIES, questions);
    expect(latest).toBeGreaterThan(0);
    expect(latest).toBeLessThanOrEqual(ENTRIES);
    // …and the earliest were dropped to make room: executed again.
    expect(await hits(0, ENTRIES / 2)).toBe(0);
  });

  it('keeps serving what fits', async () => {
    for (let n = 0; n < 2; n++) await ask(10_000);
    const before = t.app.answerCacheStats.resultHits;
    for (let n = 0; n < 5; n++) await ask(10_000);
    expect(t.app.answerCacheStats.resultHits - before).toBe(5);
  });
});
