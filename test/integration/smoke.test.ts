import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('core flows in-process', () => {
  it('REST calculate reproduces the seed sample', async () => {
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId, chargeFeeToCustomer: true });
    const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });
  });

  it('GraphQL lists channels', async () => {
    const res = await gql(t, '{ paymentChannels { code status } }');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { paymentChannels: { code: string; status: string }[] } };
    expect(body.data.paymentChannels.map((c) => c.code)).toContain('qris');
  });
});
