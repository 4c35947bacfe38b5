/**
 * The in-memory catalogue every request reads: merchants, API keys,
 * channels, per-merchant enablements and currencies, identical on SQLite and
 * Postgres. Requests never wait on a database round-trip: the engine's feed
 * (src/db/sqlite-store.ts, src/db/pg-store.ts) loads everything once, then
 * applies the entities named by new `change_log` rows (written by triggers in
 * the committing transaction, so no writer can bypass them).
 *
 * Targeted invalidation: a merchant change rebuilds that merchant's derived
 * channel list only; a channel change rebuilds the lists of the merchants
 * that enable it; a currency change those of its channels' merchants.
 *
 * Memory: merchants without overrides share one effective record per
 * channel, and an enablement without overrides is one reference (see
 * docs/SCALING.md, "Sizing").
 *
 * Invariants:
 * - every record handed out is shared and must be treated as read-only;
 * - `version` changes whenever anything a request could see changed, and
 *   `merchantVersion(id)` whenever anything that merchant could see changed;
 * - `lastSeq` is the highest change-log sequence number already applied.
 */
import type { apiKeys, channels, currencies, merchantChannels, merchants } from './schema.js';
import type { ChangeEntity, KycStatus } from './schema.js';
import type { ActiveKeyRecord } from '../repositories/merchants.js';
import type { EffectiveChannelRecord } from '../repositories/channels.js';

export type MerchantRow = typeof merchants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type ChannelRow = typeof channels.$inferSelect;
export type MerchantChannelRow = typeof merchantChannels.$inferSelect;
export type CurrencyRow = typeof currencies.$inferSelect;

/** Everything the catalogue holds, as loaded from either engine. */
export interface CatalogRows {
  currencies: CurrencyRow[];
  merchants: MerchantRow[];
  apiKeys: ApiKeyRow[];
  channels: ChannelRow[];
  merchantChannels: MerchantChannelRow[];
}

/** One `change_log` row. */
export interface ChangeRow {
  seq: number;
  entity: ChangeEntity;
  entityId: string;
}

/** A merchant's current rows (merchant absent = deleted). */
export interface MerchantEntity {
  merchant: MerchantRow | undefined;
  keys: ApiKeyRow[];
  enablements: MerchantChannelRow[];
}

/** The rows named by a batch of changes, loaded in one read. */
export interface ChangedEntities {
  merchants: Map<string, MerchantEntity>;
  channels: Map<string, ChannelRow | undefined>;
  currencies: Map<string, CurrencyRow | undefined>;
}

/** The distinct entities a batch of changes names, per kind. */
export function entitiesOf(changes: readonly ChangeRow[]): Record<ChangeEntity, string[]> {
  const out: Record<ChangeEntity, Set<string>> = { merchant: new Set(), channel: new Set(), currency: new Set() };
  for (const c of changes) out[c.entity].add(c.entityId);
  return { merchant: [...out.merchant], channel: [...out.channel], currency: [...out.currency] };
}

/** The rows an engine read for a batch of changes (each list may be empty). */
export interface ChangedRows {
  merchants: MerchantRow[];
  apiKeys: ApiKeyRow[];
  merchantChannels: MerchantChannelRow[];
  channels: ChannelRow[];
  currencies: CurrencyRow[];
}

/** Group the rows read for `ids` by entity; an id without a row is a deletion. */
export function assembleChanged(ids: Record<ChangeEntity, string[]>, rows: ChangedRows): ChangedEntities {
  const out: ChangedEntities = { merchants: new Map(), channels: new Map(), currencies: new Map() };
  for (const id of ids.merchant) {
    out.merchants.set(id, {
      merchant: rows.merchants.find((m) => m.id === id),
      keys: rows.apiKeys.filter((k) => k.merchantId === id),
      enablements: rows.merchantChannels.filter((e) => e.merchantId === id),
    });
  }
  for (const id of ids.channel) out.channels.set(id, rows.channels.find((c) => c.id === id));
  for (const code of ids.currency) out.currencies.set(code, rows.currencies.find((c) => c.code === code));
  return out;
}

function byDisplayOrder(a: ChannelRow, b: ChannelRow): number {
  return a.sortOrder - b.sortOrder || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

/** The override columns of an enablement (null = the channel's value). */
type Overrides = Pick<
  MerchantChannelRow,
  'feePercentage' | 'feeValue' | 'additionalFeePercentage' | 'additionalFeeValue' | 'minAmount' | 'maxAmount' | 'feeChargedToCustomer'
>;

/**
 * One enabled channel of a merchant, stored compactly: the channel's own id
 * string (interned: the very string of the channel row) when the merchant
 * has no overrides — 8 bytes per enablement, which matters at 100,000
 * merchants × N channels — or an object when it has some.
 */
type Enabled = string | { channelId: string; overrides: Overrides };

const channelIdOf = (e: Enabled): string => (typeof e === 'string' ? e : e.channelId);

/** Derived lists kept at most (cheap to rebuild: each is a handful of shared records). */
const MAX_CACHED_LISTS = 20_000;

export class Catalog {
  #currencies = new Map<string, number>();
  #merchants = new Map<string, MerchantRow>();
  #keys = new Map<string, ApiKeyRow>();
  #keysByMerchant = new Map<string, string[]>();
  #channels = new Map<string, ChannelRow>();
  #channelIdByCode = new Map<string, string>();
  /** merchantId → its enabled channels. */
  #enabled = new Map<string, Enabled[]>();
  /** channelId → the effective record of a merchant without overrides (shared by all such merchants). */
  #baseRecords = new Map<string, EffectiveChannelRecord>();
  /** Derived, per merchant: the effective channel list in display order (built on first use, bounded). */
  #lists = new Map<string, EffectiveChannelRecord[]>();
  #merchantVersions = new Map<string, number>();
  #epoch = 0;
  #changes = 0;
  #versionText = '0:0';
  #lastSeq = 0;

  /** Highest change-log sequence number applied. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Changes whenever anything any request could see changed. */
  get version(): string {
    return this.#versionText;
  }

  /** Changes whenever anything this merchant could see changed (its rows, its channels, their currencies). */
  merchantVersion(merchantId: string): string {
    return `${this.#epoch}:${this.#merchantVersions.get(merchantId) ?? 0}`;
  }

  /** Replace everything (first load, and after a reconnect where changes may have been missed). */
  replaceAll(rows: CatalogRows, lastSeq: number): void {
    this.#currencies = new Map(rows.currencies.map((c) => [c.code, c.minorUnits]));
    this.#merchants = new Map(rows.merchants.map((m) => [m.id, m]));
    this.#keys = new Map();
    this.#keysByMerchant = new Map();
    for (const k of rows.apiKeys) this.#putKey(k);
    this.#channels = new Map();
    this.#channelIdByCode = new Map();
    for (const c of rows.channels) this.#putChannel(c);
    this.#enabled = new Map();
    for (const e of rows.merchantChannels) this.#putEnablement(e);
    this.#baseRecords.clear();
    this.#lists.clear();
    this.#merchantVersions.clear();
    this.#epoch += 1;
    this.#lastSeq = lastSeq;
    this.#bump();
  }

  /** Apply the reloaded rows of a batch of changes up to `lastSeq`. */
  apply(changed: ChangedEntities, lastSeq: number): void {
    const touched = new Set<string>();
    const changedChannels = new Set<string>();
    for (const [code, row] of changed.currencies) {
      if (row) this.#currencies.set(code, row.minorUnits);
      else this.#currencies.delete(code);
      for (const channel of this.#channels.values()) if (channel.currency === code) changedChannels.add(channel.id);
    }
    for (const [id, row] of changed.channels) {
      const previous = this.#channels.get(id);
      if (previous) {
        this.#channels.delete(id);
        if (this.#channelIdByCode.get(previous.code) === id) this.#channelIdByCode.delete(previous.code);
      }
      if (row) this.#putChannel(row);
      changedChannels.add(id);
    }
    if (changedChannels.size > 0) {
      for (const id of changedChannels) this.#baseRecords.delete(id);
      // Channel changes are rare: a scan of all enablements beats keeping a reverse index in memory.
      for (const [merchantId, list] of this.#enabled) {
        if (list.some((e) => changedChannels.has(channelIdOf(e)))) touched.add(merchantId);
      }
    }
    for (const [id, entity] of changed.merchants) {
      this.#replaceMerchant(id, entity);
      touched.add(id);
    }
    for (const m of touched) {
      this.#lists.delete(m);
      this.#merchantVersions.set(m, (this.#merchantVersions.get(m) ?? 0) + 1);
    }
    this.#lastSeq = Math.max(this.#lastSeq, lastSeq);
    this.#bump();
  }

  /** The key with this id if it exists and is not revoked, with what authentication needs. */
  findActiveKey(keyId: string): ActiveKeyRecord | undefined {
    const key = this.#keys.get(keyId);
    if (!key || key.revokedAt !== null) return undefined;
    const merchant = this.#merchants.get(key.merchantId);
    if (!merchant) return undefined;
    return { keyId: key.id, mode: key.mode, secretCiphertext: key.secretCiphertext, merchantId: merchant.id, merchantKyc: merchant.kycStatus };
  }

  /** KYC status of a merchant (undefined: no such merchant). */
  kycOf(merchantId: string): KycStatus | undefined {
    return this.#merchants.get(merchantId)?.kycStatus;
  }

  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined {
    const id = this.#channelIdByCode.get(code);
    return id === undefined ? undefined : this.#channels.get(id)?.name;
  }

  /** Every channel enabled for the merchant, catalogue values with its overrides applied, in display order. */
  listForMerchant(merchantId: string): EffectiveChannelRecord[] {
    let list = this.#lists.get(merchantId);
    if (list === undefined) {
      list = this.#buildList(merchantId);
      if (this.#lists.size >= MAX_CACHED_LISTS) this.#lists.clear();
      this.#lists.set(merchantId, list);
    }
    return list;
  }

  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): EffectiveChannelRecord | undefined {
    const id = this.#channelIdByCode.get(code);
    if (id === undefined) return undefined;
    const entry = this.#enabled.get(merchantId)?.find((e) => channelIdOf(e) === id);
    return entry === undefined ? undefined : this.#effective(entry);
  }

  /** Counts, for sizing and logs. */
  stats(): { merchants: number; keys: number; channels: number; enablements: number } {
    let enablements = 0;
    for (const list of this.#enabled.values()) enablements += list.length;
    return { merchants: this.#merchants.size, keys: this.#keys.size, channels: this.#channels.size, enablements };
  }

  #bump(): void {
    this.#changes += 1;
    this.#versionText = `${this.#epoch}:${this.#changes}`;
  }

  #putKey(k: ApiKeyRow): void {
    this.#keys.set(k.id, k);
    const list = this.#keysByMerchant.get(k.merchantId);
    if (list) list.push(k.id);
    else this.#keysByMerchant.set(k.merchantId, [k.id]);
  }

  #putChannel(c: ChannelRow): void {
    this.#channels.set(c.id, c);
    this.#channelIdByCode.set(c.code, c.id);
  }

  #putEnablement(e: MerchantChannelRow): void {
    // The channel row's own string, so 100,000 merchants share one copy of each channel id.
    const channelId = this.#channels.get(e.channelId)?.id ?? e.channelId;
    const hasOverrides =
      e.feePercentage !== null ||
      e.feeValue !== null ||
      e.additionalFeePercentage !== null ||
      e.additionalFeeValue !== null ||
      e.minAmount !== null ||
      e.maxAmount !== null ||
      e.feeChargedToCustomer !== null;
    const entry: Enabled = hasOverrides
      ? {
          channelId,
          overrides: {
            feePercentage: e.feePercentage,
            feeValue: e.feeValue,
            additionalFeePercentage: e.additionalFeePercentage,
            additionalFeeValue: e.additionalFeeValue,
            minAmount: e.minAmount,
            maxAmount: e.maxAmount,
            feeChargedToCustomer: e.feeChargedToCustomer,
          },
        }
      : channelId;
    const list = this.#enabled.get(e.merchantId);
    if (list) list.push(entry);
    else this.#enabled.set(e.merchantId, [entry]);
  }

  #replaceMerchant(id: string, entity: MerchantEntity): void {
    for (const keyId of this.#keysByMerchant.get(id) ?? []) this.#keys.delete(keyId);
    this.#keysByMerchant.delete(id);
    this.#enabled.delete(id);
    if (!entity.merchant) {
      this.#merchants.delete(id);
      return;
    }
    this.#merchants.set(id, entity.merchant);
    for (const k of entity.keys) this.#putKey(k);
    for (const e of entity.enablements) this.#putEnablement(e);
  }

  /** The shared record of a channel as a merchant without overrides sees it (undefined: channel or currency missing). */
  #base(channelId: string): EffectiveChannelRecord | undefined {
    let record = this.#baseRecords.get(channelId);
    if (record === undefined) {
      const c = this.#channels.get(channelId);
      const minorUnits = c && this.#currencies.get(c.currency);
      // Foreign keys make both impossible; a row missing here is skipped rather than served half-built.
      if (!c || minorUnits === undefined) return undefined;
      record = {
        id: c.id,
        code: c.code,
        name: c.name,
        imagePath: c.imagePath,
        status: c.status,
        currency: c.currency,
        minorUnits,
        feePercentage: c.feePercentage,
        feeValue: c.feeValue,
        additionalFeePercentage: c.additionalFeePercentage,
        additionalFeeValue: c.additionalFeeValue,
        minAmount: c.minAmount,
        maxAmount: c.maxAmount,
        feeChargedToCustomer: c.feeChargedToCustomer,
        requiresKyc: c.requiresKyc,
      };
      this.#baseRecords.set(channelId, record);
    }
    return record;
  }

  #effective(entry: Enabled): EffectiveChannelRecord | undefined {
    if (typeof entry === 'string') return this.#base(entry);
    const base = this.#base(entry.channelId);
    if (!base) return undefined;
    const o = entry.overrides;
    return {
      ...base,
      feePercentage: o.feePercentage ?? base.feePercentage,
      feeValue: o.feeValue ?? base.feeValue,
      additionalFeePercentage: o.additionalFeePercentage ?? base.additionalFeePercentage,
      additionalFeeValue: o.additionalFeeValue ?? base.additionalFeeValue,
      minAmount: o.minAmount ?? base.minAmount,
      maxAmount: o.maxAmount ?? base.maxAmount,
      feeChargedToCustomer: o.feeChargedToCustomer ?? base.feeChargedToCustomer,
    };
  }

  #buildList(merchantId: string): EffectiveChannelRecord[] {
    const out: { channel: ChannelRow; record: EffectiveChannelRecord }[] = [];
    for (const entry of this.#enabled.get(merchantId) ?? []) {
      const record = this.#effective(entry);
      if (record) out.push({ channel: this.#channels.get(record.id)!, record });
    }
    out.sort((a, b) => byDisplayOrder(a.channel, b.channel));
    return out.map((x) => x.record);
  }
}
