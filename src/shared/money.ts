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

/** Parse a decimal from text (JSON/GraphQL literal form). Throws INVALID_REQUEST naming `field`. */
export function parseDecimalText(text: string, field: string): Big {
  if (!DECIMAL_TEXT.test(text)) throw invalidRequest(field, `${field} must be a number`);
  const value = new Big(text);
  if (value.abs().gt(MAX_ABS_AMOUNT)) throw invalidRequest(field, `${field} must not exceed ${MAX_ABS_AMOUNT.toFixed()} in magnitude`);
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
export function scaleOf(value: Big): number {
  return Math.max(0, value.c.length - value.e - 1);
}

/** Round half-up (away from zero on a tie, which equals half-up for the non-negative values here) to `dp` decimals. */
export function roundHalfUp(value: Big, dp: number): Big {
  return value.round(dp, Big.roundHalfUp);
}

export { Big };
