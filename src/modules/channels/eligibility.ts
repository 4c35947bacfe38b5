/**
 * Channel eligibility: the one place that decides whether a channel can take
 * a payment, and why not. The fee service turns the first reason into the
 * contract error; GraphQL `PaymentChannel.availability` lists all of them.
 * Order of the reasons is the fee service's check order (contract §5):
 * KYC → status → currency → precision → limits.
 */
import type { KycStatus } from '../../shared/vocabulary.js';
import { compareBig, parseDecimalText, scaleOf, type Big } from '../../shared/money.js';
import type { MerchantChannel } from '../catalogue/records.js';

/** Why a channel cannot be selected (GraphQL enum `UnavailabilityReason`). */
export type UnavailabilityReason = 'KYC_REQUIRED' | 'OFFLINE' | 'MAINTENANCE' | 'CURRENCY_MISMATCH' | 'AMOUNT_PRECISION' | 'AMOUNT_OUT_OF_RANGE';

/** The payment a channel is judged for; both parts optional. */
export interface PaymentContext {
  amount?: Big;
  /** Upper-case ISO 4217 code. */
  currency?: string;
}

/** GraphQL `ChannelAvailability`. */
export interface Availability {
  selectable: boolean;
  reasons: UnavailabilityReason[];
}

/** Every reason the channel cannot take this payment, in check order (empty: selectable). */
export function unavailabilityReasons(channel: MerchantChannel, kyc: KycStatus, payment: PaymentContext = {}): UnavailabilityReason[] {
  const reasons: UnavailabilityReason[] = [];
  if (channel.requiresKyc && kyc !== 'approved') reasons.push('KYC_REQUIRED');
  if (channel.status === 'offline') reasons.push('OFFLINE');
  if (channel.status === 'maintenance') reasons.push('MAINTENANCE');
  if (payment.currency !== undefined && payment.currency !== channel.currency) reasons.push('CURRENCY_MISMATCH');
  if (payment.amount !== undefined) {
    if (scaleOf(payment.amount) > channel.minorUnits) reasons.push('AMOUNT_PRECISION');
    const min = parseDecimalText(channel.feeInfo.minTransactions, 'min_transactions');
    const max = parseDecimalText(channel.feeInfo.maxTransactions, 'max_transactions');
    if (compareBig(payment.amount, min) < 0 || compareBig(payment.amount, max) > 0) reasons.push('AMOUNT_OUT_OF_RANGE');
  }
  return reasons;
}

export function availabilityOf(channel: MerchantChannel, kyc: KycStatus, payment: PaymentContext = {}): Availability {
  const reasons = unavailabilityReasons(channel, kyc, payment);
  return { selectable: reasons.length === 0, reasons };
}
