/** SQL for the channel catalogue and per-merchant enablement. */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { channels, currencies, merchantChannels, type ChannelStatusValue } from '../db/schema.js';

/**
 * A channel as enabled for one merchant: catalogue values with the
 * merchant's overrides already applied (COALESCE in SQL).
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

export class ChannelRepository {
  readonly #forMerchant;
  readonly #forMerchantByCode;
  readonly #nameByCode;

  constructor(private readonly db: Db) {
    const columns = {
      id: channels.id,
      code: channels.code,
      name: channels.name,
      imagePath: channels.imagePath,
      status: channels.status,
      currency: channels.currency,
      minorUnits: currencies.minorUnits,
      feePercentage: sql<string>`coalesce(${merchantChannels.feePercentage}, ${channels.feePercentage})`,
      feeValue: sql<string>`coalesce(${merchantChannels.feeValue}, ${channels.feeValue})`,
      additionalFeePercentage: sql<string>`coalesce(${merchantChannels.additionalFeePercentage}, ${channels.additionalFeePercentage})`,
      additionalFeeValue: sql<string>`coalesce(${merchantChannels.additionalFeeValue}, ${channels.additionalFeeValue})`,
      minAmount: sql<string>`coalesce(${merchantChannels.minAmount}, ${channels.minAmount})`,
      maxAmount: sql<string>`coalesce(${merchantChannels.maxAmount}, ${channels.maxAmount})`,
      feeChargedToCustomer: sql<boolean>`coalesce(${merchantChannels.feeChargedToCustomer}, ${channels.feeChargedToCustomer})`.mapWith(Boolean),
      requiresKyc: channels.requiresKyc,
    };
    const base = () =>
      db
        .select(columns)
        .from(merchantChannels)
        .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
        .innerJoin(currencies, eq(currencies.code, channels.currency));
    this.#forMerchant = base()
      .where(eq(merchantChannels.merchantId, sql.placeholder('merchantId')))
      .orderBy(asc(channels.sortOrder), asc(channels.code))
      .prepare();
    this.#forMerchantByCode = base()
      .where(and(eq(merchantChannels.merchantId, sql.placeholder('merchantId')), eq(channels.code, sql.placeholder('code'))))
      .prepare();
    this.#nameByCode = db
      .select({ name: channels.name })
      .from(channels)
      .where(eq(channels.code, sql.placeholder('code')))
      .prepare();
  }

  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined {
    return this.#nameByCode.get({ code })?.name;
  }

  /** Every channel enabled for the merchant, in display order. */
  listForMerchant(merchantId: string): EffectiveChannelRecord[] {
    return this.#forMerchant.all({ merchantId });
  }

  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): EffectiveChannelRecord | undefined {
    return this.#forMerchantByCode.get({ merchantId, code });
  }
}
