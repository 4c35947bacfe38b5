import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const GQL_GET = `/graphql?query=${encodeURIComponent('{ paymentChannels { code status feeInfo { feeValue } } }')}`;

describe.each([
  ['REST GET /v1/payments/channel', '/v1/payments/channel'],
  ['GraphQL GET /graphql?query=', GQL_GET],
])('ETag on %s', (_name, target) => {
  it('is private, revalidated with If-None-Match → 304 without a body', async () => {
    const first = await t.signedFetch(target);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');

    const again = await t.signedFetch(target, { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
    expect(again.headers.get('x-request-id')).toBeTruthy();

    const listed = await t.signedFetch(target, { headers: { 'If-None-Match': `"other", W/${etag}` } });
    expect(listed.status).toBe(304);
    expect((await t.signedFetch(target, { headers: { 'If-None-Match': '"stale"' } })).status).toBe(200);
  });

  it('answers 304 only after the signature is verified', async () => {
    const { headers } = await t.signedFetch(target);
    const etag = headers.get('etag')!;
    const unsigned = await t.fetch(target, { headers: { 'If-None-Match': etag } });
    expect(unsigned.status).toBe(401);
    const badSecret = await t.signedFetch(target, { headers: { 'If-None-Match': etag }, as: { ...t.approved, apiSecret: 'nope' } });
    expect(badSecret.status).toBe(401);
    const wildcard = await t.fetch(target, { headers: { 'If-None-Match': '*' } });
    expect(wildcard.status).toBe(401);
  });

  it('differs per merchant and changes when the data changes', async () => {
    const approved = (await t.signedFetch(target)).headers.get('etag')!;
    const pending = (await t.signedFetch(target, { as: t.pending })).headers.get('etag')!;
    expect(pending).not.toBe(approved);

    await t.execute(`update channels set fee_value = '4500' where code = 'bca_va'`);
    try {
      const changed = await t.signedFetch(target, { headers: { 'If-None-Match': approved } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(approved);
    } finally {
      await t.execute(`update channels set fee_value = '4000' where code = 'bca_va'`);
    }
    expect((await t.signedFetch(target, { headers: { 'If-None-Match': approved } })).status).toBe(304);
  });
});

describe('no ETag where it does not belong', () => {
  it('POST GraphQL, the calculation and errors carry none', async () => {
    expect((await gql(t, '{ paymentChannels { code } }')).headers.get('etag')).toBeNull();
    const calc = await t.signedFetch('/v1/payments/calculate', {
      method: 'POST',
      body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId }),
    });
    expect(calc.status).toBe(200);
    expect(calc.headers.get('etag')).toBeNull();
    const failing = await t.signedFetch(`/graphql?query=${encodeURIComponent('{ paymentChannels(filter: { amount: 0 }) { code } }')}`);
    expect(failing.headers.get('etag')).toBeNull();
  });
});
