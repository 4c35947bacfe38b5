/**
 * SQL for operator changes (admin CLI, demo seed) on SQLite: merchants, keys,
 * the channel catalogue, per-merchant enablement. The interface,
 * {@link AdminRepository}, is src/storage/model/admin-repository.ts; the Postgres
 * twin is src/storage/postgres/admin.ts. Every change commits in one transaction (`transaction`), and
 * the change-log triggers record it in that same transaction.
 */
import { and, asc, desc, eq, getTableColumns, gt, inArray, isNotNull, isNull, lt, max, sql } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { Db } from './database.js';
import { apiKeys, auditLog, channels, currencies, feeRules, merchantChannels, merchantOrigins, merchants, quoteKeys } from './schema.js';
import type { ChannelStatusValue, KeyMode, KycStatus } from '../../shared/vocabulary.js';
import type { FeeRuleRow, QuoteKeyRow } from '../model/catalogue-rows.js';
import type { ApiKeyRecord, MerchantRecord } from '../model/records.js';
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

const nowSql = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

/** Ids per `IN (...)` list: far below SQLite's 32,766 bound variables. */
const IDS_PER_STATEMENT = 500;

/**
 * The bulk statements of one connection, prepared once. Each takes a whole batch as one JSON array and
 * walks it with `json_each`, so the per-row work (and the change-log trigger of each row) runs inside
 * SQLite, not as one call from JavaScript per row: the difference between a few thousand and over ten
 * thousand merchants a second.
 */
interface BulkStatements {
  /** `[[id, name, kyc, category, [channelId, ...]], ...]` */
  insertMerchants: Database.Statement;
  insertEnablements: Database.Statement;
  /** Sets (1) or clears (0) the mute of the enablement insert trigger (change_log_mute, schema.ts). */
  muteEnablementLog: Database.Statement;
  /** `[[id, name | null, kyc | null, category | null], ...]`: null keeps the stored value. */
  updateMerchants: Database.Statement;
}

export class SqliteAdminRepository implements AdminRepository {
  static readonly #queues = new WeakMap<Database.Database, Promise<unknown>>();
  static readonly #bulk = new WeakMap<Database.Database, BulkStatements>();

  constructor(
    private readonly db: Db,
    private readonly sqlite: Database.Database,
    private readonly inTransaction = false,
  ) {}

  async transaction<T>(fn: (repo: AdminRepository) => Promise<T>): Promise<T> {
    // Nested use (a service helper that opens its own transaction) joins the outer one.
    if (this.inTransaction) return fn(this);
    const queues = SqliteAdminRepository.#queues;
    const previous = queues.get(this.sqlite) ?? Promise.resolve();
    const run = async (): Promise<T> => {
      this.sqlite.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(new SqliteAdminRepository(this.db, this.sqlite, true));
        this.sqlite.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
        throw err;
      }
    };
    const current = previous.then(run, run);
    queues.set(
      this.sqlite,
      current.catch(() => undefined),
    );
    return current;
  }

  // Merchants

  async findMerchant(id: string): Promise<MerchantRecord | undefined> {
    return this.db.select().from(merchants).where(eq(merchants.id, id)).get();
  }

  async findMerchants(ids: readonly string[]): Promise<MerchantRecord[]> {
    const out: MerchantRecord[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      out.push(...this.db.select().from(merchants).where(inArray(merchants.id, ids.slice(i, i + IDS_PER_STATEMENT))).all());
    }
    return out;
  }

  async merchantsPage(page: PageRequest): Promise<MerchantRecord[]> {
    return this.db
      .select()
      .from(merchants)
      .where(page.after === undefined ? undefined : gt(merchants.id, page.after))
      .orderBy(asc(merchants.id))
      .limit(page.limit)
      .all();
  }

  async insertMerchant(m: MerchantInsert): Promise<void> {
    this.db.insert(merchants).values(m).run();
  }

  #bulkStatements(): BulkStatements {
    let s = SqliteAdminRepository.#bulk.get(this.sqlite);
    if (!s) {
      s = {
        insertMerchants: this.sqlite.prepare('INSERT INTO merchants (id, name, kyc_status, category) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)'),
        insertEnablements: this.sqlite.prepare('INSERT INTO merchant_channels (merchant_id, channel_id) SELECT m.value ->> 0, c.value FROM json_each(?) AS m, json_each(m.value -> 4) AS c'),
        muteEnablementLog: this.sqlite.prepare('UPDATE change_log_mute SET merchant_channels_insert = ? WHERE id = 1'),
        updateMerchants: this.sqlite.prepare(
          'UPDATE merchants SET name = coalesce(u.value ->> 1, name), kyc_status = coalesce(u.value ->> 2, kyc_status), category = coalesce(u.value ->> 3, category) FROM json_each(?) AS u WHERE merchants.id = u.value ->> 0',
        ),
      };
      SqliteAdminRepository.#bulk.set(this.sqlite, s);
    }
    return s;
  }

  async insertMerchants(rows: readonly MerchantImportRow[]): Promise<void> {
    const { insertMerchants, insertEnablements, muteEnablementLog } = this.#bulkStatements();
    const batch = JSON.stringify(rows.map((m) => [m.id, m.name, m.kycStatus, m.category, m.channelIds]));
    // One synchronous better-sqlite3 transaction (a savepoint inside `transaction`'s own): all or nothing.
    // Each merchant's own insert logs it, and a replica catching up on a merchant reloads its enablements
    // with it: the enablements' trigger is muted meanwhile (one change-log row per merchant, not thirteen).
    // The mute is set and cleared within this savepoint, so no commit, and no other connection, sees it set.
    this.sqlite.transaction(() => {
      insertMerchants.run(batch);
      muteEnablementLog.run(1);
      insertEnablements.run(batch);
      muteEnablementLog.run(0);
    })();
  }

  async updateMerchants(rows: readonly MerchantUpdateRow[]): Promise<void> {
    const { updateMerchants } = this.#bulkStatements();
    updateMerchants.run(JSON.stringify(rows.map((m) => [m.id, m.name ?? null, m.kycStatus ?? null, m.category ?? null])));
  }

  async setKyc(id: string, kycStatus: KycStatus): Promise<void> {
    this.db.update(merchants).set({ kycStatus }).where(eq(merchants.id, id)).run();
  }

  async setCategory(id: string, category: string): Promise<void> {
    this.db.update(merchants).set({ category }).where(eq(merchants.id, id)).run();
  }

  async setChannelOrder(id: string, channelOrder: string | null): Promise<void> {
    this.db.update(merchants).set({ channelOrder }).where(eq(merchants.id, id)).run();
  }

  async categoryInUse(category: string): Promise<boolean> {
    return this.db.select({ id: merchants.id }).from(merchants).where(eq(merchants.category, category)).limit(1).all().length > 0;
  }

  async isEmpty(): Promise<boolean> {
    return this.db.select({ id: merchants.id }).from(merchants).limit(1).all().length === 0;
  }

  // Allowed origins (contract §9)

  async listOrigins(merchantId: string): Promise<string[]> {
    return this.db.select({ origin: merchantOrigins.origin }).from(merchantOrigins).where(eq(merchantOrigins.merchantId, merchantId)).orderBy(asc(merchantOrigins.origin)).all().map((r) => r.origin);
  }

  async addOrigin(merchantId: string, origin: string): Promise<boolean> {
    return this.db.insert(merchantOrigins).values({ merchantId, origin }).onConflictDoNothing().run().changes === 1;
  }

  async removeOrigin(merchantId: string, origin: string): Promise<boolean> {
    return this.db.delete(merchantOrigins).where(and(eq(merchantOrigins.merchantId, merchantId), eq(merchantOrigins.origin, origin))).run().changes === 1;
  }

  // Keys

  async anyKey(): Promise<{ id: string; secretCiphertext: string } | undefined> {
    return this.db.select({ id: apiKeys.id, secretCiphertext: apiKeys.secretCiphertext }).from(apiKeys).limit(1).get();
  }

  async insertKey(key: { id: string; merchantId: string; mode: KeyMode; secretCiphertext: string }): Promise<void> {
    this.db.insert(apiKeys).values(key).run();
  }

  async findKey(id: string): Promise<ApiKeyRecord | undefined> {
    return this.db
      .select({ id: apiKeys.id, merchantId: apiKeys.merchantId, mode: apiKeys.mode, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.id, id))
      .get();
  }

  async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
    return this.db
      .select({ id: apiKeys.id, merchantId: apiKeys.merchantId, mode: apiKeys.mode, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchantId))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
      .all();
  }

  /** Mark a key revoked (keeps the row); returns false when it was already revoked. */
  async revokeKey(id: string): Promise<boolean> {
    return this.db.update(apiKeys).set({ revokedAt: nowSql }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).run().changes === 1;
  }

  // Currencies

  async findCurrency(code: string): Promise<CurrencyRecord | undefined> {
    return this.db.select().from(currencies).where(eq(currencies.code, code)).get();
  }

  async listCurrencies(): Promise<CurrencyRecord[]> {
    return this.db.select().from(currencies).orderBy(asc(currencies.code)).all();
  }

  async upsertCurrency(c: CurrencyRecord): Promise<void> {
    this.db.insert(currencies).values(c).onConflictDoUpdate({ target: currencies.code, set: { minorUnits: c.minorUnits } }).run();
  }

  // Catalogue

  /** Every channel with its currency's minor units and how many merchants enable it (the two listings below). */
  #channelListings() {
    return this.db
      .select({
        ...getTableColumns(channels),
        minorUnits: currencies.minorUnits,
        enabledFor: sql<number>`(select count(*) from ${merchantChannels} where ${merchantChannels.channelId} = ${channels.id})`,
      })
      .from(channels)
      .innerJoin(currencies, eq(currencies.code, channels.currency));
  }

  async listChannels(): Promise<CatalogueChannelListing[]> {
    return this.#channelListings().orderBy(asc(channels.sortOrder), asc(channels.code)).all();
  }

  async channelListing(id: string): Promise<CatalogueChannelListing | undefined> {
    return this.#channelListings().where(eq(channels.id, id)).get();
  }


  async catalogueChannels(): Promise<CatalogueChannelRecord[]> {
    return this.db.select().from(channels).orderBy(asc(channels.sortOrder), asc(channels.code)).all();
  }

  async findChannel(code: string): Promise<CatalogueChannelRecord | undefined> {
    return this.db.select().from(channels).where(eq(channels.code, code)).get();
  }

  async nextSortOrder(): Promise<number> {
    const row = this.db.select({ m: max(channels.sortOrder) }).from(channels).get();
    return (row?.m ?? 0) + 10;
  }

  async insertChannel(c: ChannelInsert): Promise<void> {
    this.db.insert(channels).values(c).run();
  }

  async updateChannel(id: string, changes: ChannelWrite): Promise<void> {
    this.db.update(channels).set({ ...changes, updatedAt: nowSql }).where(eq(channels.id, id)).run();
  }

  async overriddenEnablementsOf(channelId: string): Promise<MerchantChannelRecord[]> {
    return this.db.select().from(merchantChannels).where(and(eq(merchantChannels.channelId, channelId), overriddenSql(merchantChannels))).all();
  }

  async findEnablement(merchantId: string, channelId: string): Promise<MerchantChannelRecord | undefined> {
    return this.db
      .select()
      .from(merchantChannels)
      .where(and(eq(merchantChannels.merchantId, merchantId), eq(merchantChannels.channelId, channelId)))
      .get();
  }

  /** Insert or replace-overrides of an enablement row. */
  async upsertEnablement(merchantId: string, channelId: string, overrides: OverrideWrite): Promise<void> {
    const set = Object.keys(overrides).length > 0 ? overrides : { merchantId };
    this.db
      .insert(merchantChannels)
      .values({ merchantId, channelId, ...overrides })
      .onConflictDoUpdate({ target: [merchantChannels.merchantId, merchantChannels.channelId], set })
      .run();
  }

  async deleteEnablement(merchantId: string, channelId: string): Promise<boolean> {
    return (
      this.db
        .delete(merchantChannels)
        .where(and(eq(merchantChannels.merchantId, merchantId), eq(merchantChannels.channelId, channelId)))
        .run().changes === 1
    );
  }

  /** A merchant's enabled channels with the raw override columns (null = catalogue value). */
  async enablementsOfMerchant(merchantId: string): Promise<{ code: string; status: ChannelStatusValue; overrides: MerchantChannelRecord }[]> {
    return this.db
      .select({ code: channels.code, status: channels.status, overrides: merchantChannels })
      .from(merchantChannels)
      .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
      .where(eq(merchantChannels.merchantId, merchantId))
      .orderBy(asc(channels.sortOrder), asc(channels.code))
      .all();
  }

  // Fee rules

  async insertFeeRule(rule: FeeRuleRow): Promise<void> {
    this.db.insert(feeRules).values(rule).run();
  }

  async findFeeRule(id: string): Promise<FeeRuleRow | undefined> {
    return this.db.select().from(feeRules).where(eq(feeRules.id, id)).get();
  }

  async feeRulesOf(channelId: string): Promise<FeeRuleRow[]> {
    return this.db.select().from(feeRules).where(eq(feeRules.channelId, channelId)).orderBy(asc(feeRules.createdAt), asc(feeRules.id)).all();
  }

  async feeRulesFor(channelId: string, target: FeeRuleTarget): Promise<FeeRuleRow[]> {
    return this.db
      .select()
      .from(feeRules)
      .where(and(eq(feeRules.channelId, channelId), feeRuleTargetSql(feeRules, target)))
      .orderBy(asc(feeRules.createdAt), asc(feeRules.id))
      .all();
  }

  async cancelFeeRule(id: string, at: string): Promise<boolean> {
    // Canonical ISO instants (formatInstant) compare as text in both engines.
    return this.db.update(feeRules).set({ cancelledAt: at }).where(and(eq(feeRules.id, id), isNull(feeRules.cancelledAt), gt(feeRules.effectiveFrom, at))).run().changes === 1;
  }

  // Audit

  async appendAudit(record: AuditRow): Promise<void> {
    this.db.insert(auditLog).values(record).run();
  }

  async listAudit(filter: AuditFilter): Promise<AuditRow[]> {
    return this.db
      .select()
      .from(auditLog)
      .where(auditWhere(auditLog, filter))
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(filter.limit)
      .all();
  }

  async findAudit(id: string): Promise<AuditRow | undefined> {
    return this.db.select().from(auditLog).where(eq(auditLog.id, id)).get();
  }

  // Fee quote signing keys (contract §11)

  async listQuoteKeys(): Promise<QuoteKeyRow[]> {
    return this.db.select().from(quoteKeys).orderBy(desc(quoteKeys.createdAt), desc(quoteKeys.id)).all();
  }

  async insertSigningQuoteKey(key: Pick<QuoteKeyRow, 'id' | 'publicJwk' | 'privateKeyCiphertext'>): Promise<boolean> {
    // DO NOTHING on the one-signing-key index: a concurrent first start lost the race, which is not an error.
    // maxTtlSeconds 0: nothing signed yet (each server raises it before its first signature).
    return this.db.insert(quoteKeys).values({ ...key, state: 'signing', maxTtlSeconds: 0 }).onConflictDoNothing().run().changes === 1;
  }

  async retireSigningQuoteKey(at: string): Promise<string | undefined> {
    return this.db.update(quoteKeys).set({ state: 'retired', retiredAt: at }).where(eq(quoteKeys.state, 'signing')).returning({ id: quoteKeys.id }).all()[0]?.id;
  }

  async raiseQuoteKeyMaxTtl(id: string, ttlSeconds: number): Promise<void> {
    this.db.update(quoteKeys).set({ maxTtlSeconds: ttlSeconds }).where(and(eq(quoteKeys.id, id), isNotNull(quoteKeys.maxTtlSeconds), lt(quoteKeys.maxTtlSeconds, ttlSeconds))).run();
  }
}
