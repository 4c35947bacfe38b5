/**
 * The per-replica caches (key material, REST lists, answers) cost what a change touches (contract §15), on the
 * engine of TEST_DB: with two merchants A and B cached, every kind of change to A, made as the admin CLI makes
 * it, is in A's very next answer while B keeps being answered from the caches (counted by the app's hit
 * counters); a change for everyone (a channel) empties both. Never stale: each of A's answers after its change
 * is checked against what the change makes visible.
 */
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: AdminService;
let a: DemoMerchantCredentials;
let b: DemoMerchantCredentials;

/** Run once by the next request after its result is computed and before its answer is kept: a change in flight. */
let meanwhile: (() => Promise<void>) | null = null;
const changeInFlight: Plugin = {
  async onResultProcess() {
    const work = meanwhile;
    meanwhile = null;
    if (work) await work();
  },
};

beforeAll(async () => {
  t = await createTestApp({ app: { plugins: [changeInFlight] } });
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'cache-test' });
  a = t.approved;
  // Both merchants approved (every channel listed), in different categories.
  b = t.data.seeded!.find((m) => m.category === 'micro')!;
});
afterAll(() => t.close());

interface RestChannel {
  code: string;
  fee_info: { fee_percentage: number };
}

/** The merchant's REST channel list: code → first band's percentage. */
async function restList(as: DemoMerchantCredentials): Promise<Map<string, number>> {
  const res = await t.signedFetch('/v1/payments/channel', { as });
  expect(res.status).toBe(200);
  return new Map(((await res.json()) as { data: RestChannel[] }).data.map((c) => [c.code, c.fee_info.fee_percentage]));
}

const CALC = 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee } }';

/** The merchant's GraphQL fee for 100,000 IDR on OVO (the same request bytes every time: cacheable). */
async function ovoFee(as: DemoMerchantCredentials): Promise<number> {
  const res = await gql(t, CALC, { i: { amount: 100_000, currency: 'IDR', method: 'OVO' } }, as);
  const json = (await res.json()) as { data?: { calculateFee: { fee: number } }; errors?: unknown };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data!.calculateFee.fee;
}

const hits = () => ({ keys: t.app.keyCacheStats.keyHits, lists: t.app.answerCacheStats.restListHits, results: t.app.answerCacheStats.resultHits });

/** Ask the merchant's list and fee until both are kept (a GraphQL answer is kept from its second request on). */
async function warm(as: DemoMerchantCredentials): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await restList(as);
    await ovoFee(as);
  }
}

/** The merchant's list and fee, and how many of the three caches' lookups they hit (key: two verifications). */
async function asked(as: DemoMerchantCredentials) {
  const before = hits();
  const list = await restList(as);
  const fee = await ovoFee(as);
  const after = hits();
  return { list, fee, hits: { keys: after.keys - before.keys, lists: after.lists - before.lists, results: after.results - before.results } };
}

const ALL_HITS = { keys: 2, lists: 1, results: 1 };

/** A change committed as the admin CLI commits it, and in the catalogue before the next request. */
async function change(write: () => Promise<unknown>): Promise<void> {
  await write();
  await t.sync();
}

describe("one merchant's change empties that merchant's cache entries only", () => {
  it('A and B are both served from the caches once warm', async () => {
    await warm(a);
    await warm(b);
    expect((await asked(a)).hits).toEqual(ALL_HITS);
    expect((await asked(b)).hits).toEqual(ALL_HITS);
  });

  // Each step changes A, then checks A's next answers (never from a cache entry made before the change) and
  // that B's came from the caches. Both are warmed again before each step.
  const steps: { what: string; before?: () => Promise<unknown>; write: () => Promise<unknown>; check: (answer: Awaited<ReturnType<typeof asked>>) => void }[] = [
    {
      what: 'a fee override of its own (merchant rule)',
      write: () => admin.setFee({ channel: 'ovo', merchantId: a.merchantId, bands: '*:2:0' }),
      check: ({ list, fee }) => {
        expect(list.get('ovo')).toBe(2);
        expect(fee).toBe(2000);
      },
    },
    {
      what: 'its category (the pricing of the new category applies)',
      // A category rule is a channel change (for everyone): made before both merchants are warmed.
      before: () => admin.setFee({ channel: 'qris', category: 'micro-test', bands: '*:0.05:0', allowUnusedCategory: true }),
      write: () => admin.setCategory(a.merchantId, 'micro-test'),
      check: ({ list }) => expect(list.get('qris')).toBe(0.05),
    },
    {
      what: 'a channel disabled for it (enablement)',
      write: () => admin.disableChannel(a.merchantId, 'dana'),
      check: ({ list }) => expect(list.has('dana')).toBe(false),
    },
    {
      what: 'its KYC (channels that require it are hidden)',
      write: () => admin.setKyc(a.merchantId, 'rejected'),
      check: ({ list }) => expect(list.has('qris')).toBe(false),
    },
  ];

  for (const step of steps) {
    it(`${step.what}: in A's next answer; B still from the caches`, async () => {
      if (step.before) await change(step.before);
      await warm(a);
      await warm(b);
      await change(step.write);
      const answerA = await asked(a);
      expect(answerA.hits.lists).toBe(0);
      expect(answerA.hits.results).toBe(0);
      expect(answerA.hits.keys).toBe(1); // the first verification rebuilt A's key, the second found it again
      step.check(answerA);
      expect((await asked(b)).hits).toEqual(ALL_HITS);
    });
  }

  it("a key revoked, and a new one: the revoked key is refused at once, the new one works, B's stays cached", async () => {
    await warm(a);
    await warm(b);
    const fresh = await admin.createKey(a.merchantId);
    await change(() => admin.revokeKey(a.apiKey));
    const refused = await t.signedFetch('/v1/payments/channel', { as: a });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('INVALID_API_KEY');
    const rotated: DemoMerchantCredentials = { ...a, apiKey: fresh.apiKey, apiSecret: fresh.apiSecret };
    expect((await restList(rotated)).has('ovo')).toBe(true);
    expect((await asked(b)).hits).toEqual(ALL_HITS);
    a = rotated;
  });
});

describe('a change for everyone empties every merchant', () => {
  it("a channel's fee: neither A nor B is answered from the caches, both see it", async () => {
    await warm(a);
    await warm(b);
    await change(() => admin.updateChannel('shopeepay', { feePercentage: '2.75' }));
    for (const as of [a, b]) {
      const answer = await asked(as);
      expect(answer.hits.lists).toBe(0);
      expect(answer.hits.results).toBe(0);
      expect(answer.hits.keys).toBe(1);
      // Neither has a rule of its own on ShopeePay: the channel's new fee.
      expect(answer.list.get('shopeepay')).toBe(2.75);
    }
  });
});

describe('an answer computed across a change of its merchant is not kept', () => {
  it("A's answer computed before A's change is not kept; B's, computed across A's change, is", async () => {
    await warm(a);
    await warm(b);
    // A's list is asked, and A changes after the list was computed but before it is kept.
    await change(() => admin.disableChannel(a.merchantId, 'shopeepay'));
    meanwhile = () => change(() => admin.enableChannel(a.merchantId, 'shopeepay'));
    expect((await restList(a)).has('shopeepay')).toBe(false); // computed before the change: in flight, fine
    const next = await asked(a);
    expect(next.hits.lists).toBe(0); // not kept as current
    expect(next.list.has('shopeepay')).toBe(true);
    // B's list computed across A's change: still B's current answer, kept.
    await change(() => admin.updateChannel('shopeepay', { feePercentage: '2.5' }));
    meanwhile = () => change(() => admin.disableChannel(a.merchantId, 'shopeepay'));
    expect((await restList(b)).get('shopeepay')).toBe(2.5);
    expect((await asked(b)).hits.lists).toBe(1);
    expect((await asked(a)).list.has('shopeepay')).toBe(false);
  });
});
