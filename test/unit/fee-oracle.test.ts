/**
 * The exact integer fee calculator (fixed-point.ts, used on every request and every live event) against the
 * big.js calculator it replaced (test/helpers/fee-oracle.ts): the same FeeResult, every field and the whole
 * breakdown, over random schedules (IDR and cents), amounts up to the 10^13 bound, 4-decimal rates, fixed
 * parts, caps, tax, split shares and every bearer choice. Any difference in rounding, scale or text fails.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calculateFee, type FeeSchedule } from '../../src/modules/pricing/domain/fee.js';
import { fixedOf, fixedOfBig, fixedText } from '../../src/modules/pricing/domain/fixed-point.js';
import { Big, MAX_PARSED_DECIMALS, parseDecimalText, parsedDecimalsKept } from '../../src/shared/money.js';
import { calculateFeeDecimal, plainFee } from '../helpers/fee-oracle.js';

/** A decimal text with at most `decimals` decimals, from 0 to `max`. */
const decimal = (max: number, decimals: number) => fc.bigInt({ min: 0n, max: BigInt(max) * 10n ** BigInt(decimals) }).map((n) => new Big(n.toString()).div(new Big(10).pow(decimals)).toFixed());

const scheduleArb = fc.constantFrom(0, 2).chain((mu) =>
  fc.record({
    mu: fc.constant(mu),
    pct: decimal(100, 4),
    fixed: decimal(100_000, mu),
    addPct: decimal(10, 4),
    addFixed: decimal(10_000, mu),
    minFee: fc.option(decimal(50_000, mu), { nil: null }),
    span: fc.option(decimal(1_000_000, mu), { nil: null }),
    tax: fc.option(decimal(100, 2), { nil: null }),
    share: fc.option(decimal(100, 2), { nil: null }),
    toCustomer: fc.constantFrom(true, false, null, undefined),
    bearer: fc.boolean(),
    // Whole units up to the 10^13 bound of any amount (money.ts), with the currency's decimals.
    amount: fc.bigInt({ min: 1n, max: 10n ** 13n * 10n ** BigInt(mu) }).map((n) => new Big(n.toString()).div(new Big(10).pow(mu))),
  }),
);

function scheduleOf(r: { mu: number; pct: string; fixed: string; addPct: string; addFixed: string; minFee: string | null; span: string | null; tax: string | null; share: string | null; bearer: boolean }): FeeSchedule {
  const maxFee = r.span === null ? null : new Big(r.minFee ?? '0').plus(r.span).toFixed();
  return {
    currency: r.mu === 0 ? 'IDR' : 'USD',
    minorUnits: r.mu,
    fee: { percentage: r.pct, fixed: r.fixed },
    additionalFee: { percentage: r.addPct, fixed: r.addFixed },
    feeChargedToCustomer: r.bearer,
    settings: { minFee: r.minFee, maxFee, taxPercentage: r.tax, customerShare: r.share },
  };
}

describe('the exact integer fee calculator agrees with big.js to the digit', () => {
  it('on random schedules, amounts, caps, tax and shares', () => {
    fc.assert(
      fc.property(scheduleArb, (r) => {
        const schedule = scheduleOf(r);
        expect(plainFee(calculateFee(schedule, r.amount, r.toCustomer))).toEqual(calculateFeeDecimal(schedule, r.amount, r.toCustomer));
      }),
      { numRuns: 3000 },
    );
  });

  it('on the half-way and cap boundaries', () => {
    const cases: [string, string, number][] = [
      ['0.7', '1500', 0], // 10.5 → 11
      ['0.7', '1499', 0],
      ['1', '0.5', 2], // 0.005 → 0.01
      ['2.9', '10.05', 2],
      ['0.0001', '9999999999999', 0],
      ['100', '10000000000000', 0],
      ['33.3333', '3', 0],
    ];
    for (const [pct, amount, mu] of cases) {
      for (const settings of [undefined, { minFee: '11', maxFee: '11', taxPercentage: '11', customerShare: '50' }, { minFee: null, maxFee: null, taxPercentage: '0.5', customerShare: '33.33' }]) {
        const schedule: FeeSchedule = { currency: 'X', minorUnits: mu, fee: { percentage: pct, fixed: '0' }, additionalFee: { percentage: '0.5', fixed: '0' }, feeChargedToCustomer: true, settings };
        expect(plainFee(calculateFee(schedule, new Big(amount)))).toEqual(calculateFeeDecimal(schedule, new Big(amount)));
      }
    }
  });
});

describe('fixed-point', () => {
  it('reads big.js values and decimal texts exactly, and writes canonical text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }), (units, scale) => {
        const text = new Big(units.toString()).div(new Big(10).pow(scale)).toFixed();
        const big = new Big(text);
        const canonical = big.toFixed() === '-0' ? '0' : big.toFixed();
        expect(fixedText(fixedOfBig(big).units, fixedOfBig(big).scale)).toBe(canonical);
        expect(fixedText(fixedOf(text).units, fixedOf(text).scale)).toBe(canonical);
      }),
    );
    expect(fixedOf('1e3')).toEqual({ units: 1000n, scale: 0 });
    expect(() => fixedOf('seven')).toThrow();
  });
});

describe('the decimal parse cache (money.ts)', () => {
  it('keeps at most MAX_PARSED_DECIMALS texts however many distinct amounts clients send, and answers the same values', () => {
    for (let i = 0; i < MAX_PARSED_DECIMALS * 2 + 7; i++) {
      const text = String(1_000_000 + i);
      expect(parseDecimalText(text, 'amount').toFixed()).toBe(text);
      expect(parsedDecimalsKept()).toBeLessThanOrEqual(MAX_PARSED_DECIMALS);
    }
    expect(parseDecimalText('150000', 'amount')).toBe(parseDecimalText('150000', 'amount'));
    // A refused text is never kept.
    expect(() => parseDecimalText('1e99', 'amount')).toThrow();
    expect(() => parseDecimalText('1e99', 'amount')).toThrow();
  });
});
