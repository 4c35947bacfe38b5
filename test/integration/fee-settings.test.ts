/**
 * Contract §10 end to end, on whichever engine the run uses (npm run test:pg runs it on Postgres): an
 * operator sets "QRIS: 0.7 %, at least 500, at most 5,000, 11 % tax, customer pays half" for one merchant, and
 * that merchant's REST and GraphQL answers and channel list show the worked example to the rupiah, while
 * every other merchant's numbers stay as they were. Also the demo data's own §10 rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError, AdminService } from '../../src/modules/admin/service.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/ops.js';

let t: TestApp;
let admin: AdminService;
let shop: DemoMerchantCredentials;

const EXAMPLE = [
  // amount, fee, feeTax, customerFee, merchantFee, totalAmount, getBalance, cap
  [10000, 500, 55, 278, 277, 10278, 9723, 'MINIMUM'],
  [150000, 1050, 116, 583, 583, 150583, 149417, null],
  [1000000, 5000, 550, 2775, 2775, 1002775, 997225, 'MAXIMUM'],
] as const;

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'fee-settings-test' });
  const id = (await admin.createMerchant({ name: 'Kedai Bagi Dua', kycStatus: 'approved', channels: ['qris', 'ovo'] })).id;
  const key = await admin.createKey(id);
  shop = { name: 'Kedai Bagi Dua', merchantId: id, apiKey: key.apiKey, apiSecret: key.apiSecret, kyc: 'approved', category: 'regular' };
  await admin.setFee({ channel: 'qris', merchantId: id, bands: '*:0.7:0', minFee: '500', maxFee: '5000', taxPercentage: '11', customerShare: '50' });
  await t.sync();
});
afterAll(() => t.close());

async function restCalc(as: DemoMerchantCredentials, method: string, amount: number, chargeFeeToCustomer?: boolean) {
  const body = JSON.stringify({ amount, currency: 'IDR', method, merchantId: as.merchantId, ...(chargeFeeToCustomer === undefined ? {} : { chargeFeeToCustomer }) });
  const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body, as });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('the worked example for one merchant (contract §10)', () => {
  it.each(EXAMPLE)('REST and GraphQL: %i', async (amount, fee, feeTax, customerFee, merchantFee, totalAmount, getBalance, cap) => {
    expect(await restCalc(shop, 'QRIS', amount)).toEqual({ amount, fee, additionalFee: 0, totalAmount, getBalance, currency: 'IDR', feeTax, customerFee, merchantFee });
    const res = await gql(
      t,
      'query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee feeTax customerFee merchantFee totalAmount getBalance breakdown { feeBearer customerShare cap taxPercentage } } }',
      { i: { amount, currency: 'IDR', method: 'qris' } },
      shop,
    );
    const json = (await res.json()) as { data: { calculateFee: Record<string, unknown> } };
    expect(json.data.calculateFee).toEqual({ fee, feeTax, customerFee, merchantFee, totalAmount, getBalance, breakdown: { feeBearer: 'SPLIT', customerShare: 50, cap, taxPercentage: 11 } });
  });

  it('the channel list carries the rule’s settings, and the fee bearer is the customer only at a share of 100', async () => {
    const res = await t.signedFetch('/v1/payments/channel', { as: shop });
    const qris = ((await res.json()) as { data: { code: string; is_fee_charged_to_customer: boolean; fee_info: Record<string, unknown> }[] }).data.find((c) => c.code === 'qris')!;
    expect(qris.is_fee_charged_to_customer).toBe(false);
    expect(qris.fee_info).toEqual({ fee_percentage: 0.7, fee_value: 0, min_transactions: 1000, max_transactions: 10000000, minimum_fee: 500, maximum_fee: 5000, tax_percentage: 11, customer_share: 50 });
    const g = await gql(t, '{ paymentChannels { code isFeeChargedToCustomer feeRule { minFee maxFee taxPercentage customerShare } } }', undefined, shop);
    const channel = ((await g.json()) as { data: { paymentChannels: { code: string }[] } }).data.paymentChannels.find((c) => c.code === 'qris');
    expect(channel).toEqual({ code: 'qris', isFeeChargedToCustomer: false, feeRule: { minFee: 500, maxFee: 5000, taxPercentage: 11, customerShare: 50 } });
  });

  it('the request still decides when it says who pays', async () => {
    expect(await restCalc(shop, 'QRIS', 150000, true)).toMatchObject({ customerFee: 1166, merchantFee: 0, totalAmount: 151166, getBalance: 150000 });
    expect(await restCalc(shop, 'QRIS', 150000, false)).toMatchObject({ customerFee: 0, merchantFee: 1166, totalAmount: 150000, getBalance: 148834 });
  });

  it('every other merchant’s numbers are unchanged: the seed sample stays exactly as it was', async () => {
    expect(await restCalc(t.approved, 'QRIS', 150000, true)).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });
    expect(await restCalc(shop, 'OVO', 100000)).toMatchObject({ fee: 1500, feeTax: 0, customerFee: 0, merchantFee: 1500 }); // OVO: the merchant bears the fee
  });

  it('fee list and the audit trail show the settings', async () => {
    const listed = await admin.listFees('qris', shop.merchantId);
    expect(listed[0]).toMatchObject({ scope: 'MERCHANT', minFee: '500', maxFee: '5000', taxPercentage: '11', customerShare: '50' });
    const audit = await admin.listAudit({ entity: 'qris', limit: 5 });
    expect(audit.find((a) => a.action === 'fee.set')?.after).toMatchObject({ minFee: '500', maxFee: '5000', taxPercentage: '11', customerShare: '50' });
  });

  it('refuses bad settings, every problem at once, and stores nothing', async () => {
    const before = (await admin.listFees('qris')).length;
    const err = await admin.setFee({ channel: 'qris', bands: '*:0.7:0', minFee: '6000', maxFee: '5000.5', taxPercentage: '-1', customerShare: '101' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdminError);
    expect((err as AdminError).problems).toEqual([
      'maxFee: 5000.5 has more decimals than the currency allows (0)',
      'tax: must not be negative',
      'customerShare: must be at most 100 (percent)',
    ]);
    expect((await admin.listFees('qris')).length).toBe(before);
  });
});

describe('the README’s worked example table', () => {
  it('is what the service answers', async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const table = /<!-- readme-test:fee-settings-example -->\n([\s\S]*?)<!-- \/readme-test:fee-settings-example -->/.exec(readme)?.[1] ?? '';
    const rows = table
      .split('\n')
      .filter((l) => /^\| \d/.test(l))
      .map((l) => l.split('|').slice(1, -1).map((c) => Number(c.trim().split(' ')[0])));
    expect(rows).toHaveLength(3);
    for (const [amount, fee, feeTax, customerFee, merchantFee, totalAmount, getBalance] of rows) {
      expect(await restCalc(shop, 'QRIS', amount!)).toMatchObject({ fee, feeTax, customerFee, merchantFee, totalAmount, getBalance });
    }
  });
});

describe('the demo data (contract §10)', () => {
  const micro = () => t.data.seeded!.find((m) => m.category === 'micro')!;

  it('the micro merchant’s OVO: 1.5 %, 11 % tax, the customer pays half', async () => {
    // fee 1,500; tax 165; charges 1,665; customer 832.5 → 833; merchant 832.
    expect(await restCalc(micro(), 'OVO', 100000)).toEqual({ amount: 100000, fee: 1500, additionalFee: 0, totalAmount: 100833, getBalance: 99168, currency: 'IDR', feeTax: 165, customerFee: 833, merchantFee: 832 });
  });

  it('the micro category’s QRIS rule is capped at 5,000', async () => {
    expect(await restCalc(micro(), 'QRIS', 2000000)).toMatchObject({ fee: 5000 }); // 0.3 % = 6,000 → 5,000
    expect(await restCalc(micro(), 'QRIS', 600000)).toMatchObject({ fee: 1800 }); // below the cap
  });
});
