/**
 * Channel rules (contract §5 "Channels"): which channels a merchant sees and
 * with which effective settings.
 */
import type { ChannelStatusValue, KycStatus } from '../../shared/vocabulary.js';
import type { DecimalString } from '../../shared/money.js';
import type { ChannelPricing } from '../pricing/domain/pricing.js';
import type { Principal } from '../../pipeline/request-state.js';
import type { ChannelRepository, ChannelRules, EffectiveChannelRecord } from '../catalogue/records.js';
import { invalidRequest } from '../../shared/errors.js';
import { parseDecimalText } from '../../shared/money.js';
import { availabilityOf, type Availability, type PaymentContext } from './eligibility.js';

/** Fee settings and limits of a channel for one merchant (GraphQL `FeeInfo`). */
export interface FeeInfoView {
  feePercentage: DecimalString;
  feeValue: DecimalString;
  minTransactions: DecimalString;
  maxTransactions: DecimalString;
  additionalFeePercentage: DecimalString;
  additionalFeeValue: DecimalString;
}

/** A channel as one merchant sees it (GraphQL `PaymentChannel`, REST channel object). */
export interface ChannelView {
  id: string;
  code: string;
  name: string;
  imageUrl: string;
  status: ChannelStatusValue;
  isFeeChargedToCustomer: boolean;
  feeInfo: FeeInfoView;
  /** The rule in force and the scheduled ones for this merchant (contract §7). */
  pricing: ChannelRules;
  currency: string;
  /** Decimals of the channel currency's minor unit. */
  minorUnits: number;
  requiresKyc: boolean;
  /** Set by {@link ChannelService.search}: availability judged against the filter's payment. */
  availability?: Availability;
}

/** GraphQL `PaymentChannelFilter` after scalar coercion. */
export interface ChannelFilter {
  /** Canonical decimal text: the payment amount channels are judged for. */
  amount?: string | null;
  /** ISO 4217 code of the payment. */
  currency?: string | null;
  /** Keep only channels with one of these statuses. */
  status?: readonly ChannelStatusValue[] | null;
  /** Keep only channels that can take the payment described by amount/currency. */
  selectableOnly?: boolean | null;
  /** Also list channels the merchant cannot use because of KYC (with reason KYC_REQUIRED). */
  includeIneligible?: boolean | null;
}

/** True when the merchant may use a channel as far as KYC goes. */
export function kycAllows(channel: { requiresKyc: boolean }, kyc: KycStatus): boolean {
  return !channel.requiresKyc || kyc === 'approved';
}

export function toChannelView(r: EffectiveChannelRecord): ChannelView {
  return {
    id: r.id,
    code: r.code,
    name: r.name,
    imageUrl: r.imagePath,
    status: r.status,
    isFeeChargedToCustomer: r.feeChargedToCustomer,
    feeInfo: {
      feePercentage: r.feePercentage,
      feeValue: r.feeValue,
      minTransactions: r.minAmount,
      maxTransactions: r.maxAmount,
      additionalFeePercentage: r.additionalFeePercentage,
      additionalFeeValue: r.additionalFeeValue,
    },
    pricing: r.pricing,
    currency: r.currency,
    minorUnits: r.minorUnits,
    requiresKyc: r.requiresKyc,
  };
}

/** What the fee calculator needs of a channel besides the rule's band (currency, additional fee, bearer). */
export function channelPricingOf(c: ChannelView): ChannelPricing {
  return {
    currency: c.currency,
    minorUnits: c.minorUnits,
    additionalFee: { percentage: c.feeInfo.additionalFeePercentage, fixed: c.feeInfo.additionalFeeValue },
    feeChargedToCustomer: c.isFeeChargedToCustomer,
  };
}

export class ChannelService {
  constructor(private readonly channels: ChannelRepository) {}

  /**
   * Channels enabled for the caller's merchant, all statuses (the seed's
   * rule: clients hide non-active ones), KYC-gated ones left out unless
   * the merchant's KYC is approved.
   */
  listForMerchant(principal: Principal): ChannelView[] {
    return this.channels
      .listForMerchant(principal.merchantId)
      .filter((c) => kycAllows(c, principal.merchantKyc))
      .map(toChannelView);
  }

  /**
   * The channel list with availability. Without a filter (or an empty one)
   * it is exactly {@link listForMerchant} (REST parity); `includeIneligible`
   * adds the KYC-gated channels; amount/currency only change availability,
   * and `selectableOnly`/`status` narrow the list.
   */
  search(principal: Principal, filter: ChannelFilter | null | undefined): ChannelView[] {
    const f = filter ?? {};
    const payment: PaymentContext = {};
    if (f.amount != null) {
      const amount = parseDecimalText(f.amount, 'filter.amount');
      if (amount.lte(0)) throw invalidRequest('filter.amount', 'filter.amount must be greater than 0.');
      payment.amount = amount;
    }
    if (f.currency != null) {
      if (!/^[A-Za-z]{3}$/.test(f.currency)) throw invalidRequest('filter.currency', 'filter.currency must be a three-letter ISO 4217 code, e.g. "IDR".');
      payment.currency = f.currency.toUpperCase();
    }
    const statuses = f.status ? new Set(f.status) : null;
    return this.channels
      .listForMerchant(principal.merchantId)
      .filter((c) => f.includeIneligible === true || kycAllows(c, principal.merchantKyc))
      .filter((c) => statuses === null || statuses.has(c.status))
      .map((r) => {
        const view = toChannelView(r);
        return { ...view, availability: availabilityOf(view, principal.merchantKyc, payment) };
      })
      .filter((c) => f.selectableOnly !== true || c.availability.selectable);
  }

  /** Availability of a channel with no payment in view (status and KYC only). */
  availabilityFor(principal: Principal, channel: ChannelView): Availability {
    return channel.availability ?? availabilityOf(channel, principal.merchantKyc);
  }

  /** Codes of every channel enabled for the merchant, any status, KYC-gated ones included (what `method` may name). */
  enabledCodes(principal: Principal): string[] {
    return this.channels.listForMerchant(principal.merchantId).map((c) => c.code);
  }

  /** The enabled channel for a method code (case-insensitive), KYC not yet checked. */
  findForMerchant(principal: Principal, method: string): ChannelView | undefined {
    const record = this.channels.findForMerchant(principal.merchantId, method.trim().toLowerCase());
    return record && toChannelView(record);
  }
}
