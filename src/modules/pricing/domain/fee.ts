/**
 * The fee calculator (contract §5 "Fee", "Fee bearer"). A pure module: no
 * I/O, no clock, no configuration; the same inputs always give the same
 * result, so table and property tests pin it completely.
 *
 *   fee           = round_half_up(amount × fee_percentage / 100, minorUnits) + fee_value
 *   additionalFee = round_half_up(amount × additional_fee_percentage / 100, minorUnits) + additional_fee_value
 *   bearer = customer: totalAmount = amount + fee + additionalFee, getBalance = amount
 *   bearer = merchant: totalAmount = amount,                       getBalance = amount − fee − additionalFee
 *
 * Rounding applies to each percentage part separately; the fixed parts are
 * already exact in the currency's minor unit.
 */
import { Big, roundHalfUp, toDecimalString, type DecimalString } from '../../../shared/money.js';

/** A percentage plus a fixed part, as configured for a channel (after merchant overrides). */
export interface FeeComponent {
  /** Percent of the amount, e.g. "0.7" means 0.7 %. */
  percentage: DecimalString;
  /** Fixed part in the currency's major unit. */
  fixed: DecimalString;
}

/** Everything the calculator needs to know about a channel. */
export interface FeeSchedule {
  currency: string;
  /** Decimals of the currency's minor unit (IDR 0 in the demo data, USD 2). */
  minorUnits: number;
  fee: FeeComponent;
  additionalFee: FeeComponent;
  /** Channel default fee bearer (`is_fee_charged_to_customer`). */
  feeChargedToCustomer: boolean;
}

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
  /** Who bears the fee after applying the request's `chargeFeeToCustomer`. */
  feeChargedToCustomer: boolean;
  breakdown: { fee: FeePartBreakdown; additionalFee: FeePartBreakdown; minorUnits: number; rounding: 'HALF_UP' };
}

/**
 * "/ 100" as an exact multiplication: big.js's `div` runs a long division (to Big.DP places) and cost twice
 * the multiplication, while × 0.01 is exact for any decimal and gives the same value.
 */
const PERCENT = new Big('0.01');

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
  const bearerIsCustomer = chargeFeeToCustomer ?? schedule.feeChargedToCustomer;
  const fee = part(amount, schedule.fee, schedule.minorUnits);
  const additional = part(amount, schedule.additionalFee, schedule.minorUnits);
  const charges = fee.value.plus(additional.value);
  const totalAmount = bearerIsCustomer ? amount.plus(charges) : amount;
  const getBalance = bearerIsCustomer ? amount : amount.minus(charges);
  return {
    amount: toDecimalString(amount),
    fee: toDecimalString(fee.value),
    additionalFee: toDecimalString(additional.value),
    totalAmount: toDecimalString(totalAmount),
    getBalance: toDecimalString(getBalance),
    currency: schedule.currency,
    feeChargedToCustomer: bearerIsCustomer,
    breakdown: { fee: fee.breakdown, additionalFee: additional.breakdown, minorUnits: schedule.minorUnits, rounding: 'HALF_UP' },
  };
}
