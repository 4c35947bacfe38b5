/** The request path's view of channels (records and the reader interface). */
import type { ChannelStatusValue } from '../db/schema.js';

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
  feePercentage: string;
  feeValue: string;
  additionalFeePercentage: string;
  additionalFeeValue: string;
  minAmount: string;
  maxAmount: string;
  feeChargedToCustomer: boolean;
  requiresKyc: boolean;
}

/**
 * What the channel service reads: implemented by the in-memory catalogue
 * (src/db/catalog.ts), which both engines keep current.
 */
export interface ChannelRepository {
  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined;
  /** Every channel enabled for the merchant, in display order. */
  listForMerchant(merchantId: string): EffectiveChannelRecord[];
  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): EffectiveChannelRecord | undefined;
}
