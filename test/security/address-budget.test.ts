/**
 * Contract §6 "Address budget": once 20 failed authentications came from one address,
 * correctly signed requests from that address (every merchant behind it) were refused too. Now the
 * failed-authentication budget only ever turns failing requests into 429.
 *
 * Default limits and the default client address: the socket peer (127.0.0.1 for every request) through a
 * real server with TEST_TRANSPORT=node, one shared unknown address in-process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT } from '../../src/app/app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const QUERY = '{"query":"{ paymentChannels { code } }"}';

describe('failed authentications from one address do not lock out correctly signed requests', () => {
  it('30 bad signatures, then both merchants get 200 on REST and GraphQL; the 31st bad one is 429', async () => {
    expect(DEFAULT_RATE_LIMIT.authFailuresPerMinute).toBe(20);
    t = await createTestApp({ app: { rateLimit: DEFAULT_RATE_LIMIT } });
    const bad = { ...t.approved, apiSecret: 'sk_test_misconfigured_client' };

    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await t.signedFetch('/v1/payments/channel', { as: bad })).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(10).fill(429));

    for (const merchant of [t.approved, t.pending]) {
      const rest = await t.signedFetch('/v1/payments/channel', { as: merchant });
      expect(rest.status, `REST as ${merchant.name}`).toBe(200);
      const graphql = await t.signedFetch('/graphql', { method: 'POST', body: QUERY, as: merchant });
      expect(graphql.status, `GraphQL as ${merchant.name}`).toBe(200);
      const calculate = await t.signedFetch('/v1/payments/calculate', {
        method: 'POST',
        body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'bca_va', merchantId: merchant.merchantId }),
        as: merchant,
      });
      expect(calculate.status, `calculate as ${merchant.name}`).not.toBe(429);
    }

    const bad31 = await t.signedFetch('/v1/payments/channel', { as: bad });
    expect(bad31.status).toBe(429);
    expect(Number(bad31.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await bad31.json()).toMatchObject({ code: 'RATE_LIMITED', scope: 'address' });

    const badGraphql = await t.signedFetch('/graphql', { method: 'POST', body: QUERY, as: bad });
    expect(badGraphql.status).toBe(429);
    expect(badGraphql.headers.get('retry-after')).not.toBeNull();
  });
});
