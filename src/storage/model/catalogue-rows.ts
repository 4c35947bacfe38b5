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
}

/** A channel's current rows (row absent = deleted). */
export interface ChannelEntity {
  channel: ChannelRow | undefined;
  /** Every stored fee rule of the channel (cancelled ones included). */
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
  channels: ChannelRow[];
  feeRules: FeeRuleRow[];
  currencies: CurrencyRow[];
  /** Every quote key, read only when a quote key changed (else empty). */
  quoteKeys: QuoteKeyRow[];
}

/** Group the rows read for `ids` by entity; an id without a row is a deletion. */
export function assembleChanged(ids: Record<ChangeEntity, string[]>, rows: ChangedRows): ChangedEntities {
  const out: ChangedEntities = { merchants: new Map(), channels: new Map(), currencies: new Map(), ...(ids.quote_key.length > 0 ? { quoteKeys: rows.quoteKeys } : {}) };
  for (const id of ids.merchant) {
    out.merchants.set(id, {
      merchant: rows.merchants.find((m) => m.id === id),
      keys: rows.apiKeys.filter((k) => k.merchantId === id),
      enablements: rows.merchantChannels.filter((e) => e.merchantId === id),
      origins: rows.merchantOrigins.filter((o) => o.merchantId === id),
    });
  }
  for (const id of ids.channel) out.channels.set(id, { channel: rows.channels.find((c) => c.id === id), feeRules: rows.feeRules.filter((r) => r.channelId === id) });
  for (const code of ids.currency) out.currencies.set(code, rows.currencies.find((c) => c.code === code));
  return out;
}
