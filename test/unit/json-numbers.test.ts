/**
 * The request JSON parse keeps every number's exact value (src/shared/json-numbers.ts): a number stays a
 * number when its double has the value its text has, and arrives as its source text otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRawJsonNumber, parseRequestJson } from '../../src/shared/json-numbers.js';
import { Big } from '../../src/shared/money.js';

/** The exact decimal value a parsed number stands for. */
function exactValue(v: unknown): Big {
  if (isRawJsonNumber(v)) return new Big(v.rawJSON);
  if (typeof v === 'number') return new Big(String(v));
  throw new Error(`not a number: ${String(v)}`);
}

/** JSON number texts: up to 30 digits, up to 25 decimals, sometimes an exponent, either sign. */
const numberText = fc
  .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9]\d{0,29})$/), fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }), fc.option(fc.integer({ min: -40, max: 40 }), { nil: undefined }))
  .map(([negative, int, frac, exp]) => `${negative ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `e${exp}`}`);

describe('parseRequestJson', () => {
  it('keeps a number a double would change as its text', () => {
    const body = parseRequestJson('{"amount":149999.99999999999999999999,"n":1e400,"tiny":1e-400}') as Record<string, unknown>;
    expect(isRawJsonNumber(body.amount)).toBe(true);
    expect((body.amount as { rawJSON: string }).rawJSON).toBe('149999.99999999999999999999');
    expect(isRawJsonNumber(body.n) && isRawJsonNumber(body.tiny)).toBe(true);
    // Written back verbatim.
    expect(JSON.stringify(body)).toBe('{"amount":149999.99999999999999999999,"n":1e400,"tiny":1e-400}');
  });

  it('keeps numbers a double holds exactly as numbers, in any spelling', () => {
    expect(parseRequestJson('{"a":150000,"b":0.7,"c":150000.0,"d":1.5e5,"e":-0,"f":[1,2.50],"g":"1234567890123456789e5"}')).toEqual({ a: 150000, b: 0.7, c: 150000, d: 150000, e: -0, f: [1, 2.5], g: '1234567890123456789e5' });
  });

  it('the value of every number is the value of its text (random texts)', () => {
    fc.assert(
      fc.property(numberText, (text) => {
        const parsed = parseRequestJson(`{"amount":${text}}`) as { amount: unknown };
        expect(exactValue(parsed.amount).eq(new Big(text))).toBe(true);
        // The same value a plain parse gives, whenever that one is exact.
        const plain = JSON.parse(text) as number;
        if (Number.isFinite(plain) && new Big(String(plain)).eq(new Big(text))) expect(parsed.amount).toBe(plain);
      }),
      { numRuns: 3000 },
    );
  });

  it('throws like JSON.parse on malformed text', () => {
    expect(() => parseRequestJson('{"amount":1.}')).toThrow(SyntaxError);
    expect(() => parseRequestJson('{"amount":12345678901234567890')).toThrow(SyntaxError);
  });
});
