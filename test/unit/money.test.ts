/**
 * compareBig and isPositive (src/shared/money.ts) against big.js's own `cmp` and `gt(0)`: the hot path of live
 * events compares amounts with limits and bands without big.js's per-comparison copy, so they must agree with
 * big.js on every value: zeros (and -0), signs, exponents, digit lengths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Big, compareBig, isPositive } from '../../src/shared/money.js';

/** Decimal texts with up to 20 digits, up to 8 decimals, either sign, and exponents (small and large values). */
const decimalText = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: -30, max: 30 }))
  .map(([negative, digits, decimals, exponent]) => `${negative ? '-' : ''}${new Big(digits.toString()).div(new Big(10).pow(decimals)).toFixed()}e${exponent}`);

describe('compareBig', () => {
  it.each([
    ['0', '0', 0],
    ['-0', '0', 0],
    ['0', '-0', 0],
    ['0', '1', -1],
    ['0', '-1', 1],
    ['-1', '0', -1],
    ['1', '0', 1],
    ['150000', '150000', 0],
    ['150000', '150000.0', 0],
    ['10000', '2000000', -1],
    ['2000001', '2000000', 1],
    ['-5', '-4', -1],
    ['-4.5', '-4.50001', 1],
    ['0.1', '0.01', 1],
    ['123.45', '123.4', 1],
    ['123.4', '123.45', -1],
    ['1e13', '9999999999999.99', 1],
  ])('compareBig(%s, %s) = %i', (x, y, expected) => {
    expect(compareBig(new Big(x), new Big(y))).toBe(expected);
    expect(compareBig(new Big(x), new Big(y))).toBe(new Big(x).cmp(new Big(y)));
  });

  it('agrees with big.js cmp on random values', () => {
    fc.assert(
      fc.property(decimalText, decimalText, (x, y) => {
        const a = new Big(x);
        const b = new Big(y);
        expect(compareBig(a, b)).toBe(a.cmp(b));
        expect(compareBig(a, a)).toBe(0);
        expect(compareBig(b, a)).toBe(b.cmp(a));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('isPositive', () => {
  it('agrees with big.js gt(0), zeros and -0 included', () => {
    for (const text of ['0', '-0', '0.000', '1', '-1', '0.01', '-0.01', '150000']) expect(isPositive(new Big(text)), text).toBe(new Big(text).gt(0));
    fc.assert(
      fc.property(decimalText, (x) => {
        expect(isPositive(new Big(x))).toBe(new Big(x).gt(0));
      }),
      { numRuns: 1000 },
    );
  });
});
