/**
 * The fee calculator (contract §5 "Fee", "Fee bearer"). A pure module: no
 * I/O, no clock, no configuration; the same inputs always give the same
 * result, so table and property tests pin it completely.
 *
 *   fee           = round_half_up(amount × fee_percentage / 100, minorUnits) + fee_value
 *                   then raised to minFee / lowered to maxFee when the rule sets them (contract §10)
 *   additionalFee = round_half_up(amount × additional_fee_percentage / 100, minorUnits) + additional_fee_value
 *   feeTax        = round_half_up((fee + additionalFee) × taxPercentage / 100, minorUnits)   (0 without a tax)
 *   charges C     = fee + additionalFee + feeTax
 *   customerFee   = round_half_up(C × share / 100, minorUnits), merchantFee = C − customerFee
 *   totalAmount   = amount + customerFee, getBalance = amount − merchantFee
 *
 * The share is 100 when the request says chargeFeeToCustomer: true, 0 for false; without it the rule's
 * customerShare, else the channel's bearer (100 or 0). With no tax and a share of 100 or 0 this is exactly
 * the contract's §5 (customer: total = amount + fee + additionalFee; merchant: getBalance = amount − both).
 *
 * Rounding applies to each percentage part separately; the fixed parts and the caps are already exact in
 * the currency's minor unit. Invariants: customerFee + merchantFee = C; totalAmount − getBalance = C.
 */
import type { Big, DecimalString } from '../../../shared/money.js';
import { fixedOf, fixedOfBig, fixedText, percentRoundHalfUp, pow10, unitsAt, type Fixed } from './fixed-point.js';

/** A percentage plus a fixed part, as configured for a channel (after merchant overrides). */
export interface FeeComponent {
  /** Percent of the amount, e.g. "0.7" means 0.7 %. */
  percentage: DecimalString;
  /** Fixed part in the currency's major unit. */
  fixed: DecimalString;
}

/** What a fee rule may set besides its bands (contract §10); null: not set. Canonical decimals. */
export interface FeeSettings {
  /** Lower bound of `fee` (major unit). */
  minFee: DecimalString | null;
  /** Upper bound of `fee` (major unit). */
  maxFee: DecimalString | null;
  /** Tax on fee + additionalFee, in percent ("11" = 11 %). */
  taxPercentage: DecimalString | null;
  /** Percent (0–100) of all charges the customer pays when the request does not say. */
  customerShare: DecimalString | null;
}

/** No settings: every number exactly as §5. */
export const NO_FEE_SETTINGS: FeeSettings = { minFee: null, maxFee: null, taxPercentage: null, customerShare: null };

/** Everything the calculator needs to know about a channel. */
export interface FeeSchedule {
  currency: string;
  /** Decimals of the currency's minor unit (IDR 0 in the demo data, USD 2). */
  minorUnits: number;
  fee: FeeComponent;
  additionalFee: FeeComponent;
  /** Channel default fee bearer (`is_fee_charged_to_customer`). */
  feeChargedToCustomer: boolean;
  /** The rule's caps, tax and split (absent: none). */
  settings?: FeeSettings;
}

/** Which cap decided the fee. */
export type FeeCap = 'MINIMUM' | 'MAXIMUM';

/** One fee part split into what produced it. */
export interface FeePartBreakdown {
  /** The configured rate, in percent ("0.7" = 0.7 %). */
  percentage: DecimalString;
  /** Rounded percentage part. */
  percentagePart: DecimalString;
  /** Fixed part. */
  fixedPart: DecimalString;
  /** percentagePart + fixedPart. */
  total: DecimalString;
}

/** The result, every amount a canonical decimal string in the currency's major unit. */
export interface FeeResult {
  amount: DecimalString;
  fee: DecimalString;
  additionalFee: DecimalString;
  totalAmount: DecimalString;
  getBalance: DecimalString;
  currency: string;
  /** Tax on the fees (0 without a tax). */
  feeTax: DecimalString;
  /** The customer's part of fee + additionalFee + feeTax. */
  customerFee: DecimalString;
  /** The merchant's part: the charges less the customer's part. */
  merchantFee: DecimalString;
  /** True when the customer pays all charges (a share of 100). */
  feeChargedToCustomer: boolean;
  /** Percent of the charges the customer pays, after the request's `chargeFeeToCustomer`. */
  customerShare: DecimalString;
  breakdown: {
    fee: FeePartBreakdown;
    additionalFee: FeePartBreakdown;
    /** The cap that decided `fee` (its band price was outside [minFee, maxFee]), or null. */
    cap: FeeCap | null;
    /** Tax rate applied to the fees, percent ("0" without a tax). */
    taxPercentage: DecimalString;
    minorUnits: number;
    rounding: 'HALF_UP';
  };
}

const HUNDRED: Fixed = { units: 100n, scale: 0 };
const ZERO: Fixed = { units: 0n, scale: 0 };

/**
 * One fee part, in units of 10^-`scale` (`scale` ≥ the currency's decimals and ≥ the fixed part's): the
 * percentage part rounded half-up to `minorUnits` decimals, plus the fixed part. Its texts are made only for
 * the breakdown ({@link partBreakdown}).
 */
interface Part {
  readonly component: FeeComponent;
  readonly percentagePart: bigint;
  readonly fixedPart: bigint;
  readonly value: bigint;
}

function part(amount: Fixed, component: FeeComponent, minorUnits: number, scale: number): Part {
  const percentagePart = percentRoundHalfUp(amount.units, amount.scale, fixedOf(component.percentage), minorUnits) * pow10(scale - minorUnits);
  const fixedPart = unitsAt(fixedOf(component.fixed), scale);
  return { component, percentagePart, fixedPart, value: percentagePart + fixedPart };
}

function partBreakdown(p: Part, scale: number): FeePartBreakdown {
  const rate = fixedOf(p.component.percentage);
  return { percentage: fixedText(rate.units, rate.scale), percentagePart: fixedText(p.percentagePart, scale), fixedPart: fixedText(p.fixedPart, scale), total: fixedText(p.value, scale) };
}

/** What a breakdown is made of (kept by a {@link Calculation} until its breakdown is read). */
interface CalculationParts {
  fee: Part;
  additionalFee: Part;
  scale: number;
  cap: FeeCap | null;
  settings: FeeSettings;
  minorUnits: number;
  extra: unknown;
}

/**
 * A fee result. A class with the breakdown as a getter of its prototype, built when first read: a fee's
 * breakdown is selected far less often than the fee (a live event prices every channel of every page and
 * reads none of it), and an object literal with its own getter cost V8 a slow property definition
 * on every call (most of a calculation's time, measured). Its own enumerable fields are the result's numbers;
 * `breakdown` is read, not enumerated (`{ ...result }` has no breakdown).
 */
class Calculation implements FeeResult {
  #breakdown: FeeResult['breakdown'] | undefined;
  readonly #parts: CalculationParts;

  constructor(
    readonly amount: DecimalString,
    readonly fee: DecimalString,
    readonly additionalFee: DecimalString,
    readonly totalAmount: DecimalString,
    readonly getBalance: DecimalString,
    readonly currency: string,
    readonly feeTax: DecimalString,
    readonly customerFee: DecimalString,
    readonly merchantFee: DecimalString,
    readonly feeChargedToCustomer: boolean,
    readonly customerShare: DecimalString,
    parts: CalculationParts,
  ) {
    this.#parts = parts;
  }

  get breakdown(): FeeResult['breakdown'] {
    if (this.#breakdown === undefined) {
      const { fee, additionalFee, scale, cap, settings, minorUnits, extra } = this.#parts;
      const breakdown: FeeResult['breakdown'] & { pricing?: unknown } = {
        fee: partBreakdown(fee, scale),
        additionalFee: partBreakdown(additionalFee, scale),
        cap,
        taxPercentage: settings.taxPercentage ?? '0',
        minorUnits,
        rounding: 'HALF_UP',
      };
      if (extra !== undefined) breakdown.pricing = extra;
      this.#breakdown = breakdown;
    }
    return this.#breakdown;
  }
}

/**
 * Compute the fee for `amount` (already validated: positive, within the
 * channel limits, at most `minorUnits` decimals).
 *
 * Exact integer arithmetic (fixed-point.ts): every value is counted in units of 10^-scale, where scale covers
 * the currency's decimals and those of the amount, fixed parts and caps, so nothing is rounded but the
 * percentage parts, each to `minorUnits` decimals as the contract says.
 *
 * @param chargeFeeToCustomer the request's choice; `undefined`/`null` means the channel default.
 * @param extra put in the breakdown as `pricing` (the applied rule, pricing.ts priceWithRule).
 */
export function calculateFee(schedule: FeeSchedule, amount: Big, chargeFeeToCustomer?: boolean | null, extra?: unknown): FeeResult {
  const settings = schedule.settings ?? NO_FEE_SETTINGS;
  const mu = schedule.minorUnits;
  const amountFixed = fixedOfBig(amount);
  const minFee = settings.minFee === null ? null : fixedOf(settings.minFee);
  const maxFee = settings.maxFee === null ? null : fixedOf(settings.maxFee);
  const scale = Math.max(mu, amountFixed.scale, fixedOf(schedule.fee.fixed).scale, fixedOf(schedule.additionalFee.fixed).scale, minFee?.scale ?? 0, maxFee?.scale ?? 0);
  const fee = part(amountFixed, schedule.fee, mu, scale);
  const additional = part(amountFixed, schedule.additionalFee, mu, scale);
  let feeValue = fee.value;
  let cap: FeeCap | null = null;
  if (minFee !== null && feeValue < unitsAt(minFee, scale)) {
    feeValue = unitsAt(minFee, scale);
    cap = 'MINIMUM';
  } else if (maxFee !== null && feeValue > unitsAt(maxFee, scale)) {
    feeValue = unitsAt(maxFee, scale);
    cap = 'MAXIMUM';
  }
  const fees = feeValue + additional.value;
  const tax = settings.taxPercentage === null ? 0n : percentRoundHalfUp(fees, scale, fixedOf(settings.taxPercentage), mu) * pow10(scale - mu);
  const charges = fees + tax;
  const share = chargeFeeToCustomer === true || chargeFeeToCustomer === false ? (chargeFeeToCustomer ? HUNDRED : ZERO) : settings.customerShare !== null ? fixedOf(settings.customerShare) : schedule.feeChargedToCustomer ? HUNDRED : ZERO;
  const shareIsAll = share.units === 100n * pow10(share.scale);
  // A share of 100 or 0 needs no multiplication (and no rounding): the §5 path stays as cheap as it was.
  const customerFee = shareIsAll ? charges : share.units === 0n ? 0n : percentRoundHalfUp(charges, scale, share, mu) * pow10(scale - mu);
  const merchantFee = charges - customerFee;
  const amountUnits = unitsAt(amountFixed, scale);
  return new Calculation(
    fixedText(amountFixed.units, amountFixed.scale),
    fixedText(feeValue, scale),
    fixedText(additional.value, scale),
    fixedText(amountUnits + customerFee, scale),
    fixedText(amountUnits - merchantFee, scale),
    schedule.currency,
    fixedText(tax, scale),
    fixedText(customerFee, scale),
    fixedText(merchantFee, scale),
    shareIsAll,
    fixedText(share.units, share.scale),
    { fee, additionalFee: additional, scale, cap, settings, minorUnits: mu, extra },
  );
}
