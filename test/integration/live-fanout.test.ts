/**
 * Live updates at a sale's peak (contract §8b): every stream still gets exactly its own answer
 * when executions are shared, capacity is enforced (MAX_OPEN_STREAMS → 503 + Retry-After), and a client
 * that stops reading is cut off once a bounded number of bytes waits for it.
 *
 * The fan-out check: streams of several amounts (checkout sessions, the component's own document), several
 * documents and filters; after a change each stream's last event must equal what `paymentChannels` with
 * the same selection and variables answers, and a stream whose answer did not change gets nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, openEventStream, type EventStreamReader, type OpenStreamOptions } from '../helpers/sse.js';

const COMPONENT_SELECTION = 'code name imageUrl status availability { selectable reasons } fee(amount: $amount) { amount totalAmount customerFee merchantFee currency }';
const COMPONENT_SUBSCRIPTION = `subscription Channels($amount: Decimal!) { paymentChannelsChanged { ${COMPONENT_SELECTION} } }`;
const COMPONENT_QUERY = `query Channels($amount: Decimal!) { paymentChannels { ${COMPONENT_SELECTION} } }`;

let t: TestApp;
const streams: EventStreamReader[] = [];

async function open(query: string, variables: Record<string, unknown> | undefined, opts: Partial<OpenStreamOptions> = {}): Promise<EventStreamReader> {
  const stream = await openEventStream(query, { as: t.approved, fetch: t.streamFetch, ...opts }, variables);
  streams.push(stream);
  return stream;
}

async function createSession(amount: number): Promise<string> {
  const res = await t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: t.approved.merchantId, amount, currency: 'IDR' }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { clientSecret: string }).clientSecret;
}

/** An answer with the request id dropped from its errors (each request has its own) and `paymentChannelsChanged` read as `paymentChannels`. */
function comparable(result: any): unknown {
  const data = result.data ? { paymentChannels: result.data.paymentChannels ?? result.data.paymentChannelsChanged } : result.data;
  const errors = result.errors?.map((e: any) => {
    const { requestId: _r, ...extensions } = e.extensions ?? {};
    const path = e.path ? ['paymentChannels', ...e.path.slice(1)] : e.path;
    // The two documents differ in text, so their locations would too: only whether an error has them must agree.
    const locations = e.locations === undefined ? undefined : 'present';
    return { ...e, path, extensions, locations };
  });
  return { data, ...(errors ? { errors } : {}) };
}

/** What the query answers now, comparable with a stream's event. */
async function answerOf(query: string, variables: Record<string, unknown> | undefined, headers?: Record<string, string>): Promise<unknown> {
  const init = { method: 'POST', body: JSON.stringify({ query, variables }), headers: { 'content-type': 'application/json', ...headers } };
  const res = headers ? await t.fetch('/graphql', init) : await t.signedFetch('/graphql', init);
  return comparable(await res.json());
}

const nexts = (s: EventStreamReader) => s.events.filter((e) => e.event === 'next').length;
const metrics = async () => (await t.fetch('/metrics')).text();

beforeAll(async () => {
  t = await createTestApp({ app: { liveUpdates: { heartbeatMs: 200, maxStreamsPerKey: 100, maxOpenStreams: 40, maxPendingBytes: 16_384 } } });
});
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
  await eventually(() => t.app.services.changes.size === 0, 3000, 'all watchers detached');
});
afterAll(async () => {
  await t?.close();
});

describe('shared executions: each stream gets exactly its own answer', () => {
  it('streams of several amounts, documents and filters equal the matching queries after a change; an unchanged answer sends nothing', async () => {
    // Checkout pages, each with its own amount (two share one, so their execution is shared), running the component's own document.
    const amounts = [15_000, 150_000, 150_000, 2_500_000, 99_999];
    const secrets = await Promise.all(amounts.map((a) => createSession(a)));
    const cases: { query: string; variables?: Record<string, unknown>; headers?: Record<string, string>; stream: EventStreamReader }[] = [];
    for (const [i, secret] of secrets.entries()) {
      const headers = { Authorization: `Bearer ${secret}` };
      cases.push({ query: COMPONENT_QUERY, variables: { amount: amounts[i] }, headers, stream: await open(COMPONENT_SUBSCRIPTION, { amount: amounts[i] }, { headers }) });
    }
    // Signed streams with their own documents and filters.
    const signed: [string, string, Record<string, unknown> | undefined][] = [
      ['subscription { paymentChannelsChanged { code status } }', '{ paymentChannels { code status } }', undefined],
      ['subscription { paymentChannelsChanged { code status } }', '{ paymentChannels { code status } }', undefined],
      [
        'subscription F($f: PaymentChannelFilter) { paymentChannelsChanged(filter: $f) { code status availability { selectable reasons } feeInfo { feePercentage feeValue } } }',
        'query F($f: PaymentChannelFilter) { paymentChannels(filter: $f) { code status availability { selectable reasons } feeInfo { feePercentage feeValue } } }',
        { f: { amount: 50_000, currency: 'IDR' } },
      ],
      [
        'subscription F($f: PaymentChannelFilter) { paymentChannelsChanged(filter: $f) { code } }',
        'query F($f: PaymentChannelFilter) { paymentChannels(filter: $f) { code } }',
        { f: { status: ['ACTIVE'] } },
      ],
    ];
    for (const [sub, query, variables] of signed) cases.push({ query, variables, stream: await open(sub, variables) });
    // Selects only what the change below does not touch: must get nothing after its first event.
    const untouched = await open('subscription { paymentChannelsChanged { code name } }', undefined);

    for (const c of cases) await c.stream.waitFor((s) => nexts(s) >= 1, 3000, `the first event of ${c.query} (status ${c.stream.status})`);
    await untouched.waitFor((s) => nexts(s) >= 1, 3000, 'the first event');
    for (const c of cases) expect(comparable(c.stream.results()[0])).toEqual(await answerOf(c.query, c.variables, c.headers));
    // 11 streams, 5 groups: the five pages differ only in their amounts (one class, event-templates.ts), the two
    // identical signed streams share, each filter is its own question (a filter is not templated), `code name` is one.
    expect(/graphql_subscription_groups (\d+)/.exec(await metrics())?.[1]).toBe('5');

    await t.execute(`update channels set status = 'maintenance' where code = 'qris'`);
    try {
      for (const c of cases) {
        await c.stream.waitFor((s) => nexts(s) >= 2, 2000, 'the event of the change');
        expect(comparable(c.stream.results().at(-1))).toEqual(await answerOf(c.query, c.variables, c.headers));
      }
      // The two pages of one amount got the very same answer, each with its own request id in its errors
      // (a maintenance channel's fee is an error).
      const [a, b] = [cases[1]!.stream, cases[2]!.stream];
      const withoutIds = (s: EventStreamReader) => s.events.at(-1)!.data.replace(/"requestId":"[^"]*"/g, '');
      expect(withoutIds(a)).toBe(withoutIds(b));
      const ids = [a, b].map((s) => s.results().at(-1).errors.map((e: any) => e.extensions.requestId));
      for (const list of ids) expect(new Set(list).size).toBe(1);
      expect(ids[0]![0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(ids[1]![0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(ids[0]![0]).not.toBe(ids[1]![0]);
      await new Promise((r) => setTimeout(r, 300));
      expect(nexts(untouched)).toBe(1);
    } finally {
      await t.execute(`update channels set status = 'active' where code = 'qris'`);
    }
  });
});

describe('capacity and slow readers', () => {
  it('past MAX_OPEN_STREAMS a stream is refused with 503 SERVICE_UNAVAILABLE + Retry-After; the open ones still get changes', async () => {
    const held: EventStreamReader[] = [];
    for (let i = 0; i < 40; i++) held.push(await open('subscription { paymentChannelsChanged { code status } }', undefined, { accept: i % 2 ? '*/*' : null }));
    expect(held.every((s) => s.status === 200)).toBe(true);
    const refused = await open('subscription { paymentChannelsChanged { code status } }', undefined);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const sessionRefused = await open('subscription { paymentChannelsChanged { code } }', undefined, { headers: { Authorization: `Bearer ${await createSession(10_000)}` } });
    expect(sessionRefused.status).toBe(503);
    const text = await metrics();
    expect(text).toMatch(/graphql_subscription_streams_refused_total\{reason="capacity"\} 2\b/);
    expect(text).toMatch(/graphql_subscription_streams_open 40\b/);
    expect(text).toMatch(/graphql_subscription_streams_max 40\b/);
    // 40 identical questions: one group, executed once per change.
    expect(text).toMatch(/graphql_subscription_groups 1\b/);

    for (const s of held) await s.waitFor((r) => nexts(r) >= 1, 3000, 'the first event');
    await t.execute(`update channels set status = 'offline' where code = 'ovo'`);
    try {
      for (const s of held) await s.waitFor((r) => nexts(r) >= 2, 1000, 'the change');
    } finally {
      await t.execute(`update channels set status = 'active' where code = 'ovo'`);
    }
  });

  // In process the transport reads only what the client reads, so the bound is reached after a few events. Over a
  // real socket the kernel's buffers (megabytes on loopback) fill first; the cut-off there is the same code plus
  // the socket's destruction (use-live-streams.ts onCutOff), measured by `npm run bench:streams`.
  it.skipIf(process.env.TEST_TRANSPORT === 'node')('a client that stops reading is cut off once more than maxPendingBytes wait for it; a reading one is not', async () => {
    const query = 'subscription { paymentChannelsChanged { code name imageUrl status feeInfo { feePercentage feeValue } } }';
    const cutOffs = async () => Number(/graphql_subscription_streams_refused_total\{reason="slow_reader"\} (\d+)/.exec(await metrics())?.[1] ?? 0);
    const before = await cutOffs();
    // Stops reading at once: its body is never read, so every event waits for it.
    const stopped = await t.streamFetch('/graphql', { method: 'POST', body: JSON.stringify({ query }), headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...signed(query) } });
    expect(stopped.status).toBe(200);
    const reading = await open(query, undefined);
    let changes = 0;
    try {
      // Each change sends one event (~1.5 KB) to both; well past 16 KiB plus what the transport buffers, the stopped reader must be gone.
      while ((await cutOffs()) === before) {
        expect(changes, 'the stopped reader was never cut off').toBeLessThan(200);
        changes += 1;
        await t.execute(`update channels set fee_value = '${1000 + changes}' where code = 'bca_va'`);
        await reading.waitFor((s) => nexts(s) >= changes + 1, 2000, 'the change on the reading stream');
      }
    } finally {
      await t.execute(`update channels set fee_value = '4000' where code = 'bca_va'`);
    }
    expect(reading.isEnded()).toBe(false);
    await eventually(async () => /graphql_subscription_streams_open 1\b/.test(await metrics()), 2000, 'only the reading stream left open');
    await stopped.body?.cancel().catch(() => undefined);
  });
});

/** SVC1 headers for a POST of `query` to /graphql as the approved merchant. */
function signed(query: string): Record<string, string> {
  return signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: '/graphql', body: JSON.stringify({ query }) });
}
