/**
 * Postgres implementation of {@link AdminRepository} (contract §6): the same
 * operator reads and writes as the SQLite one (admin.ts), on the pg schema.
 * `transaction` is drizzle's (node-postgres): the callback's queries run on
 * one pooled connection and a throw rolls everything back; the change-log
 * triggers write and NOTIFY in the same transaction.
 */
import { and, asc, desc, eq, getTableColumns, gt, inArray, isNotNull, isNull, lt, max, sql, type ExtractTablesWithRelations } from 'drizzle-orm';
import type { NodePgDatabase, NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgTransaction } from 'drizzle-orm/pg-core';
import * as schema from './schema.js';
import { apiKeys, auditLog, channels, currencies, feeRules, merchantChannels, merchantOrigins, merchants, quoteKeys } from './schema.js';
import type { FeeRuleRow, QuoteKeyRow } from '../model/catalogue-rows.js';
import type { ChannelStatusValue, KeyMode, KycStatus } from '../../shared/vocabulary.js';
import type {
  AdminRepository,
  AuditFilter,
  AuditRow,
  CatalogueChannelListing,
  CatalogueChannelRecord,
  ChannelInsert,
  ChannelWrite,
  CurrencyRecord,
  FeeRuleTarget,
  MerchantChannelRecord,
  MerchantImportRow,
  MerchantInsert,
  MerchantUpdateRow,
  OverrideWrite,
  PageRequest,
} from '../model/admin-repository.js';
import { auditWhere, feeRuleTargetSql } from '../model/admin-sql.js';
import { overriddenSql } from '../model/schema-checks.js';
import type { ApiKeyRecord, MerchantRecord } from '../model/records.js';

/** The drizzle handle of the pool, or of one transaction on it. */
export type PgDb = NodePgDatabase<typeof schema> | PgTransaction<NodePgQueryResultHKT, typeof schema, ExtractTablesWithRelations<typeof schema>>;

const nowSql = sql`(to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
/** Ids per `IN (...)` list. */
const IDS_PER_STATEMENT = 1000;

const keyColumns = { id: apiKeys.id, merchantId: apiKeys.merchantId, mode: apiKeys.mode, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt };

export class PgAdminRepository implements AdminRepository {
  constructor(
    private readonly db: PgDb,
    private readonly inTransaction = false,
  ) {}

  async transaction<T>(fn: (repo: AdminRepository) => Promise<T>): Promise<T> {
    if (this.inTransaction) return fn(this);
    return (this.db as NodePgDatabase<typeof schema>).transaction((tx) => fn(new PgAdminRepository(tx, true)));
  }

  // Merchants

  async findMerchant(id: string): Promise<MerchantRecord | undefined> {
    return (await this.db.select().from(merchants).where(eq(merchants.id, id)))[0];
  }

  async findMerchants(ids: readonly string[]): Promise<MerchantRecord[]> {
    const out: MerchantRecord[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      out.push(...(await this.db.select().from(merchants).where(inArray(merchants.id, ids.slice(i, i + IDS_PER_STATEMENT)))));
    }
    return out;
  }

  async merchantsPage(page: PageRequest): Promise<MerchantRecord[]> {
    return this.db
      .select()
      .from(merchants)
      .where(page.after === undefined ? undefined : gt(merchants.id, page.after))
      .orderBy(asc(merchants.id))
      .limit(page.limit);
  }

  async insertMerchant(m: MerchantInsert): Promise<void> {
    await this.db.insert(merchants).values(m);
  }

  /**
   * A batch as one statement per table: each column a single array parameter, spread into rows by `unnest`
   * on the server (a multi-row VALUES list would be built and bound value by value in the client).
   */
  async insertMerchants(rows: readonly MerchantImportRow[]): Promise<void> {
    const column = <T>(pick: (m: MerchantImportRow) => T) => sql.param(rows.map(pick));
    await this.db.execute(
      sql`insert into ${merchants} (id, name, kyc_status, category) select * from unnest(${column((m) => m.id)}::text[], ${column((m) => m.name)}::text[], ${column((m) => m.kycStatus)}::text[], ${column((m) => m.category)}::text[])`,
    );
    const merchantIds = rows.flatMap((m) => m.channelIds.map(() => m.id));
    const channelIds = rows.flatMap((m) => m.channelIds);
    await this.db.execute(sql`insert into ${merchantChannels} (merchant_id, channel_id) select * from unnest(${sql.param(merchantIds)}::text[], ${sql.param(channelIds)}::text[])`);
  }

  async updateMerchants(rows: readonly MerchantUpdateRow[]): Promise<void> {
    // A null keeps the stored value.
    const column = (pick: (m: MerchantUpdateRow) => string | undefined) => sql.param(rows.map((m) => pick(m) ?? null));
    await this.db.execute(
      sql`update ${merchants} set name = coalesce(v.name, ${merchants.name}), kyc_status = coalesce(v.kyc, ${merchants.kycStatus}), category = coalesce(v.category, ${merchants.category}) from unnest(${column((m) => m.id)}::text[], ${column((m) => m.name)}::text[], ${column((m) => m.kycStatus)}::text[], ${column((m) => m.category)}::text[]) as v(id, name, kyc, category) where ${merchants.id} = v.id`,
    );
  }

  async setKyc(id: string, kycStatus: KycStatus): Promise<void> {
    await this.db.update(merchants).set({ kycStatus }).where(eq(merchants.id, id));
  }

  async setCategory(id: string, category: string): Promise<void> {
    await this.db.update(merchants).set({ category }).where(eq(merchants.id, id));
  }

  async setChannelOrder(id: string, channelOrder: string | null): Promise<void> {
    await this.db.update(merchants).set({ channelOrder }).where(eq(merchants.id, id));
  }

  async categoryInUse(category: string): Promise<boolean> {
    return (await this.db.select({ id: merchants.id }).from(merchants).where(eq(merchants.category, category)).limit(1)).length > 0;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.db.select({ id: merchants.id }).from(merchants).limit(1)).length === 0;
  }

  // Allowed origins (contract §9)

  async listOrigins(merchantId: string): Promise<string[]> {
    return (await this.db.select({ origin: merchantOrigins.origin }).from(merchantOrigins).where(eq(merchantOrigins.merchantId, merchantId)).orderBy(asc(merchantOrigins.origin))).map((r) => r.origin);
  }

  async addOrigin(merchantId: string, origin: string): Promise<boolean> {
    return (await this.db.insert(merchantOrigins).values({ merchantId, origin }).onConflictDoNothing().returning({ o: merchantOrigins.origin })).length === 1;
  }

  async removeOrigin(merchantId: string, origin: string): Promise<boolean> {
    return (await this.db.delete(merchantOrigins).where(and(eq(merchantOrigins.merchantId, merchantId), eq(merchantOrigins.origin, origin))).returning({ o: merchantOrigins.origin })).length === 1;
  }

  // Keys

  async anyKey(): Promise<{ id: string; secretCiphertext: string } | undefined> {
    return (await this.db.select({ id: apiKeys.id, secretCiphertext: apiKeys.secretCiphertext }).from(apiKeys).limit(1))[0];
  }

  async insertKey(key: { id: string; merchantId: string; mode: KeyMode; secretCiphertext: string }): Promise<void> {
    await this.db.insert(apiKeys).values(key);
  }

  async findKey(id: string): Promise<ApiKeyRecord | undefined> {
    return (await this.db.select(keyColumns).from(apiKeys).where(eq(apiKeys.id, id)))[0];
  }

  async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
    return this.db.select(keyColumns).from(apiKeys).where(eq(apiKeys.merchantId, merchantId)).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  }

  async revokeKey(id: string): Promise<boolean> {
    const rows = await this.db
      .update(apiKeys)
      .set({ revokedAt: nowSql })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    return rows.length === 1;
  }

  // Currencies

  async findCurrency(code: string): Promise<CurrencyRecord | undefined> {
    return (await this.db.select().from(currencies).where(eq(currencies.code, code)))[0];
  }

  async listCurrencies(): Promise<CurrencyRecord[]> {
    return this.db.select().from(currencies).orderBy(asc(currencies.code));
  }

  async upsertCurrency(c: CurrencyRecord): Promise<void> {
    await this.db.insert(currencies).values(c).onConflictDoUpdate({ target: currencies.code, set: { minorUnits: c.minorUnits } });
  }

  // Catalogue

  /** Every channel with its currency's minor units and how many merchants enable it (the two listings below). */
  #channelListings() {
    return this.db
      .select({
        ...getTableColumns(channels),
        minorUnits: currencies.minorUnits,
        enabledFor: sql<number>`(select count(*) from ${merchantChannels} where ${merchantChannels.channelId} = ${channels.id})`.mapWith(Number),
      })
      .from(channels)
      .innerJoin(currencies, eq(currencies.code, channels.currency));
  }

  async listChannels(): Promise<CatalogueChannelListing[]> {
    return this.#channelListings().orderBy(asc(channels.sortOrder), asc(channels.code));
  }

  async channelListing(id: string): Promise<CatalogueChannelListing | undefined> {
    const rows = await this.#channelListings().where(eq(channels.id, id));
    return rows[0];
  }


  async catalogueChannels(): Promise<CatalogueChannelRecord[]> {
    return this.db.select().from(channels).orderBy(asc(channels.sortOrder), asc(channels.code));
  }

  async findChannel(code: string): Promise<CatalogueChannelRecord | undefined> {
    return (await this.db.select().from(channels).where(eq(channels.code, code)))[0];
  }

  async nextSortOrder(): Promise<number> {
    const row = (await this.db.select({ m: max(channels.sortOrder) }).from(channels))[0];
    return (row?.m ?? 0) + 10;
  }

  async insertChannel(c: ChannelInsert): Promise<void> {
    await this.db.insert(channels).values(c);
  }

  async updateChannel(id: string, changes: ChannelWrite): Promise<void> {
    await this.db
      .update(channels)
      .set({ ...changes, updatedAt: nowSql })
      .where(eq(channels.id, id));
  }

  async overriddenEnablementsOf(channelId: string): Promise<MerchantChannelRecord[]> {
    return this.db.select().from(merchantChannels).where(and(eq(merchantChannels.channelId, channelId), overriddenSql(merchantChannels)));
  }

  async findEnablement(merchantId: string, channelId: string): Promise<MerchantChannelRecord | undefined> {
    return (await this.db.select().from(merchantChannels).where(and(eq(merchantChannels.merchantId, merchantId), eq(merchantChannels.channelId, channelId))))[0];
  }

  async upsertEnablement(merchantId: string, channelId: string, overrides: OverrideWrite): Promise<void> {
    const set = Object.keys(overrides).length > 0 ? overrides : { merchantId };
    await this.db
      .insert(merchantChannels)
      .values({ merchantId, channelId, ...overrides })
      .onConflictDoUpdate({ target: [merchantChannels.merchantId, merchantChannels.channelId], set });
  }

  async deleteEnablement(merchantId: string, channelId: string): Promise<boolean> {
    const rows = await this.db
      .delete(merchantChannels)
      .where(and(eq(merchantChannels.merchantId, merchantId), eq(merchantChannels.channelId, channelId)))
      .returning({ m: merchantChannels.merchantId });
    return rows.length === 1;
  }

  async enablementsOfMerchant(merchantId: string): Promise<{ code: string; status: ChannelStatusValue; overrides: MerchantChannelRecord }[]> {
    return this.db
      .select({ code: channels.code, status: channels.status, overrides: merchantChannels })
      .from(merchantChannels)
      .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
      .where(eq(merchantChannels.merchantId, merchantId))
      .orderBy(asc(channels.sortOrder), asc(channels.code));
  }

  // Fee rules

  async insertFeeRule(rule: FeeRuleRow): Promise<void> {
    await this.db.insert(feeRules).values(rule);
  }

  async findFeeRule(id: string): Promise<FeeRuleRow | undefined> {
    return (await this.db.select().from(feeRules).where(eq(feeRules.id, id)))[0];
  }

  async feeRulesOf(channelId: string): Promise<FeeRuleRow[]> {
    return this.db.select().from(feeRules).where(eq(feeRules.channelId, channelId)).orderBy(asc(feeRules.createdAt), asc(feeRules.id));
  }

  async feeRulesFor(channelId: string, target: FeeRuleTarget): Promise<FeeRuleRow[]> {
    return this.db
      .select()
      .from(feeRules)
      .where(and(eq(feeRules.channelId, channelId), feeRuleTargetSql(feeRules, target)))
      .orderBy(asc(feeRules.createdAt), asc(feeRules.id));
  }

  async cancelFeeRule(id: string, at: string): Promise<boolean> {
    // Canonical ISO instants (formatInstant) compare as text in both engines.
    const rows = await this.db
      .update(feeRules)
      .set({ cancelledAt: at })
      .where(and(eq(feeRules.id, id), isNull(feeRules.cancelledAt), gt(feeRules.effectiveFrom, at)))
      .returning({ id: feeRules.id });
    return rows.length === 1;
  }

  // Audit

  async appendAudit(record: AuditRow): Promise<void> {
    await this.db.insert(auditLog).values(record);
  }

  async listAudit(filter: AuditFilter): Promise<AuditRow[]> {
    return this.db
      .select()
      .from(auditLog)
      .where(auditWhere(auditLog, filter))
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(filter.limit);
  }

  async findAudit(id: string): Promise<AuditRow | undefined> {
    return (await this.db.select().from(auditLog).where(eq(auditLog.id, id)))[0];
  }

  // Fee quote signing keys (contract §11)

  async listQuoteKeys(): Promise<QuoteKeyRow[]> {
    return this.db.select().from(quoteKeys).orderBy(desc(quoteKeys.createdAt), desc(quoteKeys.id));
  }

  async insertSigningQuoteKey(key: Pick<QuoteKeyRow, 'id' | 'publicJwk' | 'privateKeyCiphertext'>): Promise<boolean> {
    // DO NOTHING on the one-signing-key index: a concurrent first start lost the race, which is not an error.
    // maxTtlSeconds 0: nothing signed yet (each server raises it before its first signature).
    return (await this.db.insert(quoteKeys).values({ ...key, state: 'signing', maxTtlSeconds: 0 }).onConflictDoNothing().returning({ id: quoteKeys.id })).length === 1;
  }

  async retireSigningQuoteKey(at: string): Promise<string | undefined> {
    return (await this.db.update(quoteKeys).set({ state: 'retired', retiredAt: at }).where(eq(quoteKeys.state, 'signing')).returning({ id: quoteKeys.id }))[0]?.id;
  }

  async raiseQuoteKeyMaxTtl(id: string, ttlSeconds: number): Promise<void> {
    await this.db.update(quoteKeys).set({ maxTtlSeconds: ttlSeconds }).where(and(eq(quoteKeys.id, id), isNotNull(quoteKeys.maxTtlSeconds), lt(quoteKeys.maxTtlSeconds, ttlSeconds)));
  }
}
