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
 * Scheduled pricing rules (contract §7): a rule that starts later changes
 * what requests see without any write, so the catalogue arms ONE timer at
 * the next rule transition of all channels; when it fires it rebuilds the
 * lists of the merchants the starting rules apply to, bumps `version` and
 * their `merchantVersion`, and calls the transition listener (the store's
 * change listeners), exactly as a committed change would. Every server does
 * this on its own clock, so every replica switches at the instant.
 *
 * Invariants:
 * - every record handed out is shared and must be treated as read-only;
 * - a cached list is valid until the next transition: the timer is re-armed
 *   after every load/apply and after it fires;
 * - `version` changes whenever anything a request could see changed, and
 *   `merchantVersion(id)` whenever anything that merchant could see changed;
 * - `lastSeq` is the highest change-log sequence number already applied.
 */
import type { apiKeys, channels, currencies, merchantChannels, merchants } from './schema.js';
import type { ChangeEntity, KycStatus } from './schema.js';
import type { ActiveKeyRecord } from '../repositories/merchants.js';
import type { EffectiveChannelRecord } from '../repositories/channels.js';
import { FLAT_RULE_PREFIX, ruleFromRow, rulesForMerchant, type FeeRuleRow } from '../domain/fee-rules.js';
import { nextTransition, parseInstant, ruleInForce, scheduledRules, type FeeRule } from '../domain/pricing.js';

/** Node's setTimeout limit (ms); farther transitions are reached by re-arming. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  feeRules: FeeRuleRow[];
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
  feeRules: FeeRuleRow[];
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
  for (const id of ids.channel) out.channels.set(id, { channel: rows.channels.find((c) => c.id === id), feeRules: rows.feeRules.filter((r) => r.channelId === id) });
  for (const code of ids.currency) out.currencies.set(code, rows.currencies.find((c) => c.code === code));
  return out;
}

function byDisplayOrder(a: ChannelRow, b: ChannelRow): number {
  return a.sortOrder - b.sortOrder || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

/** Options of {@link Catalog}. */
export interface CatalogOptions {
  /** The clock rules are judged by (epoch ms; tests may inject one). */
  now?: () => number;
}

export class Catalog {
  readonly #now: () => number;
  #currencies = new Map<string, number>();
  #merchants = new Map<string, MerchantRow>();
  #keys = new Map<string, ApiKeyRow>();
  #keysByMerchant = new Map<string, Set<string>>();
  #channels = new Map<string, ChannelRow>();
  #channelIdByCode = new Map<string, string>();
  /** merchantId → channelId → enablement row. */
  #enablements = new Map<string, Map<string, MerchantChannelRow>>();
  /** channelId → merchants that enable it (to invalidate their lists on a channel change). */
  #enabledBy = new Map<string, Set<string>>();
  /** Derived, per merchant: the effective channel list in display order (built on first use). */
  #lists = new Map<string, EffectiveChannelRecord[]>();
  #merchantVersions = new Map<string, number>();
  #epoch = 0;
  #changes = 0;
  #versionText = '0:0';
  #lastSeq = 0;
  /** channelId → its stored fee rules. */
  #rules = new Map<string, FeeRule[]>();
  #timer: NodeJS.Timeout | null = null;
  /** The instant the timer is armed for (null: nothing scheduled). */
  #armedFor: number | null = null;
  /** Everything up to this instant has been announced (lists built before it are current up to it). */
  #announcedUpTo: number;
  #onTransition: (() => void) | null = null;
  #closed = false;

  constructor(options: CatalogOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#announcedUpTo = this.#now();
  }

  /** Called after a scheduled rule took effect (the store forwards it to its change listeners). */
  onTransition(listener: () => void): void {
    this.#onTransition = listener;
  }

  /** The instant the transition timer is armed for, or null (tests, diagnostics). */
  get nextTransitionAt(): number | null {
    return this.#armedFor;
  }

  /** Stop the transition timer for good. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedFor = null;
  }

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
    this.#rules = new Map();
    for (const c of rows.channels) this.#putRules(c, rows.feeRules.filter((r) => r.channelId === c.id));
    this.#enablements = new Map();
    this.#enabledBy = new Map();
    for (const e of rows.merchantChannels) this.#putEnablement(e);
    this.#lists.clear();
    this.#merchantVersions.clear();
    this.#epoch += 1;
    this.#lastSeq = lastSeq;
    this.#bump();
    this.#arm();
  }

  /** Apply the reloaded rows of a batch of changes up to `lastSeq`. */
  apply(changed: ChangedEntities, lastSeq: number): void {
    const touched = new Set<string>();
    for (const [code, row] of changed.currencies) {
      if (row) this.#currencies.set(code, row.minorUnits);
      else this.#currencies.delete(code);
      for (const channel of this.#channels.values()) {
        if (channel.currency === code) for (const m of this.#enabledBy.get(channel.id) ?? []) touched.add(m);
      }
    }
    for (const [id, { channel: row, feeRules }] of changed.channels) {
      const previous = this.#channels.get(id);
      if (previous) {
        this.#channels.delete(id);
        if (this.#channelIdByCode.get(previous.code) === id) this.#channelIdByCode.delete(previous.code);
      }
      this.#rules.delete(id);
      if (row) {
        this.#putChannel(row);
        this.#putRules(row, feeRules);
      }
      for (const m of this.#enabledBy.get(id) ?? []) touched.add(m);
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
    this.#arm();
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
      this.#lists.set(merchantId, list);
    }
    return list;
  }

  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): EffectiveChannelRecord | undefined {
    const id = this.#channelIdByCode.get(code);
    if (id === undefined || !this.#enablements.get(merchantId)?.has(id)) return undefined;
    return this.listForMerchant(merchantId).find((c) => c.id === id);
  }

  /** Counts, for sizing and logs. */
  stats(): { merchants: number; keys: number; channels: number; enablements: number } {
    let enablements = 0;
    for (const m of this.#enablements.values()) enablements += m.size;
    return { merchants: this.#merchants.size, keys: this.#keys.size, channels: this.#channels.size, enablements };
  }

  #bump(): void {
    this.#changes += 1;
    this.#versionText = `${this.#epoch}:${this.#changes}`;
  }

  #putRules(c: ChannelRow, rows: readonly FeeRuleRow[]): void {
    if (rows.length > 0) this.#rules.set(c.id, rows.map((r) => ruleFromRow(r, c.code)));
  }

  /**
   * (Re-)arm the one transition timer at the next instant any rule starts:
   * stored rules, and flat settings written with a (clock-skewed) future
   * `fee_set_at`. Far instants are clamped to Node's timer limit and
   * re-armed when the clamped timer fires. Unref'd: it never keeps a
   * process alive.
   */
  #arm(): void {
    if (this.#closed) return;
    const now = this.#now();
    // From what has been announced, not from now: a transition whose timer was late (busy event loop) and
    // that a change re-arming in between would otherwise skip is announced at once.
    const after = this.#announcedUpTo;
    const all: FeeRule[] = [];
    for (const rules of this.#rules.values()) all.push(...rules);
    let next = nextTransition(all, after);
    for (const c of this.#channels.values()) next = earliestAfter(next, c.feeSetAt, after);
    for (const byChannel of this.#enablements.values()) for (const e of byChannel.values()) next = earliestAfter(next, e.feeSetAt, after);
    if (next === this.#armedFor && this.#timer) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedFor = next;
    if (next === null) return;
    this.#timer = setTimeout(() => this.#fire(), Math.min(Math.max(next - now, 0), MAX_TIMER_MS));
    this.#timer.unref();
  }

  /** The timer fired: announce every transition in (announcedUpTo, now]. */
  #fire(): void {
    this.#timer = null;
    const now = this.#now();
    // A clamped far timer (or a timer a millisecond early) has nothing to announce yet: re-arm.
    if (this.#armedFor === null || now < this.#armedFor) {
      this.#armedFor = null;
      this.#arm();
      return;
    }
    const from = this.#announcedUpTo;
    this.#announcedUpTo = now;
    const touched = this.#merchantsWithTransitions(from, now);
    for (const m of touched) {
      this.#lists.delete(m);
      this.#merchantVersions.set(m, (this.#merchantVersions.get(m) ?? 0) + 1);
    }
    this.#bump();
    this.#armedFor = null;
    this.#arm();
    this.#onTransition?.();
  }

  /** Merchants whose rules (stored or implicit) have a start in (from, to]. */
  #merchantsWithTransitions(from: number, to: number): Set<string> {
    const starts = (text: string) => {
      const ms = parseInstant(text);
      return ms !== null && ms > from && ms <= to;
    };
    const touched = new Set<string>();
    for (const [channelId, rules] of this.#rules) {
      const enabledBy = this.#enabledBy.get(channelId) ?? new Set<string>();
      for (const r of rules) {
        if (r.cancelledAt != null || !starts(r.effectiveFrom)) continue;
        for (const m of enabledBy) {
          if (r.scope === 'CHANNEL' || (r.scope === 'MERCHANT' && r.merchantId === m) || (r.scope === 'CATEGORY' && this.#merchants.get(m)?.category === r.category)) touched.add(m);
        }
      }
    }
    for (const c of this.#channels.values()) if (starts(c.feeSetAt)) for (const m of this.#enabledBy.get(c.id) ?? []) touched.add(m);
    for (const [m, byChannel] of this.#enablements) for (const e of byChannel.values()) if (starts(e.feeSetAt)) touched.add(m);
    return touched;
  }

  #putKey(k: ApiKeyRow): void {
    this.#keys.set(k.id, k);
    let set = this.#keysByMerchant.get(k.merchantId);
    if (!set) this.#keysByMerchant.set(k.merchantId, (set = new Set()));
    set.add(k.id);
  }

  #putChannel(c: ChannelRow): void {
    this.#channels.set(c.id, c);
    this.#channelIdByCode.set(c.code, c.id);
  }

  #putEnablement(e: MerchantChannelRow): void {
    let forMerchant = this.#enablements.get(e.merchantId);
    if (!forMerchant) this.#enablements.set(e.merchantId, (forMerchant = new Map()));
    forMerchant.set(e.channelId, e);
    let merchantsOf = this.#enabledBy.get(e.channelId);
    if (!merchantsOf) this.#enabledBy.set(e.channelId, (merchantsOf = new Set()));
    merchantsOf.add(e.merchantId);
  }

  #replaceMerchant(id: string, entity: MerchantEntity): void {
    for (const keyId of this.#keysByMerchant.get(id) ?? []) this.#keys.delete(keyId);
    this.#keysByMerchant.delete(id);
    for (const channelId of this.#enablements.get(id)?.keys() ?? []) this.#enabledBy.get(channelId)?.delete(id);
    this.#enablements.delete(id);
    if (!entity.merchant) {
      this.#merchants.delete(id);
      return;
    }
    this.#merchants.set(id, entity.merchant);
    for (const k of entity.keys) this.#putKey(k);
    for (const e of entity.enablements) this.#putEnablement(e);
  }

  #buildList(merchantId: string): EffectiveChannelRecord[] {
    const enabled = this.#enablements.get(merchantId);
    const merchant = this.#merchants.get(merchantId);
    if (!enabled || !merchant) return [];
    const now = this.#now();
    const subject = { merchantId, category: merchant.category };
    const out: { channel: ChannelRow; record: EffectiveChannelRecord }[] = [];
    for (const [channelId, o] of enabled) {
      const c = this.#channels.get(channelId);
      const minorUnits = c && this.#currencies.get(c.currency);
      // Foreign keys make both impossible; a row missing here is skipped rather than served half-built.
      if (!c || minorUnits === undefined) continue;
      const rules = rulesForMerchant(this.#rules.get(c.id) ?? [], c, o);
      // The implicit channel rule is in force from its fee_set_at; only a clock-skewed future one leaves nothing.
      const rule = ruleInForce(rules, subject, now) ?? rules.find((r) => r.scope === 'CHANNEL' && r.id.startsWith(FLAT_RULE_PREFIX))!;
      const scheduled = scheduledRules(rules, subject, now);
      out.push({
        channel: c,
        record: {
          id: c.id,
          code: c.code,
          name: c.name,
          imagePath: c.imagePath,
          status: c.status,
          currency: c.currency,
          minorUnits,
          feePercentage: rule.bands[0]!.percentage,
          feeValue: rule.bands[0]!.fixed,
          pricing: { rule, scheduled },
          additionalFeePercentage: o.additionalFeePercentage ?? c.additionalFeePercentage,
          additionalFeeValue: o.additionalFeeValue ?? c.additionalFeeValue,
          minAmount: o.minAmount ?? c.minAmount,
          maxAmount: o.maxAmount ?? c.maxAmount,
          feeChargedToCustomer: o.feeChargedToCustomer ?? c.feeChargedToCustomer,
          requiresKyc: c.requiresKyc,
        },
      });
    }
    out.sort((a, b) => byDisplayOrder(a.channel, b.channel));
    return out.map((x) => x.record);
  }
}

/** The earlier of `current` and the instant `text` when that is after `after`. */
function earliestAfter(current: number | null, text: string, after: number): number | null {
  const ms = parseInstant(text);
  if (ms === null || ms <= after) return current;
  return current === null || ms < current ? ms : current;
}
