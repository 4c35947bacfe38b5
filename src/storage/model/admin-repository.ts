/**
 * Operator reads and writes (admin CLI, demo seed), the same on every engine: the interface and its
 * records. Implemented by src/storage/sqlite/admin.ts and src/storage/postgres/admin.ts. Every change
 * commits in one transaction (`transaction`), and the change-log triggers record it in that same
 * transaction, so every server's catalogue sees it.
 */
import type { AuditRow, ChannelInsert, ChannelRow, FeeRuleRow, MerchantChannelRow, QuoteKeyRow } from './rows.js';
import type { ApiKeyRecord, MerchantRecord } from './records.js';
import type { ChannelStatusValue, KeyMode, KycStatus } from '../../shared/vocabulary.js';

/** A catalogue channel row. */
export type CatalogueChannelRecord = ChannelRow;

/** A merchant's enablement row (null = the catalogue value applies). */
export type MerchantChannelRecord = MerchantChannelRow;

export interface CurrencyRecord {
  code: string;
  minorUnits: number;
}

/** Columns that may be written to a catalogue channel. */
export type ChannelWrite = Partial<Omit<CatalogueChannelRecord, 'id' | 'code' | 'createdAt' | 'updatedAt'>>;

/** Override columns of an enablement row. */
export type OverrideWrite = Partial<
  Pick<MerchantChannelRecord, 'feePercentage' | 'feeValue' | 'additionalFeePercentage' | 'additionalFeeValue' | 'minAmount' | 'maxAmount' | 'feeChargedToCustomer' | 'feeSetAt'>
>;

/** A new merchant. */
export interface MerchantInsert {
  id: string;
  name: string;
  kycStatus: KycStatus;
  category: string;
}

export type { AuditRow, ChannelInsert } from './rows.js';

/** Which audit records to list (all optional; newest first). */
export interface AuditFilter {
  /** Exact entity: a merchant id, channel code, API key id or currency code. */
  entity?: string;
  /** Canonical ISO instant (formatInstant): records at or after it. */
  since?: string;
  limit: number;
}

/** A catalogue channel as listed to operators. */
export type CatalogueChannelListing = CatalogueChannelRecord & { minorUnits: number; enabledFor: number };


/**
 * Operator reads and writes, the same on every engine. Reads inside
 * `transaction` see the transaction's own writes; outside it they see the
 * latest committed state.
 */
export interface AdminRepository {
  /** Run `fn` in one transaction on a repository bound to it: all of it commits, or none (a throw rolls back). */
  transaction<T>(fn: (repo: AdminRepository) => Promise<T>): Promise<T>;
  findMerchant(id: string): Promise<MerchantRecord | undefined>;
  listMerchants(): Promise<MerchantRecord[]>;
  insertMerchant(m: MerchantInsert): Promise<void>;
  setKyc(id: string, kycStatus: KycStatus): Promise<void>;
  setCategory(id: string, category: string): Promise<void>;
  /** Contract §12: the merchant's channel order (JSON array of codes), or null for the default order. */
  setChannelOrder(id: string, channelOrder: string | null): Promise<void>;
  /** True when at least one merchant has this category. */
  categoryInUse(category: string): Promise<boolean>;
  /** A merchant's allowed web origins (contract §9), sorted. */
  listOrigins(merchantId: string): Promise<string[]>;
  /** Allow an (already normalised) origin; false when it was allowed already. */
  addOrigin(merchantId: string, origin: string): Promise<boolean>;
  /** Stop allowing an origin; false when it was not allowed. */
  removeOrigin(merchantId: string, origin: string): Promise<boolean>;
  /** True when no merchant exists (never seeded). */
  isEmpty(): Promise<boolean>;
  insertKey(key: { id: string; merchantId: string; mode: KeyMode; secretCiphertext: string }): Promise<void>;
  findKey(id: string): Promise<ApiKeyRecord | undefined>;
  listKeys(merchantId: string): Promise<ApiKeyRecord[]>;
  /** Any one stored key, to prove at boot that the master key decrypts secrets. */
  anyKey(): Promise<{ id: string; secretCiphertext: string } | undefined>;
  /** Mark a key revoked (keeps the row); false when it was already revoked. */
  revokeKey(id: string): Promise<boolean>;
  findCurrency(code: string): Promise<CurrencyRecord | undefined>;
  listCurrencies(): Promise<CurrencyRecord[]>;
  upsertCurrency(c: CurrencyRecord): Promise<void>;
  listChannels(): Promise<CatalogueChannelListing[]>;
  findChannel(code: string): Promise<CatalogueChannelRecord | undefined>;
  nextSortOrder(): Promise<number>;
  insertChannel(c: ChannelInsert): Promise<void>;
  updateChannel(id: string, changes: ChannelWrite): Promise<void>;
  /** Every merchant enablement of a channel (to re-validate effective settings after a catalogue change). */
  enablementsOf(channelId: string): Promise<MerchantChannelRecord[]>;
  findEnablement(merchantId: string, channelId: string): Promise<MerchantChannelRecord | undefined>;
  /** Insert an enablement, or replace the given overrides of an existing one. */
  upsertEnablement(merchantId: string, channelId: string, overrides: OverrideWrite): Promise<void>;
  deleteEnablement(merchantId: string, channelId: string): Promise<boolean>;
  /** A merchant's enabled channels with the raw override columns (null = catalogue value). */
  enablementsOfMerchant(merchantId: string): Promise<{ code: string; status: ChannelStatusValue; overrides: MerchantChannelRecord }[]>;
  insertFeeRule(rule: FeeRuleRow): Promise<void>;
  findFeeRule(id: string): Promise<FeeRuleRow | undefined>;
  /** Every stored rule of a channel, cancelled ones included, oldest first. */
  feeRulesOf(channelId: string): Promise<FeeRuleRow[]>;
  /** Cancel a rule that has not started at `at` (canonical ISO) and is not cancelled; false when it had. */
  cancelFeeRule(id: string, at: string): Promise<boolean>;
  /** Append one audit record (never edited or deleted afterwards; the database refuses both). */
  appendAudit(record: AuditRow): Promise<void>;
  listAudit(filter: AuditFilter): Promise<AuditRow[]>;
  /** Every fee quote signing key (contract §11), newest first. */
  listQuoteKeys(): Promise<QuoteKeyRow[]>;
  /**
   * Insert a new signing key; false (nothing written) when another key signs already: at most one key is
   * `signing` (a unique index), so of several replicas creating the first key at once exactly one succeeds.
   */
  insertSigningQuoteKey(key: Pick<QuoteKeyRow, 'id' | 'publicJwk' | 'privateKeyCiphertext'>): Promise<boolean>;
  /** Retire the signing key (if any) at `at` (canonical ISO); returns the retired key's id. */
  retireSigningQuoteKey(at: string): Promise<string | undefined>;
  /**
   * Raise key `id`'s `maxTtlSeconds` to `ttlSeconds` if it is lower (never lowers it; a null, unknown, stays
   * null: it already stands for the largest TTL). Whatever the key's state: a server that has not yet seen a
   * rotation may still sign with the old key for up to the propagation bound. Logged as a `quote_key` change.
   */
  raiseQuoteKeyMaxTtl(id: string, ttlSeconds: number): Promise<void>;
}
