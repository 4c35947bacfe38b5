/**
 * Contract §10 in the pure calculator: caps after band pricing, tax on the fees, the split of all charges
 * between customer and merchant. The worked example to the rupiah, band edges, and properties over
 * arbitrary amounts, rates and settings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateFee, NO_FEE_SETTINGS, type FeeSchedule, type FeeSettings } from '../../src/modules/pricing/domain/fee.js';
import { parseBands, parseFeeSettings, priceWithRule, type FeeRule } from '../../src/modules/pricing/domain/pricing.js';
import { Big } from '../../src/shared/money.js';

const QRIS_EXAMPLE: FeeSettings = { minFee: '500', maxFee: '5000', taxPercentage: '11', customerShare: '50' };

function schedule(settings: FeeSettings, over: Partial<FeeSchedule> = {}): FeeSchedule {
  return {
    currency: 'IDR',
    minorUnits: 0,
    fee: { percentage: '0.7', fixed: '0' },
    additionalFee: { percentage: '0', fixed: '0' },
    feeChargedToCustomer: true,
    settings,
    ...over,
  };
}

describe('the worked example of contract §10 (QRIS 0.7 %, min 500, max 5000, 11 % tax, customer pays half)', () => {
  it.each([
    // amount, fee, cap, feeTax, customerFee, merchantFee, totalAmount, getBalance
    ['10000', '500', 'MINIMUM', '55', '278', '277', '10278', '9723'],
    ['150000', '1050', null, '116', '583', '583', '150583', '149417'],
    ['1000000', '5000', 'MAXIMUM', '550', '2775', '2775', '1002775', '997225'],
  ])('%s', (amount, fee, cap, feeTax, customerFee, merchantFee, totalAmount, getBalance) => {
    const r = calculateFee(schedule(QRIS_EXAMPLE), new Big(amount));
    expect({ fee: r.fee, cap: r.breakdown.cap, feeTax: r.feeTax, customerFee: r.customerFee, merchantFee: r.merchantFee, totalAmount: r.totalAmount, getBalance: r.getBalance }).toEqual({
      fee,
      cap,
      feeTax,
      customerFee,
      merchantFee,
      totalAmount,
      getBalance,
    });
    expect(r.additionalFee).toBe('0');
    expect(r.customerShare).toBe('50');
  });

  it('the request decides the share when it says: true is 100, false is 0', () => {
    const all = calculateFee(schedule(QRIS_EXAMPLE), new Big('150000'), true);
    expect([all.customerFee, all.merchantFee, all.totalAmount, all.getBalance]).toEqual(['1166', '0', '151166', '150000']);
    const none = calculateFee(schedule(QRIS_EXAMPLE), new Big('150000'), false);
    expect([none.customerFee, none.merchantFee, none.totalAmount, none.getBalance]).toEqual(['0', '1166', '150000', '148834']);
  });

  it('caps apply at their edges and to the fee only, never to the additional fee', () => {
    const s = schedule({ ...NO_FEE_SETTINGS, minFee: '500', maxFee: '5000' }, { additionalFee: { percentage: '0', fixed: '9000' } });
    // 0.7 % of 71,429 = 500.003 → 500: exactly the minimum, no cap applied.
    expect(calculateFee(s, new Big('71429')).breakdown.cap).toBeNull();
    expect(calculateFee(s, new Big('71428')).breakdown.cap).toBeNull(); // 499.996 → 500 after rounding
    expect(calculateFee(s, new Big('71000')).fee).toBe('500'); // 497 → raised to 500
    expect(calculateFee(s, new Big('714285')).fee).toBe('5000'); // 4999.995 → 5000, at the maximum
    expect(calculateFee(s, new Big('720000')).breakdown.cap).toBe('MAXIMUM'); // 5040 → lowered to 5000
    expect(calculateFee(s, new Big('720000')).additionalFee).toBe('9000');
  });

  it('a banded rule prices the band, then caps, taxes and splits', () => {
    const bands = parseBands('500000:0:0,*:0.3:0', 0);
    if (!bands.ok) throw new Error(bands.problems.join('; '));
    const rule: FeeRule = { id: 'r', channelCode: 'qris', scope: 'MERCHANT', merchantId: 'm', bands: bands.value, effectiveFrom: '2026-01-01T00:00:00.000Z', createdAt: '2026-01-01T00:00:00.000Z', settings: { minFee: '100', maxFee: null, taxPercentage: '11', customerShare: '100' } };
    const channel = { currency: 'IDR', minorUnits: 0, additionalFee: { percentage: '0', fixed: '0' }, feeChargedToCustomer: false };
    const small = priceWithRule(rule, channel, new Big('400000'));
    expect([small.fee, small.breakdown.cap, small.feeTax, small.customerFee, small.totalAmount]).toEqual(['100', 'MINIMUM', '11', '111', '400111']);
    expect(small.breakdown.pricing.bandIndex).toBe(0);
  });
});

describe('properties over arbitrary payments and settings', () => {
  const decimal = (max: number, decimals: number) => fc.integer({ min: 0, max: max * 10 ** decimals }).map((n) => new Big(n).div(10 ** decimals).toFixed());
  const arbitrary = fc.record({
    amount: fc.integer({ min: 1, max: 100_000_000 }).map(String),
    pct: decimal(10, 2),
    fixed: fc.integer({ min: 0, max: 10_000 }).map(String),
    addPct: decimal(5, 2),
    addFixed: fc.integer({ min: 0, max: 5_000 }).map(String),
    min: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }),
    span: fc.integer({ min: 0, max: 100_000 }),
    withMax: fc.boolean(),
    tax: fc.option(decimal(100, 2), { nil: null }),
    share: fc.option(decimal(100, 2), { nil: null }),
    bearer: fc.boolean(),
    request: fc.constantFrom(true, false, null),
  });

  it('customer and merchant parts add up to the charges; total − balance = the charges; caps hold', () => {
    fc.assert(
      fc.property(arbitrary, (a) => {
        const settings: FeeSettings = {
          minFee: a.min === null ? null : String(a.min),
          maxFee: a.withMax ? String((a.min ?? 0) + a.span) : null,
          taxPercentage: a.tax,
          customerShare: a.share,
        };
        const r = calculateFee(schedule(settings, { fee: { percentage: a.pct, fixed: a.fixed }, additionalFee: { percentage: a.addPct, fixed: a.addFixed }, feeChargedToCustomer: a.bearer }), new Big(a.amount), a.request);
        const charges = new Big(r.fee).plus(r.additionalFee).plus(r.feeTax);
        expect(new Big(r.customerFee).plus(r.merchantFee).eq(charges)).toBe(true);
        expect(new Big(r.totalAmount).minus(r.getBalance).eq(charges)).toBe(true);
        if (settings.minFee !== null) expect(new Big(r.fee).gte(settings.minFee)).toBe(true);
        if (settings.maxFee !== null) expect(new Big(r.fee).lte(settings.maxFee)).toBe(true);
        expect(new Big(r.customerFee).gte(0) && new Big(r.merchantFee).gte(0)).toBe(true);
        for (const v of [r.fee, r.feeTax, r.customerFee, r.merchantFee]) expect(new Big(v).round(0).eq(v)).toBe(true); // IDR: whole rupiah
      }),
      { numRuns: 500 },
    );
  });

  it('with no tax and no caps, a share of 100 or 0 gives exactly the §5 numbers', () => {
    fc.assert(
      fc.property(arbitrary, fc.constantFrom('100', '0'), (a, share) => {
        const base = schedule(NO_FEE_SETTINGS, { fee: { percentage: a.pct, fixed: a.fixed }, additionalFee: { percentage: a.addPct, fixed: a.addFixed }, feeChargedToCustomer: share === '100' });
        const plain = calculateFee({ ...base, settings: undefined }, new Big(a.amount));
        const split = calculateFee({ ...base, feeChargedToCustomer: !base.feeChargedToCustomer, settings: { ...NO_FEE_SETTINGS, customerShare: share } }, new Big(a.amount));
        expect([split.fee, split.additionalFee, split.totalAmount, split.getBalance, split.feeTax]).toEqual([plain.fee, plain.additionalFee, plain.totalAmount, plain.getBalance, '0']);
        const fees = new Big(plain.fee).plus(plain.additionalFee);
        if (share === '100') expect([plain.totalAmount, plain.getBalance]).toEqual([new Big(a.amount).plus(fees).toFixed(), a.amount]);
        else expect([plain.totalAmount, plain.getBalance]).toEqual([a.amount, new Big(a.amount).minus(fees).toFixed()]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseFeeSettings', () => {
  it('accepts the worked example and leaves what is not given unset', () => {
    expect(parseFeeSettings({ minFee: '500', maxFee: 5000, taxPercentage: '11', customerShare: '50' }, 0)).toEqual({ ok: true, value: QRIS_EXAMPLE });
    expect(parseFeeSettings({}, 0)).toEqual({ ok: true, value: NO_FEE_SETTINGS });
  });

  it('reports every problem at once', () => {
    const r = parseFeeSettings({ minFee: '-1', maxFee: '10.5', taxPercentage: '101', customerShare: '150' }, 0);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(4);
    expect(r.problems.join('\n')).toMatch(/minFee: must not be negative/);
    expect(r.problems.join('\n')).toMatch(/maxFee: 10\.5 has more decimals than the currency allows \(0\)/);
    expect(r.problems.join('\n')).toMatch(/tax: must be at most 100/);
    expect(r.problems.join('\n')).toMatch(/customerShare: must be at most 100/);
    const order = parseFeeSettings({ minFee: '6000', maxFee: '5000' }, 0);
    expect(order).toEqual({ ok: false, problems: ['minFee 6000 is above maxFee 5000'] });
  });
});
