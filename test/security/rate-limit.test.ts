/**
 * Rate limiting (issue 4 §2; contract §4 RATE_LIMITED 429 + Retry-After).
 * The app clock is fake, so buckets refill only when a test moves it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addressKey, TokenBuckets } from '../../src/http/rate-limit.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

/** Tests choose the client address with this header (yoga.fetch has no socket). */
const fromHeader = (request: Request) => request.headers.get('x-test-client') ?? undefined;

let t: TestApp | undefined;
afterEach(() => t?.close());

async function app(rateLimit: { keyRatePerSecond: number; keyBurst: number; authFailuresPerMinute: number }): Promise<TestApp> {
  t = await createTestApp({ app: { rateLimit: { ...rateLimit, clientAddress: fromHeader } } });
  return t;
}

interface GqlBody {
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

describe('per API key token bucket', () => {
  it('refuses the request after the burst with 429 RATE_LIMITED + Retry-After, on both surfaces, and refills', async () => {
    const t = await app({ keyRatePerSecond: 1, keyBurst: 3, authFailuresPerMinute: 100 });
    for (let i = 0; i < 3; i++) expect((await gql(t, '{ paymentChannels { code } }')).status).toBe(200);

    const res = await gql(t, '{ paymentChannels { code } }');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = (await res.json()) as GqlBody;
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 1 });

    const rest = await t.signedFetch('/v1/payments/channel');
    expect(rest.status).toBe(429);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(rest.headers.get('content-type')).toContain('application/problem+json');
    expect(await rest.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', title: 'Too many requests' });

    // Another merchant's key has its own bucket.
    expect((await gql(t, '{ paymentChannels { code } }', undefined, t.pending)).status).toBe(200);

    t.clock.now += 1000;
    expect((await gql(t, '{ paymentChannels { code } }')).status).toBe(200);
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

describe('failed authentications per client address', () => {
  const wrong = (t: TestApp, client: string) =>
    t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': client }, as: { ...t.approved, apiSecret: 'sk_test_guess' } });
  const right = (t: TestApp, client: string) => t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': client } });

  it('blocks an address after N failures, before checking even a correct signature; other addresses unaffected', async () => {
    const t = await app({ keyRatePerSecond: 1000, keyBurst: 1000, authFailuresPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      const res = await wrong(t, '198.51.100.7');
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('SIGNATURE_MISMATCH');
    }
    const blocked = await right(t, '198.51.100.7');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('20');
    expect(await blocked.json()).toMatchObject({ code: 'RATE_LIMITED', scope: 'address' });

    const graphql = await t.signedFetch('/graphql', {
      method: 'POST',
      body: '{"query":"{ paymentChannels { code } }"}',
      headers: { 'x-test-client': '198.51.100.7' },
    });
    expect(graphql.status).toBe(429);
    expect(((await graphql.json()) as GqlBody).errors?.[0]?.extensions.code).toBe('RATE_LIMITED');

    expect((await right(t, '203.0.113.9')).status).toBe(200);

    t.clock.now += 20_000; // one failure token refills (3 per minute)
    expect((await right(t, '198.51.100.7')).status).toBe(200);
  });

  it('missing headers and unknown keys count as failures too; successes do not', async () => {
    const t = await app({ keyRatePerSecond: 1000, keyBurst: 1000, authFailuresPerMinute: 2 });
    for (let i = 0; i < 5; i++) expect((await right(t, '192.0.2.1')).status).toBe(200);
    expect((await t.fetch('/v1/payments/channel', { headers: { 'x-test-client': '192.0.2.1' } })).status).toBe(401);
    expect((await t.signedFetch('/v1/payments/channel', { headers: { 'x-test-client': '192.0.2.1' }, as: { ...t.approved, apiKey: 'pk_test_nope' } })).status).toBe(401);
    expect((await right(t, '192.0.2.1')).status).toBe(429);
  });

  it('IPv6 addresses of one /64 share a bucket', async () => {
    const t = await app({ keyRatePerSecond: 1000, keyBurst: 1000, authFailuresPerMinute: 1 });
    expect((await wrong(t, '2001:db8:1:2::1')).status).toBe(401);
    expect((await right(t, '2001:db8:1:2:ffff::9')).status).toBe(429);
    expect((await right(t, '2001:db8:1:3::1')).status).toBe(200);
  });
});

describe('TokenBuckets and addressKey', () => {
  it('memory stays bounded by the cap and idle buckets are evicted', () => {
    const clock = { now: 0 };
    const buckets = new TokenBuckets({ ratePerSecond: 10, burst: 10, maxEntries: 100, now: () => clock.now });
    for (let i = 0; i < 10_000; i++) buckets.take(`k${i}`);
    expect(buckets.size).toBe(100);
    clock.now += 1000; // burst / rate = 1 s: every bucket is full again
    buckets.take('fresh');
    expect(buckets.size).toBe(1);
  });

  it('eviction never forgives an exhausted bucket that is still refilling', () => {
    const clock = { now: 0 };
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 2, maxEntries: 10, now: () => clock.now });
    buckets.take('a');
    buckets.take('a');
    clock.now += 500;
    buckets.take('b');
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
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
