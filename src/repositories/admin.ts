/**
 * SQL for operator changes (admin CLI): merchants, keys, the channel
 * catalogue, per-merchant enablement. Kept apart from the request path's
 * prepared reads (merchants.ts, channels.ts); the caller wraps writes in a
 * transaction (src/services/admin.ts).
 */
import { and, asc, eq, isNull, max, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { apiKeys, channels, currencies, merchantChannels, merchants, type ChannelStatusValue, type KeyMode, type KycStatus } from '../db/schema.js';
import type { ApiKeyRecord, MerchantRecord } from './merchants.js';

/** A catalogue channel row. */
export type CatalogueChannelRecord = typeof channels.$inferSelect;

/** A merchant's enablement row (null = the catalogue value applies). */
export type MerchantChannelRecord = typeof merchantChannels.$inferSelect;

export interface CurrencyRecord {
  code: string;
  minorUnits: number;
}

/** Columns that may be written to a catalogue channel. */
export type ChannelWrite = Partial<Omit<CatalogueChannelRecord, 'id' | 'code' | 'createdAt' | 'updatedAt'>>;

/** Override columns of an enablement row. */
export type OverrideWrite = Partial<Pick<MerchantChannelRecord, 'feePercentage' | 'feeValue' | 'additionalFeePercentage' | 'additionalFeeValue' | 'minAmount' | 'maxAmount' | 'feeChargedToCustomer'>>;

const nowSql = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export class AdminRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: () => T): T {
    // better-sqlite3 transactions are synchronous; every statement below runs on the same connection.
    return this.db.transaction(() => fn(), { behavior: 'immediate' });
  }

  // Merchants

  findMerchant(id: string): MerchantRecord | undefined {
    return this.db.select().from(merchants).where(eq(merchants.id, id)).get();
  }

  listMerchants(): MerchantRecord[] {
    return this.db.select().from(merchants).orderBy(asc(merchants.createdAt), asc(merchants.name)).all();
  }

  insertMerchant(m: { id: string; name: string; kycStatus: KycStatus }): void {
    this.db.insert(merchants).values(m).run();
  }

  setKyc(id: string, kycStatus: KycStatus): void {
    this.db.update(merchants).set({ kycStatus }).where(eq(merchants.id, id)).run();
  }

  // Keys

  insertKey(key: { id: string; merchantId: string; mode: KeyMode; secretCiphertext: string }): void {
    this.db.insert(apiKeys).values(key).run();
  }

  findKey(id: string): ApiKeyRecord | undefined {
    return this.db
      .select({ id: apiKeys.id, merchantId: apiKeys.merchantId, mode: apiKeys.mode, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, id))
      .get();
  }

  listKeys(merchantId: string): ApiKeyRecord[] {
    return this.db
      .select({ id: apiKeys.id, merchantId: apiKeys.merchantId, mode: apiKeys.mode, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchantId))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
      .all();
  }

  /** Mark a key revoked (keeps the row); returns false when it was already revoked. */
  revokeKey(id: string): boolean {
    return this.db.update(apiKeys).set({ revokedAt: nowSql }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).run().changes === 1;
  }

  // Currencies

  findCurrency(code: string): CurrencyRecord | undefined {
    return this.db.select().from(currencies).where(eq(currencies.code, code)).get();
  }

  listCurrencies(): CurrencyRecord[] {
    return this.db.select().from(currencies).orderBy(asc(currencies.code)).all();
  }

  upsertCurrency(c: CurrencyRecord): void {
    this.db.insert(currencies).values(c).onConflictDoUpdate({ target: currencies.code, set: { minorUnits: c.minorUnits } }).run();
  }

  // Catalogue

  listChannels(): (CatalogueChannelRecord & { minorUnits: number; enabledFor: number })[] {
    return this.db
      .select({
        ...getChannelColumns(),
        minorUnits: currencies.minorUnits,
        enabledFor: sql<number>`(select count(*) from ${merchantChannels} where ${merchantChannels.channelId} = ${channels.id})`,
      })
      .from(channels)
      .innerJoin(currencies, eq(currencies.code, channels.currency))
      .orderBy(asc(channels.sortOrder), asc(channels.code))
      .all();
  }

  findChannel(code: string): CatalogueChannelRecord | undefined {
    return this.db.select().from(channels).where(eq(channels.code, code)).get();
  }

  nextSortOrder(): number {
    const row = this.db.select({ m: max(channels.sortOrder) }).from(channels).get();
    return (row?.m ?? 0) + 10;
  }

  insertChannel(c: typeof channels.$inferInsert): void {
    this.db.insert(channels).values(c).run();
  }

  updateChannel(id: string, changes: ChannelWrite): void {
    this.db.update(channels).set({ ...changes, updatedAt: nowSql }).where(eq(channels.id, id)).run();
  }

  /** Every merchant enablement of a channel (to re-validate effective settings after a catalogue change). */
  enablementsOf(channelId: string): MerchantChannelRecord[] {
    return this.db.select().from(merchantChannels).where(eq(merchantChannels.channelId, channelId)).all();
  }

  findEnablement(merchantId: string, channelId: string): MerchantChannelRecord | undefined {
    return this.db
      .select()
      .from(merchantChannels)
      .where(and(eq(merchantChannels.merchantId, merchantId), eq(merchantChannels.channelId, channelId)))
      .get();
  }

  /** Insert or replace-overrides of an enablement row. */
  upsertEnablement(merchantId: string, channelId: string, overrides: OverrideWrite): void {
    const set = Object.keys(overrides).length > 0 ? overrides : { merchantId };
    this.db
      .insert(merchantChannels)
      .values({ merchantId, channelId, ...overrides })
      .onConflictDoUpdate({ target: [merchantChannels.merchantId, merchantChannels.channelId], set })
      .run();
  }

  deleteEnablement(merchantId: string, channelId: string): boolean {
    return (
      this.db
        .delete(merchantChannels)
        .where(and(eq(merchantChannels.merchantId, merchantId), eq(merchantChannels.channelId, channelId)))
        .run().changes === 1
    );
  }

  /** A merchant's enabled channels with the raw override columns (null = catalogue value). */
  enablementsOfMerchant(merchantId: string): { code: string; status: ChannelStatusValue; overrides: MerchantChannelRecord }[] {
    return this.db
      .select({ code: channels.code, status: channels.status, overrides: merchantChannels })
      .from(merchantChannels)
      .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
      .where(eq(merchantChannels.merchantId, merchantId))
      .orderBy(asc(channels.sortOrder), asc(channels.code))
      .all();
  }
}

function getChannelColumns() {
  return {
    id: channels.id,
    code: channels.code,
    name: channels.name,
    imagePath: channels.imagePath,
    status: channels.status,
    currency: channels.currency,
    feePercentage: channels.feePercentage,
    feeValue: channels.feeValue,
    additionalFeePercentage: channels.additionalFeePercentage,
    additionalFeeValue: channels.additionalFeeValue,
    minAmount: channels.minAmount,
    maxAmount: channels.maxAmount,
    feeChargedToCustomer: channels.feeChargedToCustomer,
    requiresKyc: channels.requiresKyc,
    sortOrder: channels.sortOrder,
    createdAt: channels.createdAt,
    updatedAt: channels.updatedAt,
  };
}
