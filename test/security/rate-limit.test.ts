/**
 * Rate limiting (contract §4 RATE_LIMITED 429 + Retry-After, §6 "Address budget").
 * Budgets are rate-limiter-flexible fixed windows on Date.now(); only Date is faked here, so windows
 * end only when a test moves the clock (the app clock moves with it, so signatures stay fresh).
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addressKey, keyBudgetWindow, RateBudget } from '../../src/pipeline/budgets/rate-limit-budgets.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

/** Tests choose the client address with this header (yoga.fetch has no socket). */
const fromHeader = (request: Request) => request.headers.get('x-test-client') ?? undefined;

let t: TestApp | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  vi.useRealTimers();
});

/** Move both clocks: the budgets' (Date) and the app's (signatures, skew). */
function advance(t: TestApp, ms: number): void {
  vi.setSystemTime(Date.now() + ms);
  t.clock.now += ms;
}

async function app(rateLimit: { keyRatePerSecond: number; keyBurst: number; authFailuresPerMinute: number }): Promise<TestApp> {
  t = await createTestApp({ app: { rateLimit, clientAddress: fromHeader } });
  return t;
}

interface GqlBody {
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

describe('per API key budget', () => {
  it('refuses the request after the burst with 429 RATE_LIMITED + Retry-After, on both surfaces, and refills', async () => {
    // 1/s with bursts of 3 = a window of 3 requests per 3 s (keyBudgetWindow).
    const t = await app({ keyRatePerSecond: 1, keyBurst: 3, authFailuresPerMinute: 100 });
    for (let i = 0; i < 3; i++) expect((await gql(t, '{ paymentChannels { code } }')).status).toBe(200);

    const res = await gql(t, '{ paymentChannels { code } }');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    const body = (await res.json()) as GqlBody;
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 3 });

    advance(t, 1000);
    const rest = await t.signedFetch('/v1/payments/channel');
    expect(rest.status).toBe(429);
    expect(rest.headers.get('retry-after')).toBe('2');
    expect(rest.headers.get('content-type')).toContain('application/problem+json');
    expect(await rest.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', title: 'Too many requests' });

    // Another merchant's key has its own bucket.
    expect((await gql(t, '{ paymentChannels { code } }', undefined, t.pending)).status).toBe(200);

    advance(t, 2000); // the window is over
    for (let i = 0; i < 3; i++) expect((await gql(t, '{ paymentChannels { code } }')).status).toBe(200);
    expect((await gql(t, '{ paymentChannels { code } }')).status).toBe(429);
  });

  it('invalid REST bodies count too (the limit runs before the REST adapter)', async () => {
    const t = await app({ keyRatePerSecond: 1, keyBurst: 2, authFailuresPerMinute: 100 });
    const bad = { method: 'POST', body: '{"amount":' } as const;
    expect((await t.signedFetch('/v1/payments/calculate', bad)).status).toBe(400);
    expect((await t.signedFetch('/v1/payments/calculate', bad)).status).toBe(400);
    expect((await t.signedFetch('/v1/payments/calculate', bad)).status).toBe(429);
  });

  it('unsigned requests naming a key do not drain that key’s bucket', async () => {
    const t = await app({ keyRatePerSecond: 1, keyBurst: 2, authFailuresPerMinute: 1000 });
    for (let i = 0; i < 10; i++) {
      const res = await t.fetch('/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': t.approved.apiKey,
          'x-service-timestamp': String(Math.floor(t.clock.now / 1000)),
          'x-service-signature': '0'.repeat(64),
        },
        body: '{"query":"{ paymentChannels { code } }"}',
      });
      expect(res.status).toBe(401);
    }
    expect((await gql(t, '{ paymentChannels { code } }')).status).toBe(200);
  });
});

describe('failed authentications per client address (contract §6 "Address budget")', () => {
  const wrong = (t: TestApp, client: string) =>
    t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': client }, as: { ...t.approved, apiSecret: 'sk_test_guess' } });
  const right = (t: TestApp, client: string) => t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': client } });

  it('answers failures past the budget with 429 + Retry-After, and never refuses a verified request from that address', async () => {
    const t = await app({ keyRatePerSecond: 1000, keyBurst: 1000, authFailuresPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await wrong(t, '198.51.100.7');
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('SIGNATURE_MISMATCH');
    }
    const blocked = await wrong(t, '198.51.100.7');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('60');
    expect(blocked.headers.get('content-type')).toContain('application/problem+json');
    expect(await blocked.json()).toMatchObject({ code: 'RATE_LIMITED', scope: 'address' });

    // Any failure is 429 now (so nothing tells which check failed), on GraphQL too ...
    const unsigned = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-test-client': '198.51.100.7' }, body: '{"query":"{ paymentChannels { code } }"}' });
    expect(unsigned.status).toBe(429);
    expect(((await unsigned.json()) as GqlBody).errors?.[0]?.extensions.code).toBe('RATE_LIMITED');

    // ... while correctly signed requests from the same address pass, for both merchants and both surfaces.
    expect((await right(t, '198.51.100.7')).status).toBe(200);
    expect((await t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': '198.51.100.7' }, as: t.pending })).status).toBe(200);
    const graphql = await t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{ paymentChannels { code } }"}', headers: { 'x-test-client': '198.51.100.7' } });
    expect(graphql.status).toBe(200);

    expect((await wrong(t, '203.0.113.9')).status).toBe(401); // other addresses have their own budget

    advance(t, 60_000); // the window is over
    expect((await wrong(t, '198.51.100.7')).status).toBe(401);
  });

  it('missing headers and unknown keys count as failures too; successes do not', async () => {
    const t = await app({ keyRatePerSecond: 1000, keyBurst: 1000, authFailuresPerMinute: 2 });
    for (let i = 0; i < 5; i++) expect((await right(t, '192.0.2.1')).status).toBe(200);
    expect((await t.fetch('/v1/payments/channel', { headers: { 'x-test-client': '192.0.2.1' } })).status).toBe(401);
    expect((await t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': '192.0.2.1' }, as: { ...t.approved, apiKey: 'pk_test_nope' } })).status).toBe(401);
    expect((await wrong(t, '192.0.2.1')).status).toBe(429);
    expect((await right(t, '192.0.2.1')).status).toBe(200);
  });

  it('IPv6 addresses of one /64 share a budget', async () => {
    const t = await app({ keyRatePerSecond: 1000, keyBurst: 1000, authFailuresPerMinute: 1 });
    expect((await wrong(t, '2001:db8:1:2::1')).status).toBe(401);
    expect((await wrong(t, '2001:db8:1:2:ffff::9')).status).toBe(429);
    expect((await right(t, '2001:db8:1:2:ffff::9')).status).toBe(200);
    expect((await wrong(t, '2001:db8:1:3::1')).status).toBe(401);
  });
});

describe('budgets, windows and addressKey', () => {
  const logger = pino({ level: 'silent' });

  it.each([
    [50, 100, { points: 100, durationSeconds: 2 }],
    [1, 3, { points: 3, durationSeconds: 3 }],
    [20, 20, { points: 20, durationSeconds: 1 }],
    [50, 20, { points: 50, durationSeconds: 1 }],
    [0.5, 1, { points: 1, durationSeconds: 2 }],
  ])('keyBudgetWindow(rate %s, burst %s) = %o', (rate, burst, expected) => {
    expect(keyBudgetWindow(rate, burst)).toEqual(expected);
  });

  it('memory stays bounded by the cap; keys past it share one overflow budget (never forgiven); ended windows are dropped', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const budget = new RateBudget({ name: 'test', points: 1, durationSeconds: 1, maxEntries: 100, logger });
    for (let i = 0; i < 10_000; i++) await budget.consume(`k${i}`);
    expect(budget.memoryEntries).toBe(101); // 100 keys + the overflow record
    expect(await budget.consume('k5')).toBe(1); // tracked key: its own (spent) budget
    expect(await budget.consume('new-key')).toBe(1); // past the cap: the spent overflow budget, not a fresh one
    vi.advanceTimersByTime(1000); // every window ends and its record is deleted
    expect(budget.memoryEntries).toBe(0);
    expect(await budget.consume('new-key')).toBe(0);
  });

  it.each([
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['10.1.2.3', '10.1.2.3'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0001:0002:0003:0004:0005:0006', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('addressKey(%s) = %s', (input, expected) => {
    expect(addressKey(input)).toBe(expected);
  });
});
