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

/**
 * A merchant of a bulk import: its row and the catalogue channels enabled for it (no overrides: the
 * catalogue's values apply, as after `merchant create --channels`).
 */
export interface MerchantImportRow extends MerchantInsert {
  channelIds: readonly string[];
}

/** A change to one merchant in a bulk update: an absent field keeps its stored value. */
export interface MerchantUpdateRow {
  id: string;
  name?: string;
  kycStatus?: KycStatus;
  category?: string;
}

/** One page of a keyset listing: the rows whose key sorts after `after` (exclusive), at most `limit`. */
export interface PageRequest {
  after?: string;
  limit: number;
}

export type { AuditRow, ChannelInsert } from './rows.js';

/** Which audit records to list (all optional; newest first). */
export interface AuditFilter {
  /** Exact entity: a merchant id, channel code, API key id or currency code. */
  entity?: string;
  /** Canonical ISO instant (formatInstant): records at or after it. */
  since?: string;
  /** Keyset: only records older than this one (newest-first order: `at`, then `id`). */
  before?: { at: string; id: string };
  limit: number;
}

/** Whose rules of a channel to read: the channel default, one category's and one merchant's. */
export interface FeeRuleTarget {
  category: string | null;
  merchantId: string | null;
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
  /** The merchants among `ids` that exist (any number of ids: read in chunks under the engines' parameter limits). */
  findMerchants(ids: readonly string[]): Promise<MerchantRecord[]>;
  /** One page of merchants in id order (the primary key: each page costs its own rows, whatever the total). */
  merchantsPage(page: PageRequest): Promise<MerchantRecord[]>;
  insertMerchant(m: MerchantInsert): Promise<void>;
  /** Insert merchants and their enablements (one batch of an import; the caller's transaction). */
  insertMerchants(rows: readonly MerchantImportRow[]): Promise<void>;
  /** Change name, KYC and category of existing merchants (absent fields kept; one batch of an import). */
  updateMerchants(rows: readonly MerchantUpdateRow[]): Promise<void>;
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
  /** The catalogue with the number of merchants each channel is enabled for (`channel list`: about all merchants). */
  listChannels(): Promise<CatalogueChannelListing[]>;
  /** One channel as listed (its own count only); undefined for an unknown id. */
  channelListing(id: string): Promise<CatalogueChannelListing | undefined>;
  /** The catalogue's channels in display order, without counting merchants. */
  catalogueChannels(): Promise<CatalogueChannelRecord[]>;
  findChannel(code: string): Promise<CatalogueChannelRecord | undefined>;
  nextSortOrder(): Promise<number>;
  insertChannel(c: ChannelInsert): Promise<void>;
  updateChannel(id: string, changes: ChannelWrite): Promise<void>;
  /**
   * The enablements of a channel that override at least one setting (to re-validate effective settings after
   * a catalogue change, and to list merchant fee overrides): an enablement without overrides takes the
   * channel's values, which are checked on their own, so a channel change costs its overrides, not its merchants.
   */
  overriddenEnablementsOf(channelId: string): Promise<MerchantChannelRecord[]>;
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
  /** The stored rules of a channel that can apply to `target` (channel default, its category, its merchant), oldest first. */
  feeRulesFor(channelId: string, target: FeeRuleTarget): Promise<FeeRuleRow[]>;
  /** Cancel a rule that has not started at `at` (canonical ISO) and is not cancelled; false when it had. */
  cancelFeeRule(id: string, at: string): Promise<boolean>;
  /** Append one audit record (never edited or deleted afterwards; the database refuses both). */
  appendAudit(record: AuditRow): Promise<void>;
  listAudit(filter: AuditFilter): Promise<AuditRow[]>;
  findAudit(id: string): Promise<AuditRow | undefined>;
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
