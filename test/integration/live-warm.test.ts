/**
 * Warm groups (contract §8b: opening at a sale's peak; src/pipeline/live/shared-executions.ts):
 * a group of streams keeps its newest answer past the turn of its change, so a page that opens later for the
 * same data version is answered from it (refilled with its own amount, or the question's shared answer) and
 * not executed again. Its first event must still be exactly what the matching query answers. Only the
 * `warmGroups` groups used last keep theirs: the bound is driven past here (2 in this app).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, openEventStream, type EventStreamReader } from '../helpers/sse.js';
import { comparable, nexts, queryOf } from '../helpers/live-answers.js';
import { MAX_SHAPES } from '../../src/pipeline/live/shared-executions.js';

const COMPONENT = `subscription Channels($amount: Decimal!) {
  paymentChannelsChanged { code name imageUrl status availability { selectable reasons } fee(amount: $amount) { amount totalAmount customerFee merchantFee currency } }
}`;
/** Asks the fee of another amount than the session's: the error names the page's own amount (a pattern per page). */
const OTHER_AMOUNT = 'subscription { paymentChannelsChanged { code fee(amount: 150000) { fee totalAmount } } }';
const FILTERED = 'subscription F($f: PaymentChannelFilter) { paymentChannelsChanged(filter: $f) { code status fee(amount: 150000) { totalAmount } } }';

let t: TestApp;
const streams: EventStreamReader[] = [];

beforeAll(async () => {
  t = await createTestApp({ app: { liveUpdates: { heartbeatMs: 1000, maxStreamsPerKey: 100, maxOpenStreams: 120, warmGroups: 2 } } });
});
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
  await eventually(() => t.app.services.changes.size === 0, 3000, 'all watchers detached');
});
afterAll(async () => {
  await t?.close();
});

const metrics = async () => (await t.fetch('/metrics')).text();
const counter = async (by: string) => Number(new RegExp(`graphql_subscription_answers_total\\{by="${by}"\\} (\\d+)`).exec(await metrics())?.[1] ?? NaN);
const warm = async () => Number(/graphql_subscription_groups_warm (\d+)/.exec(await metrics())?.[1] ?? NaN);

async function answerOf(subscription: string, variables: Record<string, unknown>, headers?: Record<string, string>): Promise<unknown> {
  const init = { method: 'POST', body: JSON.stringify({ query: queryOf(subscription), variables }), headers: { 'content-type': 'application/json', ...headers } };
  const res = headers ? await t.fetch('/graphql', init) : await t.signedFetch('/graphql', init);
  return comparable(await res.json());
}

/** A checkout page: a session of `amount` and `document` (the component's), its first event awaited. */
async function page(amount: number, document = COMPONENT): Promise<{ stream: EventStreamReader; headers: Record<string, string> }> {
  const res = await t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: t.approved.merchantId, amount, currency: 'IDR' }) });
  expect(res.status).toBe(201);
  const headers = { Authorization: `Bearer ${((await res.json()) as { clientSecret: string }).clientSecret}` };
  const stream = await openEventStream(document, { as: t.approved, fetch: t.streamFetch, headers }, document === COMPONENT ? { amount } : {});
  streams.push(stream);
  await stream.waitFor((s) => nexts(s) >= 1, 5000, `the first event of the page of ${amount}`);
  await turn();
  return { stream, headers };
}

/**
 * The end of this turn of the event loop: a group's result is kept for the turn of its execution whatever the
 * bound (in process, requests and streams run on promises alone, so turns pass only when let).
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A signed stream asking FILTERED with its own filter (its own question), its first event awaited, then the turn's end. */
async function question(f: Record<string, unknown>): Promise<EventStreamReader> {
  const stream = await openEventStream(FILTERED, { as: t.approved, fetch: t.streamFetch }, { f });
  streams.push(stream);
  await stream.waitFor((s) => nexts(s) >= 1, 5000, `the first event of ${JSON.stringify(f)}`);
  expect(comparable(stream.results()[0])).toEqual(await answerOf(FILTERED, { f }));
  await turn();
  return stream;
}

describe('warm groups: a stream opening later is answered from its group’s kept answer', () => {
  it('pages opening after their class executed are refilled, not executed, and equal their queries', async () => {
    await page(20_000);
    await page(30_000);
    const before = { execution: await counter('execution'), template: await counter('template') };
    // Later turns, the same data version, amounts inside every channel's limits (the same pattern of failures).
    const later = [await page(45_000), await page(99_999), await page(1_234_567)];
    expect((await counter('execution')) - before.execution).toBe(0);
    expect((await counter('template')) - before.template).toBe(3);
    for (const [i, amount] of [45_000, 99_999, 1_234_567].entries()) {
      expect(comparable(later[i]!.stream.results()[0]), String(amount)).toEqual(await answerOf(COMPONENT, { amount }, later[i]!.headers));
    }
    // After a change the kept answer is the new version's: a page opening then is refilled from it.
    await t.execute(`update channels set status = 'maintenance' where code = 'ovo'`);
    try {
      for (const p of later) await p.stream.waitFor((s) => nexts(s) >= 2, 5000, 'the event of the change');
      const afterChange = await counter('execution');
      const fresh = await page(77_000);
      expect(await counter('execution')).toBe(afterChange);
      expect(comparable(fresh.stream.results()[0])).toEqual(await answerOf(COMPONENT, { amount: 77_000 }, fresh.headers));
    } finally {
      await t.execute(`update channels set status = 'active' where code = 'ovo'`);
    }
  });

  it('past warmGroups the group used least recently lets its answer go: its next stream executes again', async () => {
    const executions = () => counter('execution');
    const a = { amount: 10_000, currency: 'IDR' };
    const b = { amount: 20_000, currency: 'IDR' };
    const c = { amount: 30_000, currency: 'IDR' };
    let n = await executions();
    for (const f of [a, b, c]) await question(f);
    // Three questions, one execution each; two of them stay warm (the bound), A (used least recently) is let go.
    expect((await executions()) - n).toBe(3);
    await eventually(async () => (await warm()) === 2, 2000, 'two warm groups');
    n = await executions();
    await question(c);
    expect((await executions()) - n).toBe(0);
    await question(a);
    expect((await executions()) - n).toBe(1);
    // A is warm again, B was used least recently and went; the bound holds.
    await eventually(async () => (await warm()) === 2, 2000, 'two warm groups');
    n = await executions();
    await question(a);
    await question(c);
    expect((await executions()) - n).toBe(0);
    await question(b);
    expect((await executions()) - n).toBe(1);
    expect(await warm()).toBeLessThanOrEqual(2);
  });

  it(`a warm class keeps at most ${MAX_SHAPES} patterns of failing channels; past them a page is answered by its own execution`, async () => {
    const before = { execution: await counter('execution'), template: await counter('template') };
    // Each page's failures name its own amount: a new pattern per page, each executed once and kept up to the bound.
    const pages = [];
    for (let i = 0; i < MAX_SHAPES + 3; i++) pages.push(await page(20_000 + i, OTHER_AMOUNT));
    expect((await counter('execution')) - before.execution).toBe(MAX_SHAPES + 3);
    expect((await counter('template')) - before.template).toBe(MAX_SHAPES);
    // A page repeating a kept pattern (an amount seen before) is refilled; one past the bound is executed again.
    const mid = await counter('execution');
    const again = await page(20_000, OTHER_AMOUNT);
    const past = await page(20_000 + MAX_SHAPES + 1, OTHER_AMOUNT);
    expect((await counter('execution')) - mid).toBe(1);
    for (const [p, amount] of [[again, 20_000], [past, 20_000 + MAX_SHAPES + 1]] as const) {
      expect(comparable(p.stream.results()[0]), String(amount)).toEqual(await answerOf(OTHER_AMOUNT, {}, p.headers));
    }
    expect(comparable(pages[5]!.stream.results()[0])).toEqual(await answerOf(OTHER_AMOUNT, {}, pages[5]!.headers));
  });
});
