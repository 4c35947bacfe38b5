/**
 * The in-memory catalogue every request reads: merchants, API keys,
 * channels, per-merchant enablements and currencies, identical on SQLite and
 * Postgres. Requests never wait on a database round-trip: the engine's feed
 * (src/storage/sqlite/store.ts, src/storage/postgres/store.ts) loads everything once, then
 * applies the entities named by new `change_log` rows (written by triggers in
 * the committing transaction, so no writer can bypass them).
 *
 * Targeted invalidation: a merchant change rebuilds that merchant's derived
 * channel list only; a channel change rebuilds the lists of the merchants
 * that enable it; a currency change those of its channels' merchants.
 *
 * Memory: merchants without overrides (and without a merchant pricing rule)
 * share one effective record per channel and category, and an enablement
 * without overrides is one reference (see docs/SCALING.md, "Sizing").
 *
 * Scheduled pricing rules (contract §7): a rule that starts later changes
 * what requests see without any write, so the catalogue arms ONE timer at
 * the next rule transition of all channels; when it fires it drops the
 * records and lists of the merchants the starting rules apply to, bumps
 * `version` and their `merchantVersion`, and calls the transition listener
 * (the store's change listeners), exactly as a committed change would. Every
 * server does this on its own clock, so every replica switches at the instant.
 *
 * Invariants:
 * - every record handed out is shared and must be treated as read-only;
 * - a derived record or list is valid until the next transition: the timer
 *   is re-armed after every load/apply and after it fires;
 * - `version` changes whenever anything a request could see changed, and
 *   `merchantVersion(id)` whenever anything that merchant could see changed;
 * - `lastSeq` is the highest change-log sequence number already applied.
 */
import { createHash } from 'node:crypto';
import type { KycStatus } from '../../shared/vocabulary.js';
import type { ActiveKeyRecord } from '../../storage/model/records.js';
import type { ApiKeyRow, CatalogRows, ChangedEntities, ChannelRow, MerchantChannelRow, MerchantEntity, MerchantRow, QuoteKeyRow } from '../../storage/model/catalogue-rows.js';
import type { MerchantChannel } from './records.js';
import { FLAT_RULE_PREFIX, ruleFromRow, rulesForMerchant, type FeeRuleRow } from '../pricing/domain/fee-rules.js';
import { instructionSetFromColumn, type ChannelInstructions } from '../channels/domain/instructions.js';
import { nextTransition, parseInstant, ruleInForce, scheduledRules, type FeeRule, type RuleSubject } from '../pricing/domain/pricing.js';

/** Node's setTimeout limit (ms); farther transitions are reached by re-arming. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function byDisplayOrder(a: ChannelRow, b: ChannelRow): number {
  return a.sortOrder - b.sortOrder || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

/** The override columns of an enablement (null = the channel's value). */
type Overrides = Pick<
  MerchantChannelRow,
  'feePercentage' | 'feeValue' | 'additionalFeePercentage' | 'additionalFeeValue' | 'minAmount' | 'maxAmount' | 'feeChargedToCustomer' | 'feeSetAt'
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

/**
 * Each channel row's instructions, parsed once: a row is replaced (never modified) when its channel changes,
 * so the parse lives exactly as long as the row, and every merchant's record of the channel shares it.
 */
const parsedInstructions = new WeakMap<ChannelRow, { sets: ChannelInstructions; version: string }>();

/**
 * A channel row's instructions per language. The admin service validates what it writes; text written past
 * it (an operator's SQL) that does not validate is served as none, never as unchecked text.
 */
function instructionsOfRow(c: ChannelRow): { sets: ChannelInstructions; version: string } {
  let parsed = parsedInstructions.get(c);
  if (parsed === undefined) {
    // The same text gives the same version on every replica (a content digest, not a counter).
    const version = createHash('sha256').update(`${c.instructionsId ?? ''}\u0000${c.instructionsEn ?? ''}`).digest('base64url').slice(0, 16);
    parsed = { sets: { id: instructionSetFromColumn(c.instructionsId).set, en: instructionSetFromColumn(c.instructionsEn).set }, version };
    parsedInstructions.set(c, parsed);
  }
  return parsed;
}

/** Options of {@link Catalog}. */
export interface CatalogOptions {
  /** The clock rules are judged by (epoch ms; tests may inject one). */
  now?: () => number;
}

export class Catalog {
  readonly #now: () => number;
  #currencies = new Map<string, number>();
  /** merchant id → its allowed web origins (normalised, as browsers send them). */
  #origins = new Map<string, Set<string>>();
  /** Fee quote signing keys (contract §11): a handful, replaced as a whole when any changes. */
  #quoteKeys: readonly QuoteKeyRow[] = [];
  #merchants = new Map<string, MerchantRow>();
  #keys = new Map<string, ApiKeyRow>();
  #keysByMerchant = new Map<string, string[]>();
  #channels = new Map<string, ChannelRow>();
  #channelIdByCode = new Map<string, string>();
  /** merchantId → its enabled channels. */
  #enabled = new Map<string, Enabled[]>();
  /** `channelId NUL category` → the effective record of a merchant without overrides or merchant rules (shared by all such merchants of the category). */
  #baseRecords = new Map<string, MerchantChannel>();
  /** channelId → its stored fee rules. */
  #rules = new Map<string, FeeRule[]>();
  #timer: NodeJS.Timeout | null = null;
  /** The instant the timer is armed for (null: nothing scheduled). */
  #armedFor: number | null = null;
  /** Every transition up to this instant has been announced. */
  #announcedUpTo: number;
  #onTransition: (() => void) | null = null;
  #closed = false;
  /** Derived, per merchant: the effective channel list in display order (built on first use, bounded). */
  #lists = new Map<string, MerchantChannel[]>();
  #merchantVersions = new Map<string, number>();
  #epoch = 0;
  #changes = 0;
  #versionText = '0:0';
  #lastSeq = 0;

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
    this.#enabled = new Map();
    for (const e of rows.merchantChannels) this.#putEnablement(e);
    this.#origins = new Map();
    for (const o of rows.merchantOrigins) this.#putOrigin(o.merchantId, o.origin);
    this.#quoteKeys = rows.quoteKeys ?? [];
    this.#baseRecords.clear();
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
    const changedChannels = new Set<string>();
    for (const [code, row] of changed.currencies) {
      if (row) this.#currencies.set(code, row.minorUnits);
      else this.#currencies.delete(code);
      for (const channel of this.#channels.values()) if (channel.currency === code) changedChannels.add(channel.id);
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
      changedChannels.add(id);
    }
    if (changedChannels.size > 0) {
      this.#dropBaseRecords(changedChannels);
      // Channel changes are rare: a scan of all enablements beats keeping a reverse index in memory.
      for (const [merchantId, list] of this.#enabled) {
        if (list.some((e) => changedChannels.has(channelIdOf(e)))) touched.add(merchantId);
      }
    }
    for (const [id, entity] of changed.merchants) {
      this.#replaceMerchant(id, entity);
      touched.add(id);
    }
    if (changed.quoteKeys) this.#quoteKeys = changed.quoteKeys;
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

  /** Every fee quote signing key (contract §11): the one that signs and the retired ones. Read-only. */
  quoteKeys(): readonly QuoteKeyRow[] {
    return this.#quoteKeys;
  }

  /** True when `origin` (exactly as a browser sends it) is an allowed web origin of the merchant (contract §9). */
  originAllowed(merchantId: string, origin: string): boolean {
    return this.#origins.get(merchantId)?.has(origin) ?? false;
  }

  /** True when some merchant allows `origin` (a preflight, which carries no credentials). */
  isKnownOrigin(origin: string): boolean {
    for (const set of this.#origins.values()) if (set.has(origin)) return true;
    return false;
  }

  /** Decimals of a currency the service settles (undefined: unknown currency). */
  minorUnitsOf(code: string): number | undefined {
    return this.#currencies.get(code);
  }

  /** KYC status of a merchant (undefined: no such merchant). */
  kycOf(merchantId: string): KycStatus | undefined {
    return this.#merchants.get(merchantId)?.kycStatus;
  }

  /** A merchant's name (contract §14 `{{merchant_name}}`); undefined: no such merchant. */
  merchantNameOf(merchantId: string): string | undefined {
    return this.#merchants.get(merchantId)?.name;
  }

  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined {
    const id = this.#channelIdByCode.get(code);
    return id === undefined ? undefined : this.#channels.get(id)?.name;
  }

  /** True when a catalogue channel's Indonesian and English names differ (contract §12; its badge shows a symbol). */
  nameDiffersByLanguage(code: string): boolean {
    const id = this.#channelIdByCode.get(code);
    const c = id === undefined ? undefined : this.#channels.get(id);
    return c !== undefined && (c.nameId ?? c.name) !== (c.nameEn ?? c.name);
  }

  /** Every channel enabled for the merchant, catalogue values with its overrides applied, in display order. */
  listForMerchant(merchantId: string): MerchantChannel[] {
    let list = this.#lists.get(merchantId);
    if (list === undefined) {
      list = this.#buildList(merchantId);
      if (this.#lists.size >= MAX_CACHED_LISTS) this.#lists.clear();
      this.#lists.set(merchantId, list);
    }
    return list;
  }

  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): MerchantChannel | undefined {
    const id = this.#channelIdByCode.get(code);
    if (id === undefined) return undefined;
    const entry = this.#enabled.get(merchantId)?.find((e) => channelIdOf(e) === id);
    return entry === undefined ? undefined : this.#effective(merchantId, entry);
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

  #putRules(c: ChannelRow, rows: readonly FeeRuleRow[]): void {
    if (rows.length > 0) this.#rules.set(c.id, rows.map((r) => ruleFromRow(r, c.code)));
  }

  #dropBaseRecords(channelIds: ReadonlySet<string>): void {
    for (const key of this.#baseRecords.keys()) if (channelIds.has(key.slice(0, key.indexOf('\u0000')))) this.#baseRecords.delete(key);
  }

  /**
   * (Re-)arm the one transition timer at the next instant any rule starts
   * after what was last announced: stored rules, and flat settings written
   * with a (clock-skewed) future `fee_set_at`. Counting from the last
   * announcement, not from now, means a late timer (busy event loop) whose
   * transition a change re-arming in between would skip is announced at
   * once. Far instants are clamped to Node's timer limit and re-armed when
   * the clamped timer fires. Unref'd: it never keeps a process alive.
   */
  #arm(): void {
    if (this.#closed) return;
    const now = this.#now();
    const after = this.#announcedUpTo;
    const all: FeeRule[] = [];
    for (const rules of this.#rules.values()) all.push(...rules);
    let next = nextTransition(all, after);
    for (const c of this.#channels.values()) next = earliestAfter(next, c.feeSetAt, after);
    for (const list of this.#enabled.values()) for (const e of list) if (typeof e !== 'string') next = earliestAfter(next, e.overrides.feeSetAt, after);
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
    // A clamped far timer (or one a millisecond early) has nothing to announce yet: re-arm.
    if (this.#armedFor === null || now < this.#armedFor) {
      this.#armedFor = null;
      this.#arm();
      return;
    }
    const from = this.#announcedUpTo;
    this.#announcedUpTo = now;
    const { channels, merchants } = this.#transitions(from, now);
    this.#dropBaseRecords(channels);
    for (const m of merchants) {
      this.#lists.delete(m);
      this.#merchantVersions.set(m, (this.#merchantVersions.get(m) ?? 0) + 1);
    }
    this.#bump();
    this.#armedFor = null;
    this.#arm();
    this.#onTransition?.();
  }

  /** Channels with a rule (stored or implicit) starting in (from, to], and the merchants those rules apply to. */
  #transitions(from: number, to: number): { channels: Set<string>; merchants: Set<string> } {
    const starts = (text: string) => {
      const ms = parseInstant(text);
      return ms !== null && ms > from && ms <= to;
    };
    const starting = new Map<string, FeeRule[]>();
    for (const [channelId, rules] of this.#rules) {
      const now = rules.filter((r) => r.cancelledAt == null && starts(r.effectiveFrom));
      if (now.length > 0) starting.set(channelId, now);
    }
    const flatChannels = new Set([...this.#channels.values()].filter((c) => starts(c.feeSetAt)).map((c) => c.id));
    const channels = new Set([...starting.keys(), ...flatChannels]);
    const merchants = new Set<string>();
    // Transitions are rare: a scan of all enablements beats keeping a reverse index in memory.
    for (const [merchantId, list] of this.#enabled) {
      const category = this.#merchants.get(merchantId)?.category;
      for (const e of list) {
        const channelId = channelIdOf(e);
        const applies = (r: FeeRule) => r.scope === 'CHANNEL' || (r.scope === 'MERCHANT' && r.merchantId === merchantId) || (r.scope === 'CATEGORY' && r.category === category);
        if (flatChannels.has(channelId) || (starting.get(channelId) ?? []).some(applies) || (typeof e !== 'string' && starts(e.overrides.feeSetAt))) {
          merchants.add(merchantId);
          channels.add(channelId);
        }
      }
    }
    return { channels, merchants };
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
    // fee_set_at alone is no override: it only dates the fee columns (the implicit merchant rule).
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
            feeSetAt: e.feeSetAt,
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
    this.#origins.delete(id);
    if (!entity.merchant) {
      this.#merchants.delete(id);
      return;
    }
    this.#merchants.set(id, entity.merchant);
    for (const k of entity.keys) this.#putKey(k);
    for (const e of entity.enablements) this.#putEnablement(e);
    for (const o of entity.origins) this.#putOrigin(id, o.origin);
  }

  #putOrigin(merchantId: string, origin: string): void {
    const set = this.#origins.get(merchantId);
    if (set) set.add(origin);
    else this.#origins.set(merchantId, new Set([origin]));
  }

  /**
   * A channel's effective record for one merchant at this instant: catalogue
   * values, the merchant's overrides, and the pricing rule in force for it
   * (undefined: channel or currency missing).
   */
  #record(channelId: string, subject: RuleSubject, overrides: Overrides | undefined): MerchantChannel | undefined {
    const c = this.#channels.get(channelId);
    const minorUnits = c && this.#currencies.get(c.currency);
    // Foreign keys make both impossible; a row missing here is skipped rather than served half-built.
    if (!c || minorUnits === undefined) return undefined;
    const now = this.#now();
    const rules = rulesForMerchant(this.#rules.get(channelId) ?? [], c, overrides && { merchantId: subject.merchantId, ...overrides });
    // The implicit channel rule is in force from its fee_set_at; only a clock-skewed future one leaves nothing.
    const rule = ruleInForce(rules, subject, now) ?? rules.find((r) => r.scope === 'CHANNEL' && r.id.startsWith(FLAT_RULE_PREFIX))!;
    const o = overrides;
    return {
      id: c.id,
      code: c.code,
      name: c.name,
      names: { id: c.nameId ?? c.name, en: c.nameEn ?? c.name },
      group: c.channelGroup,
      imageUrl: c.imagePath,
      status: c.status,
      // Contract §10: true exactly when the customer's share of the rule in force is 100 (without a share, the bearer decides).
      isFeeChargedToCustomer: rule.settings?.customerShare != null ? rule.settings.customerShare === '100' : (o?.feeChargedToCustomer ?? c.feeChargedToCustomer),
      feeInfo: {
        feePercentage: rule.bands[0]!.percentage,
        feeValue: rule.bands[0]!.fixed,
        minTransactions: o?.minAmount ?? c.minAmount,
        maxTransactions: o?.maxAmount ?? c.maxAmount,
        additionalFeePercentage: o?.additionalFeePercentage ?? c.additionalFeePercentage,
        additionalFeeValue: o?.additionalFeeValue ?? c.additionalFeeValue,
      },
      pricing: { rule, scheduled: scheduledRules(rules, subject, now) },
      currency: c.currency,
      minorUnits,
      requiresKyc: c.requiresKyc,
      instructions: instructionsOfRow(c).sets,
      instructionsVersion: instructionsOfRow(c).version,
    };
  }

  #effective(merchantId: string, entry: Enabled): MerchantChannel | undefined {
    const category = this.#merchants.get(merchantId)?.category;
    if (category === undefined) return undefined;
    const channelId = channelIdOf(entry);
    const ownRule = (this.#rules.get(channelId) ?? []).some((r) => r.scope === 'MERCHANT' && r.merchantId === merchantId);
    if (typeof entry !== 'string' || ownRule) return this.#record(channelId, { merchantId, category }, typeof entry === 'string' ? undefined : entry.overrides);
    // Shared by every merchant of the category without overrides or rules of its own (merchant rules of others never match '').
    const key = `${channelId}\u0000${category}`;
    let record = this.#baseRecords.get(key);
    if (record === undefined) {
      record = this.#record(channelId, { merchantId: '', category }, undefined);
      if (record) this.#baseRecords.set(key, record);
    }
    return record;
  }

  #buildList(merchantId: string): MerchantChannel[] {
    const out: { channel: ChannelRow; record: MerchantChannel }[] = [];
    for (const entry of this.#enabled.get(merchantId) ?? []) {
      const record = this.#effective(merchantId, entry);
      if (record) out.push({ channel: this.#channels.get(record.id)!, record });
    }
    // Contract §12: the merchant's named channels first, in its order; the others after, in the default order.
    const position = merchantPositions(this.#merchants.get(merchantId)?.channelOrder ?? null);
    const rank = (code: string) => position.get(code) ?? Number.MAX_SAFE_INTEGER;
    out.sort((a, b) => rank(a.channel.code) - rank(b.channel.code) || byDisplayOrder(a.channel, b.channel));
    return out.map((x) => x.record);
  }
}

/**
 * code → position in a merchant's stored channel order (a JSON array of codes written by the admin service).
 * A value that is no such array, which only hand-written SQL could store, means the default order: one
 * merchant's bad row must not fail its every request, and `merchant channels order` overwrites it.
 */
function merchantPositions(text: string | null): Map<string, number> {
  const positions = new Map<string, number>();
  if (text === null) return positions;
  let codes: unknown;
  try {
    codes = JSON.parse(text);
  } catch {
    return positions; // malformed hand-written value: the default order (see above)
  }
  if (Array.isArray(codes)) codes.forEach((code, i) => typeof code === 'string' && !positions.has(code) && positions.set(code, i));
  return positions;
}

/** The earlier of `current` and the instant `text` when that is after `after`. */
function earliestAfter(current: number | null, text: string, after: number): number | null {
  const ms = parseInstant(text);
  if (ms === null || ms <= after) return current;
  return current === null || ms < current ? ms : current;
}
