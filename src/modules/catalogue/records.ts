/** The request path's view of channels (records and the reader interface). */
import type { ChannelStatusValue } from '../../shared/vocabulary.js';
import type { FeeRule } from '../pricing/domain/pricing.js';

/** The pricing rules of a channel for one merchant at the instant its list was built (contract §7). */
export interface ChannelRules {
  /** The rule in force (the most specific scope; an implicit flat rule when nothing else applies). */
  rule: FeeRule;
  /** Rules applying to this merchant that start later, in the order they take effect. */
  scheduled: FeeRule[];
}

/**
 * A channel as enabled for one merchant: catalogue values with the
 * merchant's overrides already applied (by the catalogue).
 */
export interface EffectiveChannelRecord {
  id: string;
  code: string;
  name: string;
  imagePath: string;
  status: ChannelStatusValue;
  currency: string;
  minorUnits: number;
  /** First band of the rule in force (the seed's `fee_info.fee_percentage`). */
  feePercentage: string;
  /** First band of the rule in force (the seed's `fee_info.fee_value`). */
  feeValue: string;
  pricing: ChannelRules;
  additionalFeePercentage: string;
  additionalFeeValue: string;
  minAmount: string;
  maxAmount: string;
  feeChargedToCustomer: boolean;
  requiresKyc: boolean;
}

/**
 * What the channel service reads: implemented by the in-memory catalogue
 * (src/modules/catalogue/catalog.ts), which both engines keep current.
 */
export interface ChannelRepository {
  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined;
  /** Every channel enabled for the merchant, in display order. */
  listForMerchant(merchantId: string): EffectiveChannelRecord[];
  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): EffectiveChannelRecord | undefined;
}
