/**
 * The stored rows, as both engines return them: the one record shape per table that everything above the
 * engines sees. Each engine's drizzle schema (src/storage/sqlite/schema.ts, src/storage/postgres/schema.ts)
 * must infer exactly these types; `RowTypesConform` in each schema file fails to compile when a column is
 * added, removed or re-typed on one side only.
 *
 * Invariants: money and percentages are canonical decimal text (exact; src/shared/money.ts); instants are
 * ISO 8601 UTC text; a null override column means "the catalogue value applies".
 */
import type { ChangeEntity, ChannelGroupValue, ChannelStatusValue, KeyMode, KycStatus, QuoteKeyState, RuleScope } from '../../shared/vocabulary.js';

export interface CurrencyRow {
  code: string;
  /** Decimals of the minor unit as this service settles it (IDR 0, USD 2). */
  minorUnits: number;
}

export interface MerchantRow {
  id: string;
  name: string;
  kycStatus: KycStatus;
  createdAt: string;
  /** Pricing category (contract §7). */
  category: string;
  /** The merchant's channel order (contract §12): JSON array of codes listed first; null: the default order. */
  channelOrder: string | null;
}

export interface ApiKeyRow {
  id: string;
  merchantId: string;
  mode: KeyMode;
  /** AES-256-GCM under the master key, the key id as associated data; never a plaintext secret. */
  secretCiphertext: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface ChannelRow {
  id: string;
  code: string;
  name: string;
  imagePath: string;
  status: ChannelStatusValue;
  currency: string;
  feePercentage: string;
  feeValue: string;
  additionalFeePercentage: string;
  additionalFeeValue: string;
  minAmount: string;
  maxAmount: string;
  feeChargedToCustomer: boolean;
  requiresKyc: boolean;
  sortOrder: number;
  createdAt: string;
  updatedAt: string;
  /** When feePercentage/feeValue were last written: the implicit flat rule's effectiveFrom. */
  feeSetAt: string;
  /** Contract §12: the group the channel is shown under, and its names in Indonesian / English (null: `name`). */
  channelGroup: ChannelGroupValue;
  nameId: string | null;
  nameEn: string | null;
  /** Contract §14: payment instructions in Indonesian / English, JSON text of validated sections (null: none). */
  instructionsId: string | null;
  instructionsEn: string | null;
}

/** A channel insert: what has no database default must be given. */
export type ChannelInsert = Pick<ChannelRow, 'id' | 'code' | 'name' | 'imagePath' | 'currency' | 'minAmount' | 'maxAmount' | 'feeChargedToCustomer'> &
  Partial<Omit<ChannelRow, 'id' | 'code' | 'name' | 'imagePath' | 'currency' | 'minAmount' | 'maxAmount' | 'feeChargedToCustomer'>>;

/** A merchant's enablement of a channel with its overrides (null: the catalogue value applies). */
export interface MerchantChannelRow {
  merchantId: string;
  channelId: string;
  feePercentage: string | null;
  feeValue: string | null;
  additionalFeePercentage: string | null;
  additionalFeeValue: string | null;
  minAmount: string | null;
  maxAmount: string | null;
  feeChargedToCustomer: boolean | null;
  createdAt: string;
  feeSetAt: string;
}

/** An allowed web origin of a merchant (contract §9): normalised `scheme://host[:port]`, as browsers send `Origin`. */
export interface MerchantOriginRow {
  merchantId: string;
  origin: string;
  createdAt: string;
}

export interface ChangeLogRow {
  seq: number;
  entity: ChangeEntity;
  entityId: string;
  at: string;
}

/** A `fee_rules` row: `bands` is the JSON text of the rule's bands. */
export interface FeeRuleRow {
  id: string;
  channelId: string;
  scope: RuleScope;
  merchantId: string | null;
  category: string | null;
  bands: string;
  effectiveFrom: string;
  cancelledAt: string | null;
  createdAt: string;
  /** Contract §10 settings of the rule (canonical decimals; null: not set). */
  minFee: string | null;
  maxFee: string | null;
  taxPercentage: string | null;
  customerShare: string | null;
}

/** A stored audit record: `before`/`after` are JSON text (null: nothing before / after). */
export interface AuditRow {
  id: string;
  at: string;
  actor: string;
  action: string;
  entity: string;
  before: string | null;
  after: string | null;
}

/**
 * A fee quote signing key (contract §11): Ed25519. `publicJwk` is the JSON text of the public JWK (`kty`, `crv`,
 * `x`); `privateKeyCiphertext` is the private part (`d`) encrypted under the master key with the key id as
 * associated data, like an API secret (src/modules/auth/secret-box.ts). Never a plaintext private key.
 */
export interface QuoteKeyRow {
  /** The JWS `kid` (`qk_…`). */
  id: string;
  state: QuoteKeyState;
  publicJwk: string;
  privateKeyCiphertext: string;
  createdAt: string;
  /** When it stopped signing (null while it signs). */
  retiredAt: string | null;
  /**
   * The longest QUOTE_TTL_SECONDS any server signed with it (raised before that server's first signature):
   * with `retiredAt`, when its last quote expires. Null: unknown (a key older than the column), read as the
   * largest TTL allowed.
   */
  maxTtlSeconds: number | null;
}

/** The row type of each table, by the name both schemas export it under. */
export interface ModelRows {
  currencies: CurrencyRow;
  merchants: MerchantRow;
  apiKeys: ApiKeyRow;
  channels: ChannelRow;
  merchantChannels: MerchantChannelRow;
  merchantOrigins: MerchantOriginRow;
  changeLog: ChangeLogRow;
  feeRules: FeeRuleRow;
  auditLog: AuditRow;
  quoteKeys: QuoteKeyRow;
}

/** True when a schema's inferred row type is exactly the model's. */
export type Conforms<Inferred, Row> = [Inferred] extends [Row] ? ([Row] extends [Inferred] ? true : false) : false;

/** The check each engine's schema declares (every entry must be `true`). */
export interface RowTypesConform {
  currencies: true;
  merchants: true;
  apiKeys: true;
  channels: true;
  channelInsert: true;
  merchantChannels: true;
  merchantOrigins: true;
  changeLog: true;
  feeRules: true;
  auditLog: true;
  quoteKeys: true;
}
