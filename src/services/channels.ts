/**
 * Channel rules (contract §5 "Channels"): which channels a merchant sees and
 * with which effective settings.
 */
import type { ChannelStatusValue, KycStatus } from '../db/schema.js';
import type { DecimalString } from '../domain/money.js';
import type { FeeSchedule } from '../domain/fee.js';
import type { Principal } from '../http/request-state.js';
import type { ChannelRepository, EffectiveChannelRecord } from '../repositories/channels.js';

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
  currency: string;
  /** Decimals of the channel currency's minor unit. */
  minorUnits: number;
  requiresKyc: boolean;
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
    currency: r.currency,
    minorUnits: r.minorUnits,
    requiresKyc: r.requiresKyc,
  };
}

/** The fee calculator's view of a channel. */
export function feeScheduleOf(c: ChannelView): FeeSchedule {
  return {
    currency: c.currency,
    minorUnits: c.minorUnits,
    fee: { percentage: c.feeInfo.feePercentage, fixed: c.feeInfo.feeValue },
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

  /** The enabled channel for a method code (case-insensitive), KYC not yet checked. */
  findForMerchant(principal: Principal, method: string): ChannelView | undefined {
    const record = this.channels.findForMerchant(principal.merchantId, method.trim().toLowerCase());
    return record && toChannelView(record);
  }
}
