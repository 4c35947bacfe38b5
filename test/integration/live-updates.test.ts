/**
 * Live channel updates (contract §8): `subscription { paymentChannelsChanged }`
 * over Server-Sent Events, through the whole pipeline, on the transport of
 * TEST_TRANSPORT (in-process `yoga.fetch`, or a real server serving the Node
 * Node transport with `npm run test:node`) and the engine of TEST_DB.
 *
 * Every wait is bounded; the only timing assertion is the contract's own
 * (an event within 1 s of a commit).
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { BASE, createTestApp, gql, openReplicaStore, type TestApp } from '../helpers/app.js';
import { CHANNELS_SUBSCRIPTION, eventually, openEventStream, type EventStreamReader, type OpenStreamOptions } from '../helpers/sse.js';

const HEARTBEAT_MS = 100;
const STREAMS_PER_KEY = 3;

let t: TestApp;
const streams: EventStreamReader[] = [];
const logLines: string[] = [];

/** A stream signed as `as` (default the approved merchant) on the suite's transport; closed after each test. */
async function open(query = CHANNELS_SUBSCRIPTION, variables?: Record<string, unknown>, opts: Partial<OpenStreamOptions> = {}): Promise<EventStreamReader> {
  const stream = await openEventStream(query, { as: t.approved, fetch: t.streamFetch, timestamp: String(Math.floor(t.clock.now / 1000)), ...opts }, variables);
  streams.push(stream);
  return stream;
}

const nexts = (s: EventStreamReader) => s.events.filter((e) => e.event === 'next').length;
const channelOf = (result: any, code: string) => result.data.paymentChannelsChanged.find((c: { code: string }) => c.code === code);

/** Commit one statement without asking the app to catch up: the stream machinery alone must notice it. */
const commit = (sql: string) => t.sql().exec(sql);

beforeAll(async () => {
  t = await createTestApp({ logLines, app: { liveUpdates: { heartbeatMs: HEARTBEAT_MS, maxStreamsPerKey: STREAMS_PER_KEY } } });
});
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
  // Every slot of the suite's streams is free again before the next test (they run in one app).
  await eventually(() => t.app.services.changes.size === 0, 2000, 'all watchers detached');
});
afterAll(async () => {
  await t?.close();
});

describe('paymentChannelsChanged over SSE', () => {
  it('opens a signed stream and sends the list paymentChannels returns, first thing', async () => {
    const stream = await open();
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('x-request-id')).toBeTruthy();
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');

    const query = await gql(t, '{ paymentChannels { code status feeInfo { feePercentage feeValue } } }');
    const expected = (await query.json()).data.paymentChannels;
    expect(stream.results()[0]).toEqual({ data: { paymentChannelsChanged: expected } });
  });

  it('applies the filter like paymentChannels does', async () => {
    const filter = { amount: 150000, currency: 'IDR', status: ['ACTIVE'], includeIneligible: true };
    const selection = 'code status availability { selectable reasons }';
    const stream = await open(`subscription ($f: PaymentChannelFilter) { paymentChannelsChanged(filter: $f) { ${selection} } }`, { f: filter });
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
    const own = await gql(t, `query ($f: PaymentChannelFilter) { paymentChannels(filter: $f) { ${selection} } }`, { f: filter });
    const list = stream.results()[0].data.paymentChannelsChanged;
    expect(list).toEqual((await own.json()).data.paymentChannels);
    expect(list.every((c: { status: string }) => c.status === 'ACTIVE')).toBe(true);
  });

  it('sends the changed list within 1 s of a commit nobody else asked the app to notice', async () => {
    const stream = await open();
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
    expect(channelOf(stream.results()[0], 'bca_va').status).toBe('ACTIVE');

    const started = performance.now();
    await commit(`update channels set status = 'maintenance' where code = 'bca_va'`);
    await stream.waitFor((s) => nexts(s) >= 2, 1000, 'the maintenance event');
    expect(stream.events.filter((e) => e.event === 'next')[1]!.at - started).toBeLessThan(1000);
    expect(channelOf(stream.results()[1], 'bca_va').status).toBe('MAINTENANCE');

    await commit(`update channels set fee_percentage = '2.5', status = 'active' where code = 'bca_va'`);
    await stream.waitFor((s) => nexts(s) >= 3, 1000, 'the fee event');
    expect(channelOf(stream.results()[2], 'bca_va')).toEqual({ code: 'bca_va', status: 'ACTIVE', feeInfo: { feePercentage: 2.5, feeValue: expect.any(Number) } });
  });

  it("sends nothing for another merchant's change, nor for a change outside what was selected", async () => {
    const stream = await open('subscription { paymentChannelsChanged { code status } }');
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');

    // The pending merchant's negotiated OVO rate: not in the approved merchant's data at all.
    await t.execute(`update merchant_channels set fee_percentage = '1.3' where merchant_id = '${t.pending.merchantId}'`);
    // The approved merchant's data, but a field this stream did not select.
    await t.execute(`update channels set fee_value = '123' where code = 'dana'`);
    // Then a change it does see: the next event must be this one (nothing was sent in between).
    await t.execute(`update channels set status = 'offline' where code = 'dana'`);
    await stream.waitFor((s) => nexts(s) >= 2, 1000, 'the status event');
    expect(channelOf(stream.results()[1], 'dana').status).toBe('OFFLINE');
    expect(nexts(stream)).toBe(2);
    // Only this merchant's channels, ever (qris is shown because its KYC is approved).
    expect(JSON.stringify(stream.results())).not.toContain(t.pending.merchantId);
    await t.execute(`update channels set status = 'active', fee_value = '0' where code = 'dana'`);
  });

  it("follows the merchant's KYC: approving it un-hides qris on the open stream", async () => {
    const stream = await open('subscription { paymentChannelsChanged { code } }', undefined, { as: t.pending });
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
    expect(stream.results()[0].data.paymentChannelsChanged.map((c: { code: string }) => c.code)).not.toContain('qris');
    await commit(`update merchants set kyc_status = 'approved' where id = '${t.pending.merchantId}'`);
    await stream.waitFor((s) => nexts(s) >= 2, 1000, 'the KYC event');
    expect(stream.results()[1].data.paymentChannelsChanged.map((c: { code: string }) => c.code)).toContain('qris');
    await t.execute(`update merchants set kyc_status = 'pending' where id = '${t.pending.merchantId}'`);
  });

  it('writes a heartbeat comment every heartbeat interval while nothing changes', async () => {
    const stream = await open();
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
    const before = stream.comments;
    await stream.waitFor((s) => s.comments >= before + 3, HEARTBEAT_MS * 20, 'three heartbeats');
    expect(nexts(stream)).toBe(1);
  });

  it('refuses an unsigned or badly signed stream with 401 before anything streams', async () => {
    const unsigned = await open(CHANNELS_SUBSCRIPTION, undefined, { headers: {} });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toMatch(/json/);
    await unsigned.ended;
    expect(unsigned.events).toEqual([]);

    const wrong = await open(CHANNELS_SUBSCRIPTION, undefined, { as: { apiKey: t.approved.apiKey, apiSecret: `${t.approved.apiSecret}x` } });
    expect(wrong.status).toBe(401);
    await wrong.ended;
    expect(wrong.events).toEqual([]);

    // Signed for another body: the signature covers the bytes of the subscription request too.
    const tampered = await open(CHANNELS_SUBSCRIPTION, undefined, { headers: { 'X-SERVICE-API-Key': t.approved.apiKey, 'X-SERVICE-Timestamp': String(Math.floor(t.clock.now / 1000)), 'X-SERVICE-Signature': '0'.repeat(64) } });
    expect(tampered.status).toBe(401);
  });

  it('refuses a bad filter with INVALID_REQUEST instead of opening a stream, and frees its slot', async () => {
    const stream = await open('subscription { paymentChannelsChanged(filter: { amount: -1 }) { code } }');
    expect(stream.status).toBe(400);
    expect(stream.headers.get('content-type')).toMatch(/^application\/json/);
    await stream.ended;
    expect(stream.events).toEqual([]);
    expect(t.app.services.changes.size).toBe(0);
    // The same answer read as JSON: the contract code and field.
    const res = await t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: 'subscription { paymentChannelsChanged(filter: { amount: -1 }) { code } }' }), headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'filter.amount' });
    // A document that does not validate is refused the same way.
    const invalid = await t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: 'subscription { paymentChannelsChanged { nope } }' }), headers: { accept: 'text/event-stream' } });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).errors[0].extensions.code).toBe('INVALID_REQUEST');
    // No slot leaked: the key can still open its full budget.
    const held = [];
    for (let i = 0; i < STREAMS_PER_KEY; i++) held.push(await open());
    expect(held.map((s) => s.status)).toEqual(held.map(() => 200));
  });

  it(`allows ${STREAMS_PER_KEY} streams per key; one more gets 429 RATE_LIMITED with Retry-After; a closed one frees its slot`, async () => {
    const held = [];
    for (let i = 0; i < STREAMS_PER_KEY; i++) held.push(await open());
    for (const s of held) expect(s.status).toBe(200);

    const refused = await open();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await refused.ended;
    // Problem shape of the GraphQL surface (contract §4): the code in extensions, with the request id.
    const body = await t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: CHANNELS_SUBSCRIPTION }), headers: { accept: 'text/event-stream' } });
    expect(body.status).toBe(429);
    expect((await body.json()).errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', scope: 'streams', limit: STREAMS_PER_KEY, requestId: expect.any(String) });

    // The other merchant's key has its own budget.
    const other = await open(CHANNELS_SUBSCRIPTION, undefined, { as: t.pending });
    expect(other.status).toBe(200);

    // The client goes away: its slot is free again (bounded wait for the server to notice the disconnect).
    await held[0]!.close();
    await eventually(async () => {
      const again = await open();
      if (again.status === 200) return true;
      await again.close();
      return false;
    }, 3000, 'a freed slot');
  });

  // Yoga opens a stream for a missing Accept, `*/*` and lists too; each of them must be counted.
  const ACCEPTS: (string | null)[] = [null, '*/*', 'application/json, text/event-stream', 'text/event-stream;q=0.9, application/graphql-response+json', 'text/event-stream', 'application/json'];
  it.each(ACCEPTS.flatMap((accept) => (['POST', 'GET'] as const).map((method) => ({ accept, method }))))(
    'every stream takes a slot whatever it accepts: Accept $accept, $method (gauge, 429 past the limit, close logged)',
    async ({ accept, method }) => {
      const metrics = async () => (await t.fetch('/metrics')).text();
      const before = logLines.length;
      const held = [];
      for (let i = 0; i < STREAMS_PER_KEY; i++) held.push(await open('subscription { paymentChannelsChanged { code } }', undefined, { accept, method }));
      expect(held.map((s) => s.status)).toEqual(held.map(() => 200));
      expect(held[0]!.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await held[0]!.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
      expect(await metrics()).toMatch(new RegExp(`graphql_subscription_streams_open ${STREAMS_PER_KEY}\\b`));

      const refused = await open('subscription { paymentChannelsChanged { code } }', undefined, { accept, method });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

      await Promise.all(held.map((s) => s.close()));
      await eventually(async () => /graphql_subscription_streams_open 0\b/.test(await metrics()), 2000, 'the gauge back at 0');
      await eventually(() => logLines.slice(before).filter((l) => JSON.parse(l).msg === 'stream closed').length === STREAMS_PER_KEY, 2000, 'a closed line per stream');
    },
  );

  it("ends the stream when its key is revoked, with a last INVALID_API_KEY event; the merchant's other streams are unaffected", async () => {
    const key = await t.store.admin.findKey(t.approved.apiKey);
    expect(key?.revokedAt).toBeNull();
    // A second key of the same merchant, streaming too.
    const otherMerchantStream = await open(CHANNELS_SUBSCRIPTION, undefined, { as: t.pending });
    const stream = await open();
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
    await otherMerchantStream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');

    await commit(`update api_keys set revoked_at = '2026-01-01 00:00:00' where id = '${t.approved.apiKey}'`);
    await stream.waitFor((s) => s.isEnded(), 1000, 'the stream to end');
    const last = stream.results().at(-1);
    expect(last.errors[0].extensions).toMatchObject({ code: 'INVALID_API_KEY', requestId: expect.any(String) });
    expect(stream.events.at(-1)!.event).toBe('complete');
    expect(otherMerchantStream.isEnded()).toBe(false);

    // And it cannot open a new one.
    const refused = await open();
    expect(refused.status).toBe(401);
    await t.execute(`update api_keys set revoked_at = null where id = '${t.approved.apiKey}'`);
  });

  it('opens with GET too (the target carries the query and is signed), as GraphiQL sends subscriptions', async () => {
    const stream = await open('subscription { paymentChannelsChanged { code } }', undefined, { method: 'GET' });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The ETag plugin leaves event streams alone (hashing an endless body would never answer).
    expect(stream.headers.get('etag')).toBeNull();
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
  });

  it('is seen by the request log and the metrics; a stream close is logged with its lifetime', async () => {
    const stream = await open();
    await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
    const requestId = stream.headers.get('x-request-id')!;
    const metrics = async () => (await t.fetch('/metrics')).text();
    expect(await metrics()).toMatch(/graphql_subscription_streams_open 1\b/);
    expect(await metrics()).toMatch(/http_requests_total\{method="POST",route="\/graphql",status="200"\} [1-9]/);
    const lines = () => logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.requestId === requestId);
    expect(lines().find((l) => l.msg === 'request')).toMatchObject({ status: 200, route: '/graphql', merchantId: t.approved.merchantId });

    await stream.close();
    await eventually(() => lines().some((l) => l.msg === 'stream closed'), 2000, 'the stream-closed line');
    expect(lines().find((l) => l.msg === 'stream closed')).toMatchObject({ merchantId: t.approved.merchantId, events: 1, durationMs: expect.any(Number) });
    await eventually(async () => /graphql_subscription_streams_open 0\b/.test(await metrics()), 2000, 'the gauge back at 0');
  });

});

describe('live updates beyond one stream', () => {
  it("spends one of the key's rate-limit tokens per stream opened (the limiter sees the open)", async () => {
    const limited = await createTestApp({ app: { rateLimit: { keyRatePerSecond: 0.001, keyBurst: 2, authFailuresPerMinute: 1000 } } });
    const opened: EventStreamReader[] = [];
    try {
      const openOn = (app: TestApp) => openEventStream(CHANNELS_SUBSCRIPTION, { as: app.approved, fetch: app.streamFetch, timestamp: String(Math.floor(app.clock.now / 1000)) });
      opened.push(await openOn(limited), await openOn(limited));
      expect(opened.map((s) => s.status)).toEqual([200, 200]);
      const third = await openOn(limited);
      opened.push(third);
      expect(third.status).toBe(429);
      await third.ended;
    } finally {
      await Promise.all(opened.map((s) => s.close()));
      await limited.close();
    }
  });

  it('streams through the real Node server too, and the plain query beside it is answered as usual', async () => {
    const node = await createTestApp({ transport: 'node' });
    try {
      const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as: node.approved, fetch: node.streamFetch, timestamp: String(Math.floor(node.clock.now / 1000)) });
      await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
      const query = await gql(node, '{ paymentChannels { code status feeInfo { feePercentage feeValue } } }');
      expect(query.status).toBe(200);
      expect(stream.results()[0].data.paymentChannelsChanged).toEqual((await query.json()).data.paymentChannels);
      await stream.close();
    } finally {
      await node.close();
    }
  });

  it('ends open streams when the server begins a graceful shutdown', async () => {
    const draining = await createTestApp();
    try {
      const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as: draining.approved, fetch: draining.streamFetch, timestamp: String(Math.floor(draining.clock.now / 1000)) });
      await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
      draining.app.beginShutdown();
      await stream.waitFor((s) => s.isEnded(), 2000, 'the stream to end');
      expect(stream.events.at(-1)!.event).toBe('complete');
    } finally {
      await draining.close();
    }
  });

  it('a second replica (its own store on the same database) streams a change committed through the first within 1 s', async () => {
    const first = await createTestApp();
    const secondStore = await openReplicaStore(first);
    const second = createApp({ store: secondStore, secretBox: first.data.secretBox, logger: pino({ level: 'silent' }), maxSkewSeconds: 300, bodyLimitBytes: 100 * 1024 });
    const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as: first.approved, fetch: (target, init) => Promise.resolve(second.yoga.fetch(new URL(`${BASE}${target}`), init)) });
    try {
      expect(stream.status).toBe(200);
      await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
      expect(channelOf(stream.results()[0], 'ovo').status).toBe('ACTIVE');
      const started = performance.now();
      await first.execute(`update channels set status = 'maintenance' where code = 'ovo'`);
      await stream.waitFor((s) => nexts(s) >= 2, 1000, 'the event on the other replica');
      expect(stream.events.filter((e) => e.event === 'next')[1]!.at - started).toBeLessThan(1000);
      expect(channelOf(stream.results()[1], 'ovo').status).toBe('MAINTENANCE');
    } finally {
      await stream.close();
      await second.close();
      await secondStore.close();
      await first.close();
    }
  });
});
