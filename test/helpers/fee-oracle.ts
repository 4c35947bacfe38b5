/**
 * The fee calculator as it was written in big.js decimals (before it moved to BigInt fixed point,
 * src/modules/pricing/domain/fixed-point.ts): kept as the oracle the exact integer calculator must agree
 * with to the digit (test/unit/fee-oracle.test.ts). Not used by the product.
 */
import { NO_FEE_SETTINGS, type FeeCap, type FeeComponent, type FeePartBreakdown, type FeeResult, type FeeSchedule } from '../../src/modules/pricing/domain/fee.js';
import { Big, roundHalfUp, toDecimalString } from '../../src/shared/money.js';

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
export function calculateFeeDecimal(schedule: FeeSchedule, amount: Big, chargeFeeToCustomer?: boolean | null): FeeResult {
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

/**
 * A fee result as a plain object with its breakdown: the calculator's breakdown is a getter of its prototype,
 * built when read (fee.ts `Calculation`), so deep equality needs it read first.
 */
export function plainFee(result: FeeResult): FeeResult {
  return { ...result, breakdown: result.breakdown };
}
