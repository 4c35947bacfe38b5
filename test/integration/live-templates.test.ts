/**
 * Event templates (contract §8b; src/pipeline/live/event-templates.ts): pages that differ only in
 * their amount share one execution of a change and each fills in its own `availability` and `fee`. Every
 * stream's event must still be exactly what the matching `paymentChannels` query answers for it.
 *
 * The pages cover what an amount decides: amounts inside every channel's limits, below some minimums, above
 * some maximums and above all of them (each with its own per-channel errors), locales, method lists, aliased
 * and reordered selections, `__typename` inside the filled fields, a fee asked for another amount than the
 * session's (an error whose text names the session's amount: such a page is executed on its own), and signed
 * streams with no session. Random amounts (a fixed seed) add more of each.
 */
import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, openEventStream, type EventStreamReader } from '../helpers/sse.js';
import { comparable, nexts, queryOf } from '../helpers/live-answers.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { formatInstant } from '../../src/modules/pricing/domain/pricing.js';

const COMPONENT = `subscription Channels($amount: Decimal!, $locale: String) {
  paymentChannelsChanged { code name(locale: $locale) group imageUrl status feeInfo { minTransactions maxTransactions } availability { selectable reasons } fee(amount: $amount) { amount totalAmount customerFee merchantFee currency } }
}`;
const ALIASED = `subscription B($a: Decimal!, $c: Boolean) {
  list: paymentChannelsChanged { price: fee(amount: $a, chargeFeeToCustomer: $c) { __typename total: totalAmount fee amount additionalFee } ok: availability { reasons selectable __typename } id name }
}`;
const OTHER_AMOUNT = 'subscription { paymentChannelsChanged { code fee(amount: 150000) { fee totalAmount } } }';


/** A small deterministic generator (mulberry32): the same pages every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

let t: TestApp;
const streams: EventStreamReader[] = [];

beforeAll(async () => {
  t = await createTestApp({ app: { liveUpdates: { heartbeatMs: 1000, maxStreamsPerKey: 100, maxOpenStreams: 200 } } });
});
afterEach(async () => {
  // Each test counts the answers of its own pages only.
  await Promise.all(streams.splice(0).map((s) => s.close()));
  await eventually(() => t.app.services.changes.size === 0, 3000, 'all watchers detached');
});
afterAll(async () => {
  await t?.close();
});

const counter = async (by: string) => Number(new RegExp(`graphql_subscription_answers_total\\{by="${by}"\\} (\\d+)`).exec(await (await t.fetch('/metrics')).text())?.[1] ?? NaN);

interface Page {
  query: string;
  variables: Record<string, unknown>;
  headers?: Record<string, string>;
  stream: EventStreamReader;
}

async function createSession(body: Record<string, unknown>): Promise<string> {
  const res = await t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: t.approved.merchantId, currency: 'IDR', ...body }) });
  expect(res.status, JSON.stringify(body)).toBe(201);
  return ((await res.json()) as { clientSecret: string }).clientSecret;
}

async function answerOf(page: Page): Promise<unknown> {
  const init = { method: 'POST', body: JSON.stringify({ query: queryOf(page.query), variables: page.variables }), headers: { 'content-type': 'application/json', ...page.headers } };
  const res = page.headers ? await t.fetch('/graphql', init) : await t.signedFetch('/graphql', init);
  return comparable(await res.json());
}

describe('event templates: each page gets exactly its own answer', () => {
  it('pages of many amounts, locales, methods and selections equal their queries, on open and after changes', async () => {
    const next = random(31);
    const fixed = [1_000, 5_000, 15_000, 150_000, 150_000, 1_999_999, 2_000_001, 3_500_000, 7_000_000, 12_000_000, 60_000_000];
    const amounts = [...fixed, ...Array.from({ length: 14 }, () => 1_000 + Math.floor(next() * 60_000_000))];
    const pages: Page[] = [];
    for (const [i, amount] of amounts.entries()) {
      const locale = [undefined, 'id', 'en'][i % 3];
      const methods = i % 4 === 3 ? ['qris', 'ovo', 'alfamart', 'mandiri_va'] : undefined;
      const headers = { Authorization: `Bearer ${await createSession({ amount, ...(locale ? { locale } : {}), ...(methods ? { methods } : {}) })}` };
      const [query, variables] =
        i % 5 === 4 ? [OTHER_AMOUNT, {}] : i % 2 === 0 ? [COMPONENT, { amount, ...(i % 6 === 0 ? { locale: 'en' } : {}) }] : [ALIASED, { a: amount, ...(i % 3 === 0 ? { c: false } : {}) }];
      pages.push({ query, variables, headers, stream: await openEventStream(query, { as: t.approved, fetch: t.streamFetch, headers }, variables) });
    }
    // Signed streams (no session): the same documents, each with its own amount.
    for (const a of [500, 20_000, 150_000, 2_500_000, 80_000_000]) {
      const variables = { a };
      pages.push({ query: ALIASED, variables, stream: await openEventStream(ALIASED, { as: t.approved, fetch: t.streamFetch }, variables) });
    }
    streams.push(...pages.map((p) => p.stream));

    for (const p of pages) await p.stream.waitFor((s) => nexts(s) >= 1, 5000, `the first event of ${p.query}`);
    for (const p of pages) expect(comparable(p.stream.results()[0]), JSON.stringify(p.variables)).toEqual(await answerOf(p));

    const before = { execution: await counter('execution'), template: await counter('template') };
    // A status change (a fee becomes an error), a limit change (availability and fee errors move with the
    // amount) and a fee change. A page whose answer a change leaves as it was gets nothing (contract §8).
    const changes = [
      `update channels set status = 'maintenance' where code = 'ovo'`,
      `update channels set max_amount = '1000000' where code = 'dana'`,
      `update channels set fee_percentage = '2.1' where code = 'shopeepay'`,
    ];
    try {
      for (const change of changes) {
        const sent = pages.map((p) => nexts(p.stream));
        await t.execute(change);
        const expected = await Promise.all(pages.map((p) => answerOf(p)));
        for (const [i, p] of pages.entries()) {
          if (isDeepStrictEqual(expected[i], comparable(p.stream.results().at(-1)))) continue;
          await p.stream.waitFor((s) => nexts(s) > sent[i]!, 5000, `the event of ${change} for ${JSON.stringify(p.variables)}`);
          expect(comparable(p.stream.results().at(-1)), `${change}: ${JSON.stringify(p.variables)}`).toEqual(expected[i]);
        }
        // Every page changed by it got exactly one event, the others none.
        await new Promise((r) => setTimeout(r, 200));
        const got = pages.map((p, i) => nexts(p.stream) - sent[i]!);
        expect(got.every((n) => n <= 1)).toBe(true);
        expect(got.some((n) => n === 1)).toBe(true);
      }
      // Both ways answered pages here (this set is made of many small classes; the next test counts).
      expect((await counter('template')) - before.template).toBeGreaterThan(0);
      expect((await counter('execution')) - before.execution).toBeGreaterThan(0);
    } finally {
      await t.execute(`update channels set status = 'active' where code = 'ovo'`);
      await t.execute(`update channels set max_amount = '2000000' where code = 'dana'`);
      await t.execute(`update channels set fee_percentage = '1.8' where code = 'shopeepay'`);
    }
  });

  it('the pages of one class are executed once per change and pattern of failing channels, the rest refilled', async () => {
    // Twelve pages, one class (same document, locale and methods): nine amounts inside every channel's limits
    // (one pattern: the maintenance and offline channels fail) and three above the e-wallets' maximum (another).
    const inside = [20_000, 25_000, 31_337, 48_000, 99_999, 150_000, 420_000, 777_777, 1_500_000];
    const above = [2_100_000, 3_000_000, 4_999_999];
    const pages: Page[] = [];
    for (const amount of [...inside, ...above]) {
      const headers = { Authorization: `Bearer ${await createSession({ amount })}` };
      const variables = { amount };
      pages.push({ query: COMPONENT, variables, headers, stream: await openEventStream(COMPONENT, { as: t.approved, fetch: t.streamFetch, headers }, variables) });
    }
    streams.push(...pages.map((p) => p.stream));
    for (const p of pages) await p.stream.waitFor((s) => nexts(s) >= 1, 5000, 'the first event');
    const before = { execution: await counter('execution'), template: await counter('template') };
    await t.execute(`update channels set status = 'maintenance' where code = 'bri_va'`);
    try {
      for (const p of pages) {
        await p.stream.waitFor((s) => nexts(s) >= 2, 5000, 'the event of the change');
        expect(comparable(p.stream.results().at(-1)), JSON.stringify(p.variables)).toEqual(await answerOf(p));
      }
      // Two executions (one per pattern); every page's answer is made from them, the executing pages' own too.
      expect((await counter('execution')) - before.execution).toBe(2);
      expect((await counter('template')) - before.template).toBe(pages.length);
    } finally {
      await t.execute(`update channels set status = 'active' where code = 'bri_va'`);
    }
  });

  it("a change to one channel recomputes that channel's fields on each page; a KYC change recomputes them all", async () => {
    // event-templates.ts `outcomesOf`: a page keeps its holes' values and reuses those of the channels whose
    // record and principal a change left as they were. Counted at the fee resolver's service call.
    const amounts = [20_000, 31_337, 48_000, 99_999, 420_000];
    const pages: Page[] = [];
    for (const amount of amounts) {
      const headers = { Authorization: `Bearer ${await createSession({ amount })}` };
      pages.push({ query: COMPONENT, variables: { amount }, headers, stream: await openEventStream(COMPONENT, { as: t.approved, fetch: t.streamFetch, headers }, { amount }) });
    }
    streams.push(...pages.map((p) => p.stream));
    for (const p of pages) await p.stream.waitFor((s) => nexts(s) >= 1, 5000, 'the first event');
    const channels = ((p: Page) => (p.stream.results()[0] as { data: { paymentChannelsChanged: unknown[] } }).data.paymentChannelsChanged.length)(pages[0]!);
    const priced = vi.spyOn(t.app.services.fees, 'quoteForChannel');
    const settle = async (change: string, round: number) => {
      priced.mockClear();
      const executions = await counter('execution');
      await t.execute(change);
      for (const p of pages) await p.stream.waitFor((s) => nexts(s) >= round, 5000, `the event of ${change}`);
      // Taken before the queries below, which price too.
      const codes = priced.mock.calls.map(([, channel]) => channel.code);
      const executed = (await counter('execution')) - executions;
      for (const p of pages) expect(comparable(p.stream.results().at(-1)), `${change}: ${JSON.stringify(p.variables)}`).toEqual(await answerOf(p));
      return { executed, codes };
    };
    try {
      // Every page's own computation prices bri_va only; the class's execution prices every channel.
      const one = await settle(`update channels set status = 'maintenance' where code = 'bri_va'`, 2);
      expect(one.executed).toBeGreaterThan(0);
      expect(one.codes.filter((c) => c !== 'bri_va')).toHaveLength(one.executed * (channels - 1));
      expect(one.codes.filter((c) => c === 'bri_va')).toHaveLength(one.executed + pages.length);
      // Another principal (the merchant's KYC): nothing is reused, every page prices every channel again.
      const kyc = await settle(`update merchants set kyc_status = 'pending' where id = '${t.approved.merchantId}'`, 3);
      expect(kyc.codes.length).toBeGreaterThanOrEqual(pages.length * 2);
      const perPage = (kyc.codes.length - kyc.executed * new Set(kyc.codes).size) / pages.length;
      expect(perPage).toBe(new Set(kyc.codes).size);
    } finally {
      priced.mockRestore();
      await t.execute(`update channels set status = 'active' where code = 'bri_va'`);
      await t.execute(`update merchants set kyc_status = 'approved' where id = '${t.approved.merchantId}'`);
    }
  });

  it('a scheduled fee rule taking effect (no write at that instant) reaches every page, its fees recomputed', async () => {
    // The memo reuses a channel's fees while its record is the same: the catalogue's transition timer builds new
    // records when a rule starts, so the pages must price that channel again, at the instant, with no write.
    const pages: Page[] = [];
    for (const amount of [20_000, 31_337, 99_999]) {
      const headers = { Authorization: `Bearer ${await createSession({ amount })}` };
      pages.push({ query: COMPONENT, variables: { amount }, headers, stream: await openEventStream(COMPONENT, { as: t.approved, fetch: t.streamFetch, headers }, { amount }) });
    }
    streams.push(...pages.map((p) => p.stream));
    for (const p of pages) await p.stream.waitFor((s) => nexts(s) >= 1, 5000, 'the first event');
    const admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'live-templates-test' });
    const at = Date.now() + 2000;
    // The rule stays in force after this test: the tests after it compare with queries and do not read alfamart.
    await admin.setFee({ channel: 'alfamart', bands: '*:0:2500', effectiveFrom: formatInstant(at) });
    await t.sync();
    const sent = pages.map((p) => nexts(p.stream));
    await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
    const alfamartFee = (p: Page) =>
      (p.stream.results().at(-1) as { data: { paymentChannelsChanged: { code: string; fee: { totalAmount: number } | null }[] } }).data.paymentChannelsChanged.find((c) => c.code === 'alfamart')?.fee;
    for (const [i, p] of pages.entries()) {
      await p.stream.waitFor((s) => nexts(s) > sent[i]!, 3000, 'the event of the rule taking effect');
      expect(alfamartFee(p)?.totalAmount).toBe((p.variables.amount as number) + 2500);
      expect(comparable(p.stream.results().at(-1))).toEqual(await answerOf(p));
    }
  }, 15_000);

  it('an unchanged answer is not sent again when it is refilled', async () => {
    const query = 'subscription P($amount: Decimal!) { paymentChannelsChanged { code fee(amount: $amount) { fee } } }';
    const pages: EventStreamReader[] = [];
    for (const amount of [20_000, 30_000, 40_000]) {
      const headers = { Authorization: `Bearer ${await createSession({ amount })}` };
      pages.push(await openEventStream(query, { as: t.approved, fetch: t.streamFetch, headers }, { amount }));
    }
    streams.push(...pages);
    for (const p of pages) await p.waitFor((s) => nexts(s) >= 1, 5000, 'the first event');
    // A change none of them selected (a channel's image): every page is refilled to the same answer, none is sent.
    const before = await counter('template');
    await t.execute(`update channels set image_path = image_path || '-2' where code = 'bca_va'`);
    try {
      await eventually(async () => (await counter('template')) >= before + 2, 5000, 'the change refilled');
      await new Promise((r) => setTimeout(r, 200));
      for (const p of pages) expect(nexts(p)).toBe(1);
    } finally {
      await t.execute(`update channels set image_path = substr(image_path, 1, length(image_path) - 2) where code = 'bca_va'`);
    }
  });
});
