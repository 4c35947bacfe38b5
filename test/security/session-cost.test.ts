/**
 * Contract §9: a checkout session's client secret is public, so
 * - a session's documents are limited to what a checkout needs: a document costing more than the session
 *   ceiling (work units, src/graphql/operation-cost.ts) is refused with 403 SESSION_SCOPE before it
 *   executes, whatever comments or whitespace it carries; signed (SVC1) callers may send it;
 * - budgets spend what a request costs (a plain list or calculation costs 1), per session and per key;
 * - one merchant's sessions get a fair, work-conserving share of the process (merchant-share.ts);
 * - a replayed creation returns the same session, also on another replica sharing the database and Redis.
 * Budgets are rate-limiter-flexible windows on Date.now(): only Date is faked, so windows end only when a
 * test moves the clock (the app clock moves with it, so signatures stay fresh).
 */
import fs from 'node:fs';
import { parse } from 'graphql';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIELDS_PER_UNIT, operationCost } from '../../src/graphql/operation-cost.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { REST_OPERATIONS } from '../../src/pipeline/rest-routes.js';
import { MerchantShare, OVERLOADED_FLOOR } from '../../src/pipeline/budgets/merchant-share.js';
import { DEFAULT_SESSION_MAX_COST } from '../../src/pipeline/plugins/use-rate-limit.js';
import { projectPath } from '../../src/shared/paths.js';
import { HEAVIEST_ALLOWED, HEAVY_DOCUMENT, QUOTE_HEAVY } from '../../bench/documents.js';
import { createTestApp, gql, UNREACHABLE_RATE_LIMIT, type TestApp } from '../helpers/app.js';
import { localServicesSkipReason, throwawayRedisPerFile } from '../helpers/local-services.js';
import { CHANNELS_SUBSCRIPTION, openEventStream } from '../helpers/sse.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';

const schema = buildSchema();
const cost = (query: string) => operationCost(schema, parse(query));

/**
 * The drop-in component's own documents, read from its source (it defines a custom element, so it cannot be
 * imported here): if it ever asks for more, this test says whether the session ceiling still fits it.
 */
function componentDocuments(): string[] {
  const source = fs.readFileSync(projectPath('src/client/checkout/payment-checkout.ts'), 'utf8');
  const session = /const SESSION_QUERY = '([^']+)'/.exec(source)?.[1];
  const channels = /const CHANNELS_SUBSCRIPTION = `([^`]+)`/.exec(source)?.[1];
  const instructions = /const INSTRUCTIONS_QUERY = '([^']+)'/.exec(source)?.[1];
  if (!session || !channels || !instructions) throw new Error('the component’s documents moved: update componentDocuments() in this test');
  return [session, channels, instructions];
}

describe('what a document costs (work units)', () => {
  it('a plain list or calculation costs 1: the REST routes’ operations, the benchmark’s documents', () => {
    // A channel's instructions (contract §14) are a list pass and the filling of one channel's steps: 2.
    for (const [name, query] of Object.entries(REST_OPERATIONS)) expect(cost(query), name).toBe(name === 'channelInstructions' ? 2 : 1);
    expect(cost('{ paymentChannels(filter: { codes: ["bca_va"] }) { instructions { locale sections { key title steps } unfilled } } }')).toBe(2);
    // Every channel's fee and instructions at once: within a session's ceiling.
    const everything = cost('{ paymentChannels { code fee(amount: 150000) { totalAmount } instructions { sections { key title steps } unfilled } } }');
    expect(everything).toBe(4);
    expect(everything).toBeLessThanOrEqual(DEFAULT_SESSION_MAX_COST);
    expect(cost('{ paymentChannels { code name status feeInfo { feePercentage feeValue } } }')).toBe(1);
    expect(cost('{ calculateFee(input: { amount: 150000, currency: "IDR", method: "QRIS" }) { fee totalAmount } }')).toBe(1);
  });

  it('the component’s documents cost at most half the session ceiling; the issue’s heavy document far more', () => {
    for (const doc of componentDocuments()) expect(cost(doc) * 2, doc).toBeLessThanOrEqual(DEFAULT_SESSION_MAX_COST);
    expect(cost(componentDocuments()[1]!)).toBe(3);
    // Contract §14: the chosen channel's instructions, asked once per choice: the narrowed list 1 + its steps 1.
    expect(cost(componentDocuments()[2]!)).toBe(2);
    expect(cost(HEAVIEST_ALLOWED)).toBe(DEFAULT_SESSION_MAX_COST);
    expect(cost(HEAVY_DOCUMENT)).toBe(50);
    // The benchmark's quote-heavy document: a session may send it, at its price.
    expect(cost(QUOTE_HEAVY)).toBe(DEFAULT_SESSION_MAX_COST);
    // The component's quote of the chosen channel: a calculation and one signature.
    const quoteQuery = /const QUOTE_QUERY = '([^']+)'/.exec(fs.readFileSync(projectPath('src/client/checkout/payment-checkout.ts'), 'utf8'))?.[1];
    expect(quoteQuery).toBeDefined();
    expect(cost(quoteQuery!)).toBe(2);
  });

  it('counts aliases, fragments and fields; comments and whitespace change nothing', () => {
    const list = '{ paymentChannels { code } }';
    expect(cost('{ a: paymentChannels { code } b: paymentChannels { code } c: paymentChannels { code } }')).toBe(3);
    expect(cost('query { ...F ...F } fragment F on Query { paymentChannels { code fee(amount: 1) { fee } } }')).toBe(6);
    expect(cost(`# a comment\n${list}\n# another`)).toBe(cost(list));
    const fields = Array.from({ length: FIELDS_PER_UNIT * 2 }, (_, i) => `f${i}: code`).join(' ');
    expect(cost(`{ paymentChannels { ${fields} } }`)).toBe(3);
    // Only the operation that executes counts.
    const two = parse('query A { paymentChannels { code } } query B { a: paymentChannels { code } b: paymentChannels { code } }');
    expect(operationCost(schema, two, 'A')).toBe(1);
    expect(operationCost(schema, two, 'B')).toBe(2);
  });
});

let t: TestApp | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Move both clocks: the budgets' (Date) and the app's (signatures, skew, the merchant share's windows). */
function advance(app: TestApp, ms: number): void {
  vi.setSystemTime(Date.now() + ms);
  app.clock.now += ms;
}

let created = 0;
async function newSession(app: TestApp, as: DemoMerchantCredentials = app.approved): Promise<string> {
  const res = await app.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    as,
    // Another body each time (the lifetime differs): the same signed request would return the same session.
    body: JSON.stringify({ merchantId: as.merchantId, amount: 150000, currency: 'IDR', expiresInSeconds: 900 + created++ }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { clientSecret: string }).clientSecret;
}

function sessionPost(app: TestApp, secret: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch('/graphql', { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
}

const sessionList = (app: TestApp, secret: string) => app.fetch('/v1/payments/channel', { headers: { authorization: `Bearer ${secret}` } });

interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

describe('a session does only what a checkout needs', () => {
  it('the heavy document is refused for a session with 403 SESSION_SCOPE before it executes (a comment changes nothing); a signed caller gets it', async () => {
    t = await createTestApp();
    const secret = await newSession(t);
    const list = vi.spyOn(t.app.services.channels, 'search');
    for (const query of [HEAVY_DOCUMENT, `# ${Math.random()}\n${HEAVY_DOCUMENT}`]) {
      const res = await sessionPost(t, secret, query, { a: 150000 });
      expect(res.status).toBe(403);
      const body = (await res.json()) as GqlBody;
      expect(body.data ?? null).toBeNull();
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'SESSION_SCOPE', cost: 50, maxCost: DEFAULT_SESSION_MAX_COST });
      expect(body.errors?.[0]?.message).toMatch(/costs 50 work units.*at most 6/);
    }
    expect(list).not.toHaveBeenCalled();

    const signed = await gql(t, HEAVY_DOCUMENT, { a: 150000 });
    expect(signed.status).toBe(200);
    const data = ((await signed.json()) as GqlBody).data!;
    expect(Object.keys(data)).toHaveLength(15);
    expect(list).toHaveBeenCalledTimes(15);
  });

  it('the component’s documents and the heaviest allowed one are served to a session', async () => {
    t = await createTestApp();
    const secret = await newSession(t);
    const [sessionQuery] = componentDocuments();
    expect((await sessionPost(t, secret, sessionQuery!)).status).toBe(200);
    const res = await sessionPost(t, secret, HEAVIEST_ALLOWED, { a: 150000 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as GqlBody).data?.paymentChannels).toBeInstanceOf(Array);
  });

  it('a heavy subscription is refused with a JSON 403, not a stream, and frees its stream slot', async () => {
    t = await createTestApp();
    const secret = await newSession(t);
    // One root field (a subscription has exactly one): the list and three pricing passes, 7 units.
    const heavy = `subscription { paymentChannelsChanged { code ${Array.from({ length: 3 }, (_, i) => `f${i}: fee(amount: 150000) { fee }`).join(' ')} } }`;
    for (let i = 0; i < 3; i++) {
      const res = await t.streamFetch('/graphql', { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query: heavy }) });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(((await res.json()) as GqlBody).errors?.[0]?.extensions.code).toBe('SESSION_SCOPE');
    }
    // Both of the session's slots are still free.
    const streams = [];
    for (let i = 0; i < 2; i++) streams.push(await openEventStream(CHANNELS_SUBSCRIPTION, { as: t.approved, fetch: t.streamFetch, headers: { Authorization: `Bearer ${secret}` } }));
    expect(streams.map((s) => s.status)).toEqual([200, 200]);
    for (const s of streams) await s.close();
  });
});

describe('budgets spend what a request costs', () => {
  it('a session’s budget (40 units per 2 s) spends 6 per heaviest document: the 7th is 429 with Retry-After, a list after it too; another session is unaffected', async () => {
    t = await createTestApp({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, sessionRatePerSecond: 20, sessionBurst: 40 } } });
    const secret = await newSession(t);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await sessionPost(t, secret, HEAVIEST_ALLOWED, { a: 150000 })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const refused = await sessionPost(t, secret, HEAVIEST_ALLOWED, { a: 150000 });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as GqlBody).errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', scope: 'session' });
    expect((await sessionList(t, secret)).status).toBe(429);
    expect((await sessionList(t, await newSession(t))).status).toBe(200);
    advance(t, 2000);
    expect((await sessionList(t, secret)).status).toBe(200);
  });

  it('a key’s budget spends a document’s cost, and a comment buys nothing: two heavy documents (50 each) spend a burst of 100', async () => {
    t = await createTestApp({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, keyRatePerSecond: 1, keyBurst: 100 } } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await gql(t, `# try ${i}\n${HEAVY_DOCUMENT}`, { a: 150000 })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const list = await t.signedFetch('/v1/payments/channel');
    expect(list.status).toBe(429);
    expect(list.headers.get('retry-after')).toBeTruthy();
  });

  it('plain lists and calculations still cost 1: 100 of them fit a burst of 100', async () => {
    t = await createTestApp({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, keyRatePerSecond: 1, keyBurst: 100 } } });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await t.signedFetch('/v1/payments/channel')).status);
    for (let i = 0; i < 50; i++) statuses.push((await gql(t, 'query($a: Decimal!) { calculateFee(input: { amount: $a, currency: "IDR", method: "QRIS" }) { fee } }', { a: 150000 + i })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await t.signedFetch('/v1/payments/channel')).status).toBe(429);
  });
});

describe('one merchant’s sessions get a fair, work-conserving share', () => {
  const CAPACITY = 30;

  it('alone, a merchant’s sessions use all the capacity; with another merchant active they are held to their share while the other is served', async () => {
    t = await createTestApp({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, merchantShareCapacity: CAPACITY } } });
    const app = t;
    const secrets = [await newSession(app), await newSession(app), await newSession(app)];
    const other = await newSession(app, app.pending);
    // Two quiet windows: nobody counts as active any more.
    advance(app, 2000);

    // Alone: 45 units in one window, past the capacity, none refused.
    const alone: number[] = [];
    for (let i = 0; i < 45; i++) alone.push((await sessionList(app, secrets[i % 3]!)).status);
    expect(alone.every((s) => s === 200)).toBe(true);

    advance(app, 2000);
    // The other merchant's server calls: it is active, and is never refused by the share.
    expect((await app.signedFetch('/v1/payments/channel', { as: app.pending })).status).toBe(200);
    const crowd: number[] = [];
    for (let i = 0; i < 45; i++) crowd.push((await sessionList(app, secrets[i % 3]!)).status);
    // Spare capacity first (30 − the other's 1 = 29), then nothing past the share (30 / 2).
    expect(crowd.filter((s) => s === 200)).toHaveLength(CAPACITY - 1);
    expect(crowd.slice(CAPACITY - 1).every((s) => s === 429)).toBe(true);
    const refused = await sessionList(app, secrets[0]!);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED', scope: 'merchant' });
    // The other merchant, within its share, is served: its server and its own sessions.
    expect((await app.signedFetch('/v1/payments/channel', { as: app.pending })).status).toBe(200);
    expect((await sessionList(app, other)).status).toBe(200);

    // The other merchant goes quiet: the capacity is the crowd's again.
    advance(app, 2000);
    const again: number[] = [];
    for (let i = 0; i < 40; i++) again.push((await sessionList(app, secrets[i % 3]!)).status);
    expect(again.every((s) => s === 200)).toBe(true);
  });

  it('on an overloaded process the capacity follows what was served: the crowd past its share is shed, the other merchant is not', () => {
    let now = 0;
    let overloaded = false;
    const share = new MerchantShare({ capacityPerSecond: 1000, now: () => now, overloaded: () => overloaded });
    share.record('other', 10);
    for (let i = 0; i < 90; i++) expect(share.admit('crowd', 1)).toBe(true);
    // The process fell behind during that window: the next one has 80 % of the 100 units served.
    overloaded = true;
    now += 1000;
    expect(share.windowCapacity).toBe(80);
    share.record('other', 10);
    let admitted = 0;
    for (let i = 0; i < 90; i++) if (share.admit('crowd', 1)) admitted++;
    expect(admitted).toBe(70); // spare capacity (80 − 10), then nothing past the share of 40
    expect(share.admit('other', 1)).toBe(true); // the other merchant's sessions, within their share
    // Recovered: the configured capacity again.
    overloaded = false;
    now += 1000;
    expect(share.windowCapacity).toBe(1000);
  });

  it('a process slowed by something else while it served little keeps a floor of capacity: a page’s first requests are not shed', () => {
    let now = 0;
    let overloaded = false;
    const share = new MerchantShare({ capacityPerSecond: 2000, now: () => now, overloaded: () => overloaded });
    share.record('other', 1);
    expect(share.admit('shop', 1)).toBe(true);
    // A slow event loop (another process on the machine), with 2 units served: not a reason to shed sessions.
    overloaded = true;
    now += 1000;
    expect(share.windowCapacity).toBe(2000 * OVERLOADED_FLOOR);
    share.record('other', 1);
    for (let i = 0; i < 10; i++) expect(share.admit('shop', 1)).toBe(true);
  });

  it('the share’s memory is bounded: merchants past the bound share one record (stricter, never more lenient)', () => {
    let now = 0;
    const share = new MerchantShare({ capacityPerSecond: 10, maxMerchants: 3, now: () => now });
    for (let i = 0; i < 1000; i++) share.record(`m${i}`, 1);
    expect(share.trackedMerchants).toBe(4);
    // At capacity, merchant m999 (in the overflow record, 997 units spent) is past any share.
    expect(share.admit('m999', 1)).toBe(false);
    // A tracked merchant within its share is admitted.
    expect(share.admit('m0', 1)).toBe(true);
    now += 2000;
    expect(share.trackedMerchants).toBe(0);
    expect(share.admit('m999', 11)).toBe(true); // alone: work-conserving
  });
});

const redisSkip = localServicesSkipReason('redis');
const redisHolder = throwawayRedisPerFile(redisSkip);

describe.skipIf(redisSkip)('a replayed creation on another replica (shared database and Redis)', () => {
  it('returns the same session there, and that session has one budget across both', async () => {
    vi.useRealTimers();
    const rateLimit = { ...UNREACHABLE_RATE_LIMIT, sessionRatePerSecond: 20, sessionBurst: 40, redisUrl: redisHolder.current!.url };
    const a = await createTestApp({ app: { rateLimit } });
    const b = await createTestApp({ sharedData: a, app: { rateLimit } });
    try {
      for (const app of [a, b]) await app.app.rateLimitStore!.waitUntilUp();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const body = JSON.stringify({ merchantId: a.approved.merchantId, amount: 170000, currency: 'IDR' });
      const answers = [];
      for (const app of [a, b, a, b]) {
        const res = await app.signedFetch('/v1/checkout/sessions', { method: 'POST', body, timestamp });
        expect(res.status).toBe(201);
        answers.push(await res.json());
      }
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      const secret = (answers[0] as { clientSecret: string }).clientSecret;
      const statuses: number[] = [];
      for (let i = 0; i < 60; i++) statuses.push((await sessionList(i % 2 ? b : a, secret)).status);
      // One budget of 40 (80 if the burst straddles a window edge), never 2 × 40.
      const served = statuses.filter((s) => s === 200).length;
      expect(served).toBeGreaterThanOrEqual(40);
      expect(served).toBeLessThan(60);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
