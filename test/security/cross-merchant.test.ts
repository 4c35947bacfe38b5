/**
 * Cross-merchant access: every operation that names a merchant,
 * called with merchant A's key and merchant B's id, is refused with
 * MERCHANT_MISMATCH (403) before anything about B or the channel is looked
 * at, and the response carries nothing of B.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_CHANNELS, type DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

// Many sequential requests: generous on a shared, loaded machine (no timing is asserted).
vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ app: { rateLimit: { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9 } } });
});
afterAll(() => t.close());

/** Strings that would reveal B (or any secret) if they appeared in a response to A. */
function secretsOf(b: DemoMerchantCredentials, a: DemoMerchantCredentials): string[] {
  return [b.name, b.apiKey, b.apiSecret, a.apiSecret, b.kyc === 'pending' ? 'pending' : 'approved'];
}

const pairs = () =>
  [
    [t.approved, t.pending],
    [t.pending, t.approved],
  ] as const;

/** B's id as given, and forms that must not slip past an exact comparison. */
const idVariants = (id: string) => [id, id.toUpperCase(), ` ${id}`, `${id} `, `${id}\u0000`, id.replace(/-/g, '')];

describe('MERCHANT_MISMATCH on every operation that names a merchant', () => {
  it('REST POST /v1/payments/calculate, every channel, every form of B’s id', async () => {
    for (const [a, b] of pairs()) {
      for (const channel of DEMO_CHANNELS) {
        for (const merchantId of idVariants(b.merchantId)) {
          const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: channel.code, merchantId, chargeFeeToCustomer: true });
          const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body, as: a });
          const text = await res.text();
          expect(res.status, `${channel.code} ${JSON.stringify(merchantId)}: ${text}`).toBe(403);
          const problem = JSON.parse(text) as Record<string, unknown>;
          expect(problem).toMatchObject({ code: 'MERCHANT_MISMATCH', status: 403, field: 'merchantId' });
          // No fee figures, nothing about B, not even a hint whether the channel exists for B.
          expect(Object.keys(problem).sort()).toEqual(['code', 'detail', 'field', 'requestId', 'status', 'title', 'type']);
          for (const s of secretsOf(b, a)) expect(text).not.toContain(s);
        }
      }
    }
  });

  it('GraphQL calculateFee(input.merchantId), as variables and as a literal', async () => {
    for (const [a, b] of pairs()) {
      for (const channel of DEMO_CHANNELS) {
        const input = { amount: 150000, currency: 'IDR', method: channel.code, merchantId: b.merchantId };
        const viaVars = await gql(t, 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee totalAmount getBalance } }', { i: input }, a);
        const viaLiteral = await gql(t, `{ calculateFee(input: { amount: 150000, currency: "IDR", method: "${channel.code}", merchantId: "${b.merchantId}" }) { fee } }`, undefined, a);
        for (const res of [viaVars, viaLiteral]) {
          const text = await res.text();
          const body = JSON.parse(text) as { data: unknown; errors: { extensions: Record<string, unknown> }[] };
          expect(body.data, text).toBeNull();
          expect(body.errors).toHaveLength(1);
          expect(body.errors[0]!.extensions).toMatchObject({ code: 'MERCHANT_MISMATCH', field: 'merchantId' });
          for (const s of secretsOf(b, a)) expect(text).not.toContain(s);
        }
      }
    }
  });

  it('one document mixing A’s and B’s ids: B’s field fails with MERCHANT_MISMATCH (non-null Query fields null the whole data)', async () => {
    const [a, b] = pairs()[0];
    const res = await gql(
      t,
      `{ mine: calculateFee(input: { amount: 150000, currency: "IDR", method: "qris", merchantId: "${a.merchantId}" }) { fee }
         theirs: calculateFee(input: { amount: 150000, currency: "IDR", method: "ovo", merchantId: "${b.merchantId}" }) { fee } }`,
      undefined,
      a,
    );
    const body = (await res.json()) as { data: null; errors: { path: string[]; extensions: { code: string } }[] };
    expect(body.data).toBeNull();
    expect(body.errors.map((e) => [e.path[0], e.extensions.code])).toEqual([['theirs', 'MERCHANT_MISMATCH']]);
  });

  it('operations without a merchant argument only ever show the caller’s own data', async () => {
    for (const [a, b] of pairs()) {
      // A stray merchantId in the query string is not a way in: the list is the key's merchant's.
      const rest = await t.signedFetch(`/v1/payments/channel?merchantId=${b.merchantId}`, { as: a });
      const own = await t.signedFetch('/v1/payments/channel', { as: a });
      expect(rest.status).toBe(200);
      expect(await rest.json()).toEqual(await own.json());
      const ovoOf = async (who: DemoMerchantCredentials) => {
        const r = (await (await gql(t, '{ paymentChannels { code feeInfo { feePercentage } } }', undefined, who)).json()) as {
          data: { paymentChannels: { code: string; feeInfo: { feePercentage: number } }[] };
        };
        return r.data.paymentChannels.find((c) => c.code === 'ovo')?.feeInfo.feePercentage;
      };
      // The pending merchant has its own OVO fee override (1.2 %); each key sees only its own value.
      expect(await ovoOf(t.pending)).toBe(1.2);
      expect(await ovoOf(t.approved)).not.toBe(1.2);
    }
  });
});
