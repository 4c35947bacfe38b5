/**
 * Fee quotes (contract §5, §7): validation, channel gating and limits around
 * the pure calculator, priced with the band of the rule in force
 * (src/modules/pricing/domain/pricing.ts). Check order: merchant scope → input
 * values → channel enabled → KYC → status → currency → precision → limits.
 */
import { AppError, invalidRequest } from '../../shared/errors.js';
import { priceWithRule, type PricedFee } from './domain/pricing.js';
import { Big, isPositive, parseDecimalText } from '../../shared/money.js';
import type { Principal } from '../auth/principal.js';
import { channelPricingOf, type ChannelService, type ListedChannel } from '../channels/service.js';
import type { MerchantChannel } from '../catalogue/records.js';
import { unavailabilityReasons, type UnavailabilityReason } from '../channels/eligibility.js';
import type { CustomerTotal } from '../channels/instructions.js';

/** A fee request, as both surfaces deliver it after type coercion. */
export interface FeeQuoteInput {
  /** Canonical decimal text (from the Decimal scalar). */
  amount: string;
  currency: string;
  method: string;
  merchantId?: string | null;
  chargeFeeToCustomer?: boolean | null;
}

/** A priced fee with the channel that priced it (GraphQL `FeeCalculation`; a quote states the channel code). */
export type FeeCalculationModel = PricedFee & { method: string };

const CURRENCY = /^[A-Za-z]{3}$/;

/** A channel status in a sentence ("is under maintenance", not "is maintenance"). */
const STATUS_WORDS: Record<MerchantChannel['status'], string> = { active: 'active', offline: 'offline', maintenance: 'under maintenance' };

/**
 * The CHANNEL_UNAVAILABLE error of an offline or maintenance channel: one per channel code and status (a
 * bounded map: the catalogue's channels, two statuses each), the same for every price asked of that channel.
 * A live event asks one of every unavailable channel of every open checkout page. Frozen: an
 * error is a value, shared by the answers that carry it (they wrap it, never change it).
 */
const unavailableErrors = new Map<string, Map<MerchantChannel['status'], AppError>>();
function unavailableError(channel: MerchantChannel): AppError {
  let byStatus = unavailableErrors.get(channel.code);
  if (byStatus === undefined) unavailableErrors.set(channel.code, (byStatus = new Map<MerchantChannel['status'], AppError>()));
  let error = byStatus.get(channel.status);
  if (error === undefined) {
    error = Object.freeze(new AppError('CHANNEL_UNAVAILABLE', `Channel "${channel.code}" is ${STATUS_WORDS[channel.status]}.`, { channelStatus: channel.status }));
    byStatus.set(channel.status, error);
  }
  return error;
}

/** Most codes a CHANNEL_NOT_FOUND message lists (a merchant may have many channels). */
const MAX_LISTED_CODES = 20;

/** "Enabled: qris, bca_va." — the codes `method` may name, so a typo is fixed without a second look-up. */
export function enabledList(codes: string[]): string {
  if (codes.length === 0) return 'No channel is enabled for it.';
  const shown = codes.slice(0, MAX_LISTED_CODES).join(', ');
  return `Enabled: ${shown}${codes.length > MAX_LISTED_CODES ? `, … (${codes.length - MAX_LISTED_CODES} more)` : ''}.`;
}
const MAX_METHOD_LENGTH = 64;

/** Throw MERCHANT_MISMATCH unless `merchantId` is absent or the caller's own. */
export function assertMerchantScope(principal: Principal, merchantId: string | null | undefined): void {
  if (merchantId != null && merchantId !== principal.merchantId) {
    throw new AppError('MERCHANT_MISMATCH', 'merchantId is not the merchant of the API key used.', { field: 'merchantId' });
  }
}

/** A checkout session prices its own amount and currency only (contract §9): anything else is SESSION_SCOPE. */
function assertSessionAmount(principal: Principal, amountText: string, currency: string): void {
  const session = principal.session!;
  // Both are canonical decimal texts: equal texts are equal amounts (the usual case, no decimal arithmetic).
  if (amountText !== session.amount && !parseDecimalText(amountText, 'amount').eq(session.amountValue)) {
    throw new AppError('SESSION_SCOPE', `This checkout session prices ${session.amount} ${session.currency} only.`, { field: 'amount' });
  }
  if (currency !== session.currency && currency.toUpperCase() !== session.currency) {
    throw new AppError('SESSION_SCOPE', `This checkout session prices ${session.currency} only.`, { field: 'currency' });
  }
}

export class FeeService {
  constructor(private readonly channels: ChannelService) {}

  quote(principal: Principal, input: FeeQuoteInput): FeeCalculationModel {
    assertMerchantScope(principal, input.merchantId);
    if (principal.session) {
      assertSessionAmount(principal, input.amount, input.currency);
      if (!principal.session.methods.includes(input.method.trim().toLowerCase())) {
        throw new AppError('SESSION_SCOPE', 'This checkout session does not include that method.', { field: 'method' });
      }
    }

    if (!CURRENCY.test(input.currency)) throw invalidRequest('currency', 'currency must be a three-letter ISO 4217 code, e.g. "IDR".');
    const currency = input.currency.toUpperCase();
    const method = input.method.trim();
    if (method === '' || method.length > MAX_METHOD_LENGTH) throw invalidRequest('method', `method must be a channel code of 1 to ${MAX_METHOD_LENGTH} characters.`);
    const amount = parseDecimalText(input.amount, 'amount');
    if (!isPositive(amount)) throw invalidRequest('amount', 'amount must be greater than 0.');

    const channel = this.channels.findForMerchant(principal, method);
    if (!channel) throw new AppError('CHANNEL_NOT_FOUND', `No channel "${method}" is enabled for this merchant. ${enabledList(this.channels.enabledCodes(principal))}`, { field: 'method' });
    return this.price(principal, channel, amount, currency, input.chargeFeeToCustomer);
  }

  /**
   * The fee of `amount` on one listed channel, in the channel's currency
   * (GraphQL `PaymentChannel.fee`): the same checks and calculator as
   * {@link quote}, minus the lookup.
   */
  quoteForChannel(principal: Principal, channel: ListedChannel, amountText: string, chargeFeeToCustomer?: boolean | null): FeeCalculationModel {
    if (principal.session) assertSessionAmount(principal, amountText, channel.currency);
    // Asserted equal to the session's amount, which is parsed once per principal.
    const amount = principal.session ? principal.session.amountValue : parseDecimalText(amountText, 'amount');
    if (!isPositive(amount)) throw invalidRequest('amount', 'amount must be greater than 0.');
    // A checkout session's list judged each channel for exactly this payment (the session's amount, asserted
    // above, in the session's currency, which is the channel's) with this principal: its reasons are the ones
    // to check, already computed (a live event prices every channel of every open checkout page).
    const judged = principal.session !== undefined ? channel.availability?.reasons : undefined;
    return this.price(principal, channel, amount, channel.currency, chargeFeeToCustomer, judged);
  }

  /**
   * Eligibility (first reason → contract error, see eligibility.ts), then the pure calculator. `judged`: the
   * channel's reasons for exactly this payment and principal, when already known.
   */
  private price(principal: Principal, channel: MerchantChannel, amount: Big, currency: string, chargeFeeToCustomer?: boolean | null, judged?: readonly UnavailabilityReason[]): FeeCalculationModel {
    const [reason] = judged ?? unavailabilityReasons(channel, principal.merchantKyc, { amount, currency });
    switch (reason) {
      case 'KYC_REQUIRED':
        throw new AppError('KYC_REQUIRED', `Channel "${channel.code}" requires approved KYC; this merchant's KYC is ${principal.merchantKyc}.`, {
          kycStatus: principal.merchantKyc,
        });
      case 'OFFLINE':
      case 'MAINTENANCE':
        throw unavailableError(channel);
      case 'CURRENCY_MISMATCH':
        throw new AppError('UNSUPPORTED_CURRENCY', `Channel "${channel.code}" settles in ${channel.currency}, not ${currency}.`, {
          field: 'currency',
          supported: channel.currency,
        });
      case 'AMOUNT_PRECISION':
        throw invalidRequest('amount', `amount has more decimals than ${currency} allows (${channel.minorUnits}).`);
      case 'AMOUNT_OUT_OF_RANGE': {
        const min = new Big(channel.feeInfo.minTransactions);
        const max = new Big(channel.feeInfo.maxTransactions);
        throw new AppError('AMOUNT_OUT_OF_RANGE', `amount must be between ${min.toFixed()} and ${max.toFixed()} ${currency} for "${channel.code}".`, {
          field: 'amount',
          min: min.toNumber(),
          max: max.toNumber(),
        });
      }
    }
    // The rule in force when the merchant's list was built: the catalogue rebuilds it at every transition,
    // so the price always agrees with the listed fee_info/feeRule (and their ETag).
    // This call's own result object: the channel code is added to it rather than copied into a new one.
    const priced = priceWithRule(channel.pricing.rule, channelPricingOf(channel), amount, chargeFeeToCustomer) as FeeCalculationModel;
    priced.method = channel.code;
    return priced;
  }
}

/**
 * What a checkout session's customer pays on a channel (contract §14 `{{amount}}`): the session amount priced
 * on the channel, fee included as the rule in force shares it. Undefined when the channel cannot take the
 * session's payment (unavailable, out of its limits): the instructions then show the session's amount.
 */
export function sessionCustomerTotal(fees: FeeService): CustomerTotal {
  return (principal, channel) => {
    const session = principal.session;
    if (!session) return undefined;
    try {
      return String(fees.quoteForChannel(principal, channel, session.amount).totalAmount);
    } catch (err) {
      // A contract refusal (CHANNEL_UNAVAILABLE, AMOUNT_OUT_OF_RANGE, …) is an answer here; anything else is not.
      if (err instanceof AppError) return undefined;
      throw err;
    }
  };
}
