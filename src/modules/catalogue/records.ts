/**
 * A channel as one merchant sees it: the one domain shape of a channel on the request path. The catalogue
 * builds it from the stored rows (catalogue values, the merchant's overrides, the pricing rule in force),
 * services judge and price it, and GraphQL serves it as `PaymentChannel` with default resolvers (its field
 * names are the schema's); REST renames the GraphQL result to the seed's snake_case.
 */
import type { ChannelGroupValue, ChannelStatusValue, Locale } from '../../shared/vocabulary.js';
import type { FeeRule } from '../pricing/domain/pricing.js';
import type { DecimalString } from '../../shared/money.js';
import type { ChannelInstructions } from '../channels/domain/instructions.js';

/** The pricing rules of a channel for one merchant at the instant its list was built (contract §7). */
export interface ChannelRules {
  /** The rule in force (the most specific scope; an implicit flat rule when nothing else applies). */
  rule: FeeRule;
  /** Rules applying to this merchant that start later, in the order they take effect. */
  scheduled: FeeRule[];
}

/** Fee settings and limits of a channel for one merchant (GraphQL `FeeInfo`, REST `fee_info`); canonical decimals. */
export interface ChannelFeeInfo {
  /** First band of the rule in force. */
  feePercentage: DecimalString;
  /** First band of the rule in force. */
  feeValue: DecimalString;
  minTransactions: DecimalString;
  maxTransactions: DecimalString;
  additionalFeePercentage: DecimalString;
  additionalFeeValue: DecimalString;
}

/** A channel as enabled for one merchant, overrides applied. Shared between requests: read-only. */
export interface MerchantChannel {
  id: string;
  code: string;
  /** The stored name (REST `name`, GraphQL `name` without a locale). */
  name: string;
  /** Contract §12: the name in each language (the stored name where no translation is stored). */
  names: Readonly<Record<Locale, string>>;
  /** Contract §12: the group the channel is shown under. */
  group: ChannelGroupValue;
  /** Path of the channel image, served by the gateway. */
  imageUrl: string;
  status: ChannelStatusValue;
  isFeeChargedToCustomer: boolean;
  feeInfo: ChannelFeeInfo;
  /** The rule in force and the scheduled ones for this merchant (contract §7). */
  pricing: ChannelRules;
  currency: string;
  /** Decimals of the channel currency's minor unit. */
  minorUnits: number;
  requiresKyc: boolean;
  /**
   * Contract §14: the payment instructions per language, validated, shared by every record of the channel
   * (one parse per channel row: 100,000 merchants' records refer to the same object).
   */
  instructions: ChannelInstructions;
  /** Contract §14: a digest of the stored instructions (every language): moves exactly when they change. */
  instructionsVersion: string;
}

/**
 * What the channel service reads: implemented by the in-memory catalogue
 * (src/modules/catalogue/catalog.ts), which both engines keep current.
 */
export interface ChannelRepository {
  /** A merchant's name (contract §14 `{{merchant_name}}`). */
  merchantNameOf(merchantId: string): string | undefined;
  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined;
  /** True when a catalogue channel's Indonesian and English names differ (contract §12). */
  nameDiffersByLanguage(code: string): boolean;
  /** Every channel enabled for the merchant, in its display order (the merchant's order, contract §12, then the default). */
  listForMerchant(merchantId: string): MerchantChannel[];
  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): MerchantChannel | undefined;
}
