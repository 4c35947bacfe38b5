/**
 * Exact fixed-point decimals for the fee calculator's hot path (contract §5 "Money": exact, never binary
 * floating point): a decimal is an integer count of 10^-scale units, held in a BigInt.
 *
 * Why not big.js here: a live update prices every channel for every open checkout page, each with its own
 * amount (contract §8b), and big.js spent about a third of such an event's CPU on digit arrays (12 fee
 * calculations a page, ~10 µs each). The same arithmetic on BigInt integers is a few multiplications and one
 * division per rounded part. The results are the same to the digit: test/unit/fee-oracle.test.ts compares
 * them with the big.js calculator (kept as the test oracle) over random schedules, amounts and settings.
 *
 * Invariants: `units` and `scale` describe the value exactly (units × 10^-scale); `scale` ≥ 0; every
 * function returns exact results except {@link percentRoundHalfUp}, which rounds half away from zero (big.js's
 * ROUND_HALF_UP, the contract's half-up for the non-negative values fees are) to the requested decimals.
 */
import { Big } from '../../../shared/money.js';

/** A decimal value: `units` × 10^-`scale`. */
export interface Fixed {
  readonly units: bigint;
  readonly scale: number;
}

const POW10: bigint[] = [];
/** 10^n as a BigInt (n ≥ 0), from a table that grows as needed. */
export function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push(i === 0 ? 1n : POW10[i - 1]! * 10n);
  return POW10[n]!;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
/**
 * Parsed decimal texts. The texts are the few distinct rates, fixed parts and caps of the catalogue's rules
 * (never a client's amount, which comes as a Big), so the cache stays small; it is bounded all the same: when
 * it holds {@link MAX_PARSED} texts it is cleared and fills again.
 */
const parsed = new Map<string, Fixed>();
const MAX_PARSED = 4096;

/** A decimal text (canonically a `DecimalString`: digits, optional sign and fraction, no exponent) as a Fixed. */
export function fixedOf(text: string): Fixed {
  let value = parsed.get(text);
  if (value !== undefined) return value;
  const m = DECIMAL.exec(text);
  if (m === null) {
    // Not the plain form (an exponent, a leading "+"): big.js reads it (or throws for what is no number).
    value = fixedOfBig(new Big(text));
  } else {
    const fraction = m[3] ?? '';
    const magnitude = BigInt(m[2]! + fraction);
    value = { units: m[1] === '-' ? -magnitude : magnitude, scale: fraction.length };
  }
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(text, value);
  return value;
}

/**
 * The last value converted and its Fixed: a live event prices every channel of a checkout page with the page's
 * one amount (the same Big, from the parse cache), so eleven of twelve conversions are this. Big values are
 * never modified (money.ts), and a Fixed handed out is never modified either.
 */
let lastBig: Big | undefined;
let lastFixed: Fixed | undefined;

/** A big.js value as a Fixed, from its digits (no text round trip). */
export function fixedOfBig(value: Big): Fixed {
  if (value === lastBig) return lastFixed!;
  const fixed = convertBig(value);
  lastBig = value;
  lastFixed = fixed;
  return fixed;
}

function convertBig(value: Big): Fixed {
  // big.js: value = ±0.d1d2…dn × 10^(e+1), digits `c` (most significant first), exponent `e`, sign `s`.
  const digits = value.c;
  let magnitude = 0n;
  if (digits.length <= 15) {
    // Up to 15 digits fit a double exactly: one BigInt conversion instead of one per digit.
    let n = 0;
    for (const d of digits) n = n * 10 + d;
    magnitude = BigInt(n);
  } else {
    for (const d of digits) magnitude = magnitude * 10n + BigInt(d);
  }
  const scale = digits.length - value.e - 1;
  const units = value.s < 0 ? -magnitude : magnitude;
  return scale >= 0 ? { units, scale } : { units: units * pow10(-scale), scale: 0 };
}

/** `value` in units of 10^-`scale` (exact: `scale` must be ≥ the value's own scale). */
export function unitsAt(value: Fixed, scale: number): bigint {
  if (scale < value.scale) throw new Error(`fixed-point: ${value.scale} decimals do not fit ${scale}`);
  return scale === value.scale ? value.units : value.units * pow10(scale - value.scale);
}

/**
 * round_half_up(a × b / 100) to `decimals` decimals, as units of 10^-`decimals`: `a` is a value in units of
 * 10^-`aScale`, `b` a percentage. Half away from zero (half-up for the non-negative values of a fee).
 */
export function percentRoundHalfUp(a: bigint, aScale: number, b: Fixed, decimals: number): bigint {
  const product = a * b.units;
  // product × 10^-(aScale + b.scale) / 100, expressed in units of 10^-decimals: divide by 10^shift.
  const shift = aScale + b.scale + 2 - decimals;
  if (shift <= 0) return product * pow10(-shift);
  const divisor = pow10(shift);
  const half = divisor / 2n;
  return product >= 0n ? (product + half) / divisor : -((-product + half) / divisor);
}

/** The canonical decimal text (DecimalString: no exponent, no trailing zeros, no "-0") of units × 10^-scale. */
export function fixedText(units: bigint, scale: number): string {
  if (units === 0n) return '0';
  if (scale === 0) return units.toString();
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}
