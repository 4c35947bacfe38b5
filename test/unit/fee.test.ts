import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateFee, type FeeSchedule } from '../../src/modules/pricing/domain/fee.js';
import { Big } from '../../src/shared/money.js';

function schedule(over: Partial<FeeSchedule> & { pct?: string; fixed?: string; addPct?: string; addFixed?: string } = {}): FeeSchedule {
  return {
    currency: over.currency ?? 'IDR',
    minorUnits: over.minorUnits ?? 0,
    fee: { percentage: over.pct ?? '0', fixed: over.fixed ?? '0' },
    additionalFee: { percentage: over.addPct ?? '0', fixed: over.addFixed ?? '0' },
    feeChargedToCustomer: over.feeChargedToCustomer ?? true,
  };
}

describe('calculateFee table (CONTRACT §5)', () => {
  it.each([
    // [description, schedule, amount, chargeToCustomer, fee, additional, total, balance]
    ['contract sample: 0.7 % of 150000', schedule({ pct: '0.7' }), '150000', true, '1050', '0', '151050', '150000'],
    ['0.7 % of 10,000,001 = 70000.007 → 70000', schedule({ pct: '0.7' }), '10000001', true, '70000', '0', '10070001', '10000001'],
    ['half rounds up: 0.7 % of 1500 = 10.5 → 11', schedule({ pct: '0.7' }), '1500', true, '11', '0', '1511', '1500'],
    ['just below half: 0.7 % of 1499 = 10.493 → 10', schedule({ pct: '0.7' }), '1499', true, '10', '0', '1509', '1499'],
    ['1.5 % of 33333 = 499.995 → 500', schedule({ pct: '1.5' }), '33333', false, '500', '0', '33333', '32833'],
    ['fixed only, merchant bears', schedule({ fixed: '4000', feeChargedToCustomer: false }), '100000', null, '4000', '0', '100000', '96000'],
    ['percentage + fixed + additional', schedule({ pct: '2.9', fixed: '2000', addFixed: '1000' }), '250000', true, '9250', '1000', '260250', '250000'],
    ['additional percentage rounded separately', schedule({ pct: '0.5', addPct: '0.5' }), '101', true, '1', '1', '103', '101'],
    ['USD cents: 2.9 % of 10.05 = 0.29145 → 0.29', schedule({ currency: 'USD', minorUnits: 2, pct: '2.9', fixed: '0.3' }), '10.05', true, '0.59', '0', '10.64', '10.05'],
    ['USD half-up at the cent: 1 % of 0.5 = 0.005 → 0.01', schedule({ currency: 'USD', minorUnits: 2, pct: '1' }), '0.5', true, '0.01', '0', '0.51', '0.5'],
    ['binary float trap: 0.1+0.2 style amounts stay exact', schedule({ currency: 'USD', minorUnits: 2, fixed: '0.2' }), '0.1', true, '0.2', '0', '0.3', '0.1'],
  ])('%s', (_d, s, amount, toCustomer, fee, additional, total, balance) => {
    const r = calculateFee(s, new Big(amount), toCustomer);
    expect([r.fee, r.additionalFee, r.totalAmount, r.getBalance]).toEqual([fee, additional, total, balance]);
    expect(r.amount).toBe(new Big(amount).toFixed());
  });

  it('chargeFeeToCustomer null/undefined falls back to the channel default; explicit wins', () => {
    const s = schedule({ fixed: '100', feeChargedToCustomer: false });
    expect(calculateFee(s, new Big(1000)).feeChargedToCustomer).toBe(false);
    expect(calculateFee(s, new Big(1000), null).getBalance).toBe('900');
    expect(calculateFee(s, new Big(1000), true).totalAmount).toBe('1100');
  });
});

describe('calculateFee properties', () => {
  const pct = fc.integer({ min: 0, max: 10_000 }).map((n) => new Big(n).div(1000).toFixed()); // 0..10 %, 3 decimals
  const fixed = fc.integer({ min: 0, max: 1_000_000 }).map(String);
  const amount = fc.integer({ min: 1, max: 1_000_000_000_000 }).map((n) => new Big(n));

  it('fee ≥ 0, totals add up for both bearers, amount echoed', () => {
    fc.assert(
      fc.property(pct, fixed, pct, fixed, amount, fc.boolean(), (p, f, ap, af, a, toCustomer) => {
        const r = calculateFee(schedule({ pct: p, fixed: f, addPct: ap, addFixed: af }), a, toCustomer);
        const fee = new Big(r.fee);
        const add = new Big(r.additionalFee);
        expect(fee.gte(0) && add.gte(0)).toBe(true);
        expect(r.amount).toBe(a.toFixed());
        if (toCustomer) {
          expect(new Big(r.totalAmount).eq(a.plus(fee).plus(add))).toBe(true);
          expect(r.getBalance).toBe(a.toFixed());
        } else {
          expect(r.totalAmount).toBe(a.toFixed());
          expect(new Big(r.getBalance).eq(a.minus(fee).minus(add))).toBe(true);
        }
        // Results are whole minor units (IDR: integers).
        for (const v of [r.fee, r.additionalFee, r.totalAmount, r.getBalance]) expect(v).toMatch(/^-?\d+$/);
      }),
    );
  });

  it('each percentage part is exactly round_half_up(amount × pct / 100) to the minor unit (4-decimal rates, 0 and 2 decimals)', () => {
    const rate = fc.integer({ min: 0, max: 1_000_000 }).map((n) => new Big(n).div(10_000).toFixed()); // 0..100 %, 4 decimals
    const cents = fc.integer({ min: 1, max: 1_000_000_000_000 });
    fc.assert(
      fc.property(rate, rate, cents, fc.constantFrom(0, 2), (p, ap, n, mu) => {
        const a = new Big(n).div(10 ** mu);
        const r = calculateFee(schedule({ pct: p, addPct: ap, minorUnits: mu }), a, true);
        // The reference divides by 100 (the contract's formula as written); the module multiplies by 0.01.
        expect(r.breakdown.fee.percentagePart).toBe(a.times(p).div(100).round(mu, Big.roundHalfUp).toFixed());
        expect(r.breakdown.additionalFee.percentagePart).toBe(a.times(ap).div(100).round(mu, Big.roundHalfUp).toFixed());
      }),
    );
  });

  it('the percentage part is within half a minor unit of the exact value', () => {
    fc.assert(
      fc.property(pct, amount, (p, a) => {
        const r = calculateFee(schedule({ pct: p }), a, true);
        const exact = a.times(p).div(100);
        return new Big(r.fee).minus(exact).abs().lte(0.5);
      }),
    );
  });
});
