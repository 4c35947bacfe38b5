/**
 * Exact decimal money (contract §5 "Money").
 *
 * Amounts travel through the service as canonical decimal strings
 * ({@link DecimalString}, e.g. "150000", "0.7") and are computed with big.js,
 * never with binary floating point. They become JSON numbers only at the
 * edge (GraphQL scalar serialisation), where every value has at most 15
 * significant digits and therefore round-trips exactly through a double.
 */
import Big from 'big.js';
import { invalidRequest } from './errors.js';

/** A finite decimal number in canonical form: no exponent, no trailing zeros, no "-0". */
export type DecimalString = string;

/**
 * Largest magnitude accepted for any amount. Beyond 10^13 a double cannot
 * carry two decimals exactly, so JSON could not express the value faithfully.
 */
export const MAX_ABS_AMOUNT = new Big('1e13');

const DECIMAL_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Decimals parsed from text, by text. The same few texts are parsed over and over on the hot path: a
 * channel's limits and a band's bound for every priced channel, a checkout page's own amount once per channel
 * of every live event (a tenth of an event's CPU was big.js parsing the same strings). The values are
 * shared, so nobody may modify a Big it was given (big.js's methods never modify their operands).
 * Bound: {@link MAX_PARSED_DECIMALS} texts (client amounts included); when full it is cleared and fills again.
 */
const parsedDecimals = new Map<string, Big>();
export const MAX_PARSED_DECIMALS = 4096;

/** Texts currently kept by the parse cache (tests of its bound). */
export function parsedDecimalsKept(): number {
  return parsedDecimals.size;
}

/** Parse a decimal from text (JSON/GraphQL literal form). Throws INVALID_REQUEST naming `field`. */
export function parseDecimalText(text: string, field: string): Big {
  const kept = parsedDecimals.get(text);
  if (kept !== undefined) return kept;
  if (!DECIMAL_TEXT.test(text)) throw invalidRequest(field, `${field} must be a number`);
  const value = new Big(text);
  if (value.abs().gt(MAX_ABS_AMOUNT)) throw invalidRequest(field, `${field} must not exceed ${MAX_ABS_AMOUNT.toFixed()} in magnitude`);
  if (parsedDecimals.size >= MAX_PARSED_DECIMALS) parsedDecimals.clear();
  parsedDecimals.set(text, value);
  return value;
}

/**
 * Parse a JSON-decoded number. `String(n)` is the shortest text that reads
 * back as `n`, i.e. exactly what the client wrote for any value with at most
 * 15 significant digits.
 */
export function parseDecimalNumber(value: unknown, field: string): Big {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidRequest(field, `${field} must be a finite JSON number`);
  return parseDecimalText(String(value), field);
}

/** Canonical text of a decimal ("-0" becomes "0"). */
export function toDecimalString(value: Big): DecimalString {
  const text = value.toFixed();
  return text === '-0' ? '0' : text;
}

/** Number of digits after the decimal point (0 for integers). */
/**
 * `x.cmp(y)` (-1, 0, 1) without its allocation: big.js's comparisons construct a new Big of their argument
 * every time (a copy of its digits, or a parse of a number), and a live event compares every page's amount
 * with every channel's limits. Read from big.js's documented value fields: digits `c` (most
 * significant first, no leading zeros; `[0]` for zero), exponent `e`, sign `s`. test/unit/money.test.ts
 * checks it against big.js's own `cmp`.
 */
export function compareBig(x: Big, y: Big): -1 | 0 | 1 {
  const xc = x.c;
  const yc = y.c;
  const xZero = xc[0] === 0;
  const yZero = yc[0] === 0;
  if (xZero || yZero) {
    if (xZero && yZero) return 0;
    return xZero ? (y.s < 0 ? 1 : -1) : x.s < 0 ? -1 : 1;
  }
  if (x.s !== y.s) return x.s < 0 ? -1 : 1;
  const flip = x.s < 0 ? -1 : 1;
  if (x.e !== y.e) return x.e > y.e ? flip : (-flip as -1 | 1);
  const n = Math.max(xc.length, yc.length);
  for (let i = 0; i < n; i++) {
    const a = xc[i] ?? 0;
    const b = yc[i] ?? 0;
    if (a !== b) return a > b ? flip : (-flip as -1 | 1);
  }
  return 0;
}

/** `value.gt(0)` without an allocation (see {@link compareBig}). */
export function isPositive(value: Big): boolean {
  return value.s > 0 && value.c[0] !== 0;
}

export function scaleOf(value: Big): number {
  return Math.max(0, value.c.length - value.e - 1);
}

/** Round half-up (away from zero on a tie, which equals half-up for the non-negative values here) to `dp` decimals. */
export function roundHalfUp(value: Big, dp: number): Big {
  return value.round(dp, Big.roundHalfUp);
}

export { Big };
