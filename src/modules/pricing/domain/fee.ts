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
import { Big, roundHalfUp, toDecimalString, type DecimalString } from '../../../shared/money.js';

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

/**
 * "/ 100" as an exact multiplication: big.js's `div` runs a long division (to Big.DP places) and cost twice
 * the multiplication, while × 0.01 is exact for any decimal and gives the same value.
 */
const PERCENT = new Big('0.01');
const ZERO = new Big(0);
const HUNDRED = new Big(100);

function part(amount: Big, component: FeeComponent, minorUnits: number): { value: Big; breakdown: FeePartBreakdown } {
  const percentagePart = roundHalfUp(amount.times(component.percentage).times(PERCENT), minorUnits);
  const fixedPart = new Big(component.fixed);
  const value = percentagePart.plus(fixedPart);
  return {
    value,
    breakdown: { percentage: toDecimalString(new Big(component.percentage)), percentagePart: toDecimalString(percentagePart), fixedPart: toDecimalString(fixedPart), total: toDecimalString(value) },
  };
}

/**
 * Compute the fee for `amount` (already validated: positive, within the
 * channel limits, at most `minorUnits` decimals).
 *
 * @param chargeFeeToCustomer the request's choice; `undefined`/`null` means the channel default.
 */
export function calculateFee(schedule: FeeSchedule, amount: Big, chargeFeeToCustomer?: boolean | null): FeeResult {
  const settings = schedule.settings ?? NO_FEE_SETTINGS;
  const mu = schedule.minorUnits;
  const fee = part(amount, schedule.fee, mu);
  const additional = part(amount, schedule.additionalFee, mu);
  let feeValue = fee.value;
  let cap: FeeCap | null = null;
  if (settings.minFee !== null && feeValue.lt(settings.minFee)) {
    feeValue = new Big(settings.minFee);
    cap = 'MINIMUM';
  } else if (settings.maxFee !== null && feeValue.gt(settings.maxFee)) {
    feeValue = new Big(settings.maxFee);
    cap = 'MAXIMUM';
  }
  const fees = feeValue.plus(additional.value);
  const tax = settings.taxPercentage === null ? ZERO : roundHalfUp(fees.times(settings.taxPercentage).times(PERCENT), mu);
  const charges = fees.plus(tax);
  const share = chargeFeeToCustomer === true || chargeFeeToCustomer === false ? (chargeFeeToCustomer ? HUNDRED : ZERO) : settings.customerShare !== null ? new Big(settings.customerShare) : schedule.feeChargedToCustomer ? HUNDRED : ZERO;
  // A share of 100 or 0 needs no multiplication (and no rounding): the §5 path stays as cheap as it was.
  const customerFee = share.eq(HUNDRED) ? charges : share.eq(ZERO) ? ZERO : roundHalfUp(charges.times(share).times(PERCENT), mu);
  const merchantFee = charges.minus(customerFee);
  return {
    amount: toDecimalString(amount),
    fee: toDecimalString(feeValue),
    additionalFee: toDecimalString(additional.value),
    totalAmount: toDecimalString(amount.plus(customerFee)),
    getBalance: toDecimalString(amount.minus(merchantFee)),
    currency: schedule.currency,
    feeTax: toDecimalString(tax),
    customerFee: toDecimalString(customerFee),
    merchantFee: toDecimalString(merchantFee),
    feeChargedToCustomer: share.eq(HUNDRED),
    customerShare: toDecimalString(share),
    breakdown: {
      fee: fee.breakdown,
      additionalFee: additional.breakdown,
      cap,
      taxPercentage: settings.taxPercentage ?? '0',
      minorUnits: mu,
      rounding: 'HALF_UP',
    },
  };
}
