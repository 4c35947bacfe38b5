/**
 * What either engine hands the in-memory catalogue (src/modules/catalogue/catalog.ts): every row at start
 * and after a reconnect, then the rows of the entities named by new `change_log` rows (row shapes:
 * rows.ts).
 */
import type { ChangeEntity } from '../../shared/vocabulary.js';
import type { ApiKeyRow, ChannelRow, CurrencyRow, FeeRuleRow, MerchantChannelRow, MerchantOriginRow, MerchantRow, QuoteKeyRow } from './rows.js';

export type { ApiKeyRow, ChannelRow, CurrencyRow, FeeRuleRow, MerchantChannelRow, MerchantOriginRow, MerchantRow, QuoteKeyRow } from './rows.js';

/** Everything the catalogue holds, as loaded from either engine. */
export interface CatalogRows {
  currencies: CurrencyRow[];
  merchants: MerchantRow[];
  apiKeys: ApiKeyRow[];
  channels: ChannelRow[];
  merchantChannels: MerchantChannelRow[];
  merchantOrigins: MerchantOriginRow[];
  feeRules: FeeRuleRow[];
  /** Fee quote signing keys (contract §11): a handful (one signing, the retired ones). Absent: none. */
  quoteKeys?: QuoteKeyRow[];
}

/** One `change_log` row. */
export interface ChangeRow {
  seq: number;
  entity: ChangeEntity;
  entityId: string;
  /** When the change was written (ISO 8601, UTC, milliseconds): the row's default, set in the change's own transaction. */
  at: string;
}

/**
 * The earliest commit time (epoch ms) of a batch of changes, for the change notification
 * ({@link CatalogueChange}); undefined when no row's `at` parses.
 */
export function committedAtOf(changes: readonly ChangeRow[]): number | undefined {
  let earliest: number | undefined;
  for (const change of changes) {
    const at = Date.parse(change.at);
    if (Number.isFinite(at) && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}

/** A merchant's current rows (merchant absent = deleted). */
export interface MerchantEntity {
  merchant: MerchantRow | undefined;
  keys: ApiKeyRow[];
  enablements: MerchantChannelRow[];
  /** Its allowed web origins (contract §9). */
  origins: MerchantOriginRow[];
  /** Its own pricing rules (scope MERCHANT, any channel, cancelled ones included); absent: none. */
  feeRules?: FeeRuleRow[];
}

/** A channel's current rows (row absent = deleted). */
export interface ChannelEntity {
  channel: ChannelRow | undefined;
  /** The channel's stored CHANNEL and CATEGORY rules (cancelled ones included); a merchant's rules come with the merchant. */
  feeRules: FeeRuleRow[];
}

/** The rows named by a batch of changes, loaded in one read. */
export interface ChangedEntities {
  merchants: Map<string, MerchantEntity>;
  channels: Map<string, ChannelEntity>;
  currencies: Map<string, CurrencyRow | undefined>;
  /**
   * Every quote signing key, when any of them changed (undefined: none did). Keys are few and change rarely
   * (a rotation), so a change reloads them all rather than one by one.
   */
  quoteKeys?: QuoteKeyRow[];
}

/** The distinct entities a batch of changes names, per kind. */
export function entitiesOf(changes: readonly ChangeRow[]): Record<ChangeEntity, string[]> {
  const out: Record<ChangeEntity, Set<string>> = { merchant: new Set(), channel: new Set(), currency: new Set(), quote_key: new Set() };
  for (const c of changes) out[c.entity].add(c.entityId);
  return { merchant: [...out.merchant], channel: [...out.channel], currency: [...out.currency], quote_key: [...out.quote_key] };
}

/** The rows an engine read for a batch of changes (each list may be empty). */
export interface ChangedRows {
  merchants: MerchantRow[];
  apiKeys: ApiKeyRow[];
  merchantChannels: MerchantChannelRow[];
  merchantOrigins: MerchantOriginRow[];
  /** The changed merchants' own rules (scope MERCHANT). */
  merchantFeeRules: FeeRuleRow[];
  channels: ChannelRow[];
  /** The changed channels' CHANNEL and CATEGORY rules. */
  feeRules: FeeRuleRow[];
  currencies: CurrencyRow[];
  /** Every quote key, read only when a quote key changed (else empty). */
  quoteKeys: QuoteKeyRow[];
}

function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = out.get(key);
    if (list) list.push(row);
    else out.set(key, [row]);
  }
  return out;
}

/** Group the rows read for `ids` by entity; an id without a row is a deletion. Linear in the rows and ids. */
export function assembleChanged(ids: Record<ChangeEntity, string[]>, rows: ChangedRows): ChangedEntities {
  const out: ChangedEntities = { merchants: new Map(), channels: new Map(), currencies: new Map(), ...(ids.quote_key.length > 0 ? { quoteKeys: rows.quoteKeys } : {}) };
  const merchants = new Map(rows.merchants.map((m) => [m.id, m]));
  const keys = groupBy(rows.apiKeys, (k) => k.merchantId);
  const enablements = groupBy(rows.merchantChannels, (e) => e.merchantId);
  const origins = groupBy(rows.merchantOrigins, (o) => o.merchantId);
  const ownRules = groupBy(rows.merchantFeeRules, (r) => r.merchantId ?? '');
  for (const id of ids.merchant) {
    out.merchants.set(id, { merchant: merchants.get(id), keys: keys.get(id) ?? [], enablements: enablements.get(id) ?? [], origins: origins.get(id) ?? [], feeRules: ownRules.get(id) ?? [] });
  }
  const channels = new Map(rows.channels.map((c) => [c.id, c]));
  const rules = groupBy(rows.feeRules, (r) => r.channelId);
  for (const id of ids.channel) out.channels.set(id, { channel: channels.get(id), feeRules: rules.get(id) ?? [] });
  const currencies = new Map(rows.currencies.map((c) => [c.code, c]));
  for (const code of ids.currency) out.currencies.set(code, currencies.get(code));
  return out;
}

/**
 * `ids` in chunks that fit one statement's bound variables on either engine (SQLite allows 32,766; Postgres
 * 65,535): a catch-up or a load may name any number of entities.
 */
export const ID_CHUNK = 10_000;

export function chunked<T>(ids: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += size) out.push(ids.slice(i, i + size));
  return out;
}

/** Rows a full load reads per statement: no statement grows with the number of merchants. */
export const LOAD_PAGE = 5_000;

/**
 * The per-merchant tables a full load reads whole (a quarter of a million rows and more at 100,000 merchants),
 * in the order the catalogue takes them, with their columns under the row types' names: read by hand-written,
 * paged statements in table order (SQLite: by rowid; Postgres: a cursor), without the ORM's per-row mapping.
 * Both engines accept the column lists.
 */
export const MERCHANT_TABLES = [
  { table: 'merchants', kind: 'merchants', columns: 'id, name, kyc_status as "kycStatus", created_at as "createdAt", category, channel_order as "channelOrder"' },
  { table: 'api_keys', kind: 'apiKeys', columns: 'id, merchant_id as "merchantId", mode, secret_ciphertext as "secretCiphertext", created_at as "createdAt", revoked_at as "revokedAt"' },
  {
    table: 'merchant_channels',
    kind: 'merchantChannels',
    columns:
      'merchant_id as "merchantId", channel_id as "channelId", fee_percentage as "feePercentage", fee_value as "feeValue", ' +
      'additional_fee_percentage as "additionalFeePercentage", additional_fee_value as "additionalFeeValue", min_amount as "minAmount", ' +
      'max_amount as "maxAmount", fee_charged_to_customer as "feeChargedToCustomer", created_at as "createdAt", fee_set_at as "feeSetAt"',
  },
  { table: 'merchant_origins', kind: 'merchantOrigins', columns: 'merchant_id as "merchantId", origin, created_at as "createdAt"' },
] as const;

/** Where a change log stands: its newest row (0: empty) and its oldest kept row (null: empty). */
export interface LogPosition {
  lastSeq: number;
  firstSeq: number | null;
}

/**
 * True when rows a replica at `appliedSeq` still needs may have been pruned, so it must reload everything:
 * the first row after it is not the next number, and the log no longer holds `appliedSeq` itself (pruning
 * removes a prefix, so rows between the two were pruned, or never committed: a rolled-back Postgres
 * transaction consumes a number). A replica exactly at such a gap reloads once more than needed; it never
 * misses a change.
 */
export function behindHorizon(appliedSeq: number, firstNewSeq: number, position: () => LogPosition): boolean {
  if (firstNewSeq <= appliedSeq + 1) return false;
  const { firstSeq } = position();
  return firstSeq !== null && firstSeq > appliedSeq;
}
