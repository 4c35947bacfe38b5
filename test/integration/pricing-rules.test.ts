/**
 * Contract §7 over HTTP, on the engine of TEST_DB: merchant categories,
 * banded rules (REST `fee_tiers`, the band of the amount in `calculate`),
 * precedence merchant → category → channel, flat settings as one-band rules
 * effective now, schedules (listed, then in force at their instant with no
 * write and no restart), cancellation. Changes go through AdminService on
 * the app's own database, as the admin CLI makes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { formatInstant } from '../../src/modules/pricing/domain/pricing.js';
import { AdminError, AdminService } from '../../src/modules/admin/service.js';
import { createTestApp, gql, openReplicaStore, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: AdminService;
let micro: DemoMerchantCredentials;

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'pricing-test' });
  micro = t.data.seeded!.find((m) => m.category === 'micro')!;
});
afterAll(() => t.close());

interface RestChannel {
  code: string;
  fee_info: { fee_percentage: number; fee_value: number };
  fee_tiers?: { up_to: number | null; fee_percentage: number; fee_value: number }[];
}

async function restChannel(as: DemoMerchantCredentials, code: string): Promise<RestChannel> {
  const res = await t.signedFetch('/v1/payments/channel', { as });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: RestChannel[] }).data.find((c) => c.code === code)!;
}

async function restFee(as: DemoMerchantCredentials, method: string, amount: number): Promise<number> {
  const body = JSON.stringify({ amount, currency: 'IDR', method, merchantId: as.merchantId });
  const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body, as });
  const json = (await res.json()) as { fee: number };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.fee;
}

interface GqlRule {
  id: string;
  source: string;
  category: string | null;
  effectiveFrom: string;
  bands: { upTo: number | null; percentage: number; fixed: number }[];
}

const RULE = '{ id source category effectiveFrom bands { upTo percentage fixed } }';

async function gqlChannel(as: DemoMerchantCredentials, code: string): Promise<{ feeRule: GqlRule; scheduledFeeRules: GqlRule[]; fee: { fee: number } }> {
  const res = await gql(t, `query($a: Decimal!) { paymentChannels { code feeRule ${RULE} scheduledFeeRules ${RULE} fee(amount: $a) { fee } } }`, { a: 1000000 }, as);
  const json = (await res.json()) as { data: { paymentChannels: { code: string; feeRule: GqlRule; scheduledFeeRules: GqlRule[]; fee: { fee: number } }[] }; errors?: { path: unknown[] }[] };
  const index = json.data.paymentChannels.findIndex((c) => c.code === code);
  // Other channels may refuse the amount (offline, limits); this one must not.
  expect((json.errors ?? []).filter((e) => e.path[1] === index)).toEqual([]);
  return json.data.paymentChannels[index]!;
}

async function gqlQuote(as: DemoMerchantCredentials, method: string, amount: number) {
  const res = await gql(
    t,
    `query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee breakdown { pricing { ruleId source effectiveFrom bandIndex band { upTo percentage fixed } } } } }`,
    { i: { amount, currency: 'IDR', method } },
    as,
  );
  const json = (await res.json()) as { data: { calculateFee: { fee: number; breakdown: { pricing: { ruleId: string; source: string; bandIndex: number; band: { upTo: number | null; percentage: number } } } } } };
  return json.data.calculateFee;
}

/** Poll (bounded) until `probe` returns true; real time, no assertion on how long it took below `withinMs`. */
async function eventually(probe: () => boolean | Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('demo data: the micro merchant on the banded QRIS category rule', () => {
  it('REST lists the first band in fee_info and every band in fee_tiers; a flat rule has no fee_tiers', async () => {
    const q = await restChannel(micro, 'qris');
    expect(q.fee_info).toMatchObject({ fee_percentage: 0, fee_value: 0 });
    expect(q.fee_tiers).toEqual([
      { up_to: 500000, fee_percentage: 0, fee_value: 0 },
      { up_to: null, fee_percentage: 0.3, fee_value: 0 },
    ]);
    const regular = await restChannel(t.approved, 'qris');
    expect(regular.fee_info).toMatchObject({ fee_percentage: 0.7, fee_value: 0 });
    expect(regular).not.toHaveProperty('fee_tiers');
  });

  it('calculate uses the band of the amount and prices the whole amount (REST, calculateFee, PaymentChannel.fee)', async () => {
    expect(await restFee(micro, 'QRIS', 150000)).toBe(0);
    expect(await restFee(micro, 'QRIS', 500000)).toBe(0); // inclusive bound
    expect(await restFee(micro, 'QRIS', 500001)).toBe(1500); // 0.3 % of the whole 500,001 = 1500.003 → 1500
    expect(await restFee(t.approved, 'QRIS', 150000)).toBe(1050); // the contract's example is unchanged

    const low = await gqlQuote(micro, 'qris', 500000);
    expect(low.fee).toBe(0);
    expect(low.breakdown.pricing).toMatchObject({ source: 'CATEGORY', bandIndex: 0, band: { upTo: 500000, percentage: 0 } });
    const high = await gqlQuote(micro, 'qris', 500001);
    expect(high.breakdown.pricing).toMatchObject({ source: 'CATEGORY', bandIndex: 1, band: { upTo: null, percentage: 0.3 } });
    expect((await gqlChannel(micro, 'qris')).fee.fee).toBe(3000);
  });

  it('GraphQL shows the rule in force with its source, and the scheduled ShopeePay change', async () => {
    const q = await gqlChannel(micro, 'qris');
    expect(q.feeRule).toMatchObject({ source: 'CATEGORY', category: 'micro', bands: [{ upTo: 500000, percentage: 0, fixed: 0 }, { upTo: null, percentage: 0.3, fixed: 0 }] });
    const shopee = await gqlChannel(t.approved, 'shopeepay');
    expect(shopee.feeRule).toMatchObject({ source: 'CHANNEL', bands: [{ upTo: null, percentage: 1.8, fixed: 0 }] });
    expect(shopee.scheduledFeeRules).toHaveLength(1);
    expect(shopee.scheduledFeeRules[0]).toMatchObject({ source: 'CHANNEL', bands: [{ percentage: 1.6 }] });
    expect(Date.parse(shopee.scheduledFeeRules[0]!.effectiveFrom)).toBeGreaterThan(Date.now() + 2 * 86_400_000);
  });
});

describe('precedence: merchant, then category, then channel default', () => {
  it('each more specific rule in force wins; the others keep pricing everyone else', async () => {
    await admin.setFee({ channel: 'dana', bands: '*:1:500' });
    await admin.setFee({ channel: 'dana', category: 'micro', bands: '100000:0.5:0,*:1:0' });
    await t.sync();
    expect(await restFee(t.approved, 'dana', 200000)).toBe(2500); // channel rule: 1 % + 500
    expect(await restFee(micro, 'dana', 200000)).toBe(2000); // category rule, second band
    expect(await restFee(micro, 'dana', 100000)).toBe(500); // first band
    expect((await gqlQuote(micro, 'dana', 100000)).breakdown.pricing.source).toBe('CATEGORY');

    await admin.setFee({ channel: 'dana', merchantId: micro.merchantId, bands: '*:0.1:0' });
    await t.sync();
    expect(await restFee(micro, 'dana', 200000)).toBe(200);
    expect((await gqlQuote(micro, 'dana', 200000)).breakdown.pricing.source).toBe('MERCHANT');
    expect(await restFee(t.approved, 'dana', 200000)).toBe(2500);
  });

  it('a category change moves a merchant to its new category rule (and back)', async () => {
    const m = (await admin.createMerchant({ name: 'Kios Kecil', kycStatus: 'approved', channels: ['dana'] })).id;
    const key = await admin.createKey(m);
    const as = { name: 'Kios Kecil', merchantId: m, apiKey: key.apiKey, apiSecret: key.apiSecret, kyc: 'approved' as const, category: 'regular' };
    await t.sync();
    expect(await restFee(as, 'dana', 200000)).toBe(2500);
    await admin.setCategory(m, 'micro');
    await t.sync();
    expect(await restFee(as, 'dana', 200000)).toBe(2000);
    await admin.setCategory(m, 'regular');
    await t.sync();
    expect(await restFee(as, 'dana', 200000)).toBe(2500);
  });
});

describe('flat settings are one-band rules effective now', () => {
  it('channel update --fee-percentage replaces the CHANNEL rule in force; a merchant override is its MERCHANT rule', async () => {
    await admin.setFee({ channel: 'ovo', bands: '*:2:0' });
    await t.sync();
    expect(await restFee(t.approved, 'ovo', 100000)).toBe(2000);
    await admin.updateChannel('ovo', { feePercentage: '1.1' });
    await t.sync();
    expect(await restFee(t.approved, 'ovo', 100000)).toBe(1100);
    expect((await gqlChannel(t.approved, 'ovo')).feeRule).toMatchObject({ source: 'CHANNEL', id: 'flat:ovo', bands: [{ percentage: 1.1 }] });

    await admin.enableChannel(t.approved.merchantId, 'ovo', { feeValue: '300' });
    await t.sync();
    expect(await restFee(t.approved, 'ovo', 100000)).toBe(1400);
    expect((await gqlQuote(t.approved, 'ovo', 100000)).breakdown.pricing.source).toBe('MERCHANT');
    // "default" clears the override: its implicit rule goes, the channel's applies again.
    await admin.enableChannel(t.approved.merchantId, 'ovo', { feeValue: null });
    await t.sync();
    expect(await restFee(t.approved, 'ovo', 100000)).toBe(1100);
  });
});

describe('schedules', () => {
  it('a rule set for a later instant is listed as scheduled, then applies at that instant with no write and no restart', async () => {
    const before = await restFee(t.approved, 'alfamart', 100000);
    expect(before).toBe(5000);
    const versionBefore = t.store.version();
    let changes = 0;
    const off = t.store.onChange(() => changes++);
    const at = Date.now() + 2500;
    const rule = await admin.setFee({ channel: 'alfamart', bands: '*:0:2500', effectiveFrom: formatInstant(at) });
    expect(rule.state).toBe('scheduled');
    await t.sync();
    const listed = await gqlChannel(t.approved, 'alfamart');
    expect(listed.scheduledFeeRules.map((r) => r.id)).toContain(rule.id);
    expect(await restFee(t.approved, 'alfamart', 100000)).toBe(5000); // still the old rule
    const changesAfterWrite = changes;

    // No write from here on: the server's own timer must switch the price within the contract's second.
    await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
    await eventually(async () => (await restFee(t.approved, 'alfamart', 100000)) === 2500, 1000);
    const gqlNow = await gqlChannel(t.approved, 'alfamart');
    expect(gqlNow.feeRule.id).toBe(rule.id);
    expect(gqlNow.scheduledFeeRules).toEqual([]);
    expect(changes).toBeGreaterThan(changesAfterWrite); // listeners (live subscribers) were told
    expect(t.store.version()).not.toBe(versionBefore);
    off();
  }, 15_000);

  it('every replica switches at the instant by itself: a second store on the same database, never written to after the rule', async () => {
    // Another server process on the same data (SQLite: the same file; Postgres: the same database).
    const replica = await openReplicaStore(t);
    try {
      let told = 0;
      const off = replica.onChange(() => told++);
      const at = Date.now() + 2000;
      const rule = await admin.setFee({ channel: 'bri_va', bands: '*:0:3500', effectiveFrom: formatInstant(at) });
      const price = () => {
        replica.check(); // what a request does first (SQLite catches up here)
        return replica.catalog.findForMerchant(t.approved.merchantId, 'bri_va')!.pricing;
      };
      await eventually(() => price().scheduled.some((r) => r.id === rule.id), 2000);
      expect(price().rule.id).toBe('flat:bri_va');
      const before = told;
      await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
      await eventually(() => price().rule.id === rule.id, 1000);
      expect(told).toBeGreaterThan(before);
      off();
    } finally {
      await replica.close();
    }
  }, 15_000);

  it('a scheduled rule can be cancelled before it starts, never after', async () => {
    const rule = await admin.setFee({ channel: 'indomaret', bands: '*:0:1', effectiveFrom: formatInstant(Date.now() + 3_600_000) });
    await t.sync();
    expect((await gqlChannel(t.approved, 'indomaret')).scheduledFeeRules.map((r) => r.id)).toEqual([rule.id]);
    expect((await admin.cancelFee(rule.id)).state).toBe('cancelled');
    await t.sync();
    expect((await gqlChannel(t.approved, 'indomaret')).scheduledFeeRules).toEqual([]);

    const now = await admin.setFee({ channel: 'indomaret', bands: '*:0:4000' });
    await expect(admin.cancelFee(now.id)).rejects.toThrow(/in force since .* can no longer be cancelled/);
    await expect(admin.cancelFee(rule.id)).rejects.toThrow(/already cancelled/);
    await expect(admin.cancelFee('flat:indomaret')).rejects.toBeInstanceOf(AdminError);
  });

  it('fee list shows what is in force and scheduled, for the channel and for one merchant', async () => {
    // The demo micro rule it takes over from caps the fee at 5000: restated, or the service refuses to drop it.
    const later = await admin.setFee({ channel: 'qris', category: 'micro', bands: '500000:0:0,*:0.25:0', maxFee: '5000', effectiveFrom: formatInstant(Date.now() + 86_400_000) });
    const forMicro = await admin.listFees('qris', micro.merchantId);
    expect(forMicro.map((r) => [r.state, r.scope, r.bandsText])).toEqual([
      ['in-force', 'CATEGORY', '500000:0:0,*:0.3:0'],
      ['scheduled', 'CATEGORY', '500000:0:0,*:0.25:0'],
    ]);
    const all = await admin.listFees('qris');
    expect(all.map((r) => [r.state, r.scope, r.id === later.id])).toEqual([
      ['in-force', 'CHANNEL', false],
      ['in-force', 'CATEGORY', false],
      ['scheduled', 'CATEGORY', true],
    ]);
  });
});

describe('fee set validation', () => {
  it('reports every problem at once; an unknown channel, merchant or unused category is refused clearly', async () => {
    const err = (await admin
      .setFee({ channel: 'nope', merchantId: '00000000-0000-0000-0000-000000000000', bands: '10:x:0,5:1:0', effectiveFrom: '2020-01-01T00:00:00Z' })
      .then(() => null, (e: unknown) => e)) as AdminError;
    expect(err).toBeInstanceOf(AdminError);
    expect(err.problems).toEqual([
      'no channel nope',
      'band 1 "10:x:0": percentage must be a number',
      expect.stringContaining('band 2 "5:1:0": upTo 5 is not above'),
      expect.stringContaining('the last band must be "*:PCT:FIXED"'),
      'no merchant 00000000-0000-0000-0000-000000000000',
      expect.stringContaining('is in the past'),
    ]);
    await expect(admin.setFee({ channel: 'qris', category: 'mikro', bands: '*:0:0' })).rejects.toThrow(/unknown category mikro/);
    await expect(admin.setFee({ channel: 'qris', category: 'Micro', bands: '*:0:0' })).rejects.toThrow(/category: must be/);
    // Explicitly allowed, and `regular` always is.
    expect((await admin.setFee({ channel: 'qris', category: 'mikro', bands: '*:0:0', allowUnusedCategory: true })).scope).toBe('CATEGORY');
    expect((await admin.setFee({ channel: 'bca_va', category: 'regular', bands: '*:0:4000' })).category).toBe('regular');
  });
});
