/**
 * The in-memory catalogue every request reads: merchants, API keys,
 * channels, per-merchant enablements and currencies, identical on SQLite and
 * Postgres. Requests never wait on a database round-trip: the engine's feed
 * (src/storage/sqlite/store.ts, src/storage/postgres/store.ts) loads everything once, in batches, into a
 * catalogue built beside the live one and swapped in ({@link Catalog.beginLoad}), then applies the entities
 * named by new `change_log` rows (written by triggers in the committing transaction, so no writer can
 * bypass them), a slice at a time.
 *
 * A change costs what it touches (contract §15); nothing on the change path scans all merchants:
 * - a merchant change replaces that merchant's rows (keys, enablements, origins, its own pricing rules),
 *   drops its derived list and bumps its `merchantVersion`;
 * - a channel or currency change bumps the generation of those channels (a merchant's version includes the
 *   generations of the channels it enables, so exactly their merchants see a new version), drops the shared
 *   per-category records of those channels and the derived lists (a bounded cache, rebuilt on first use):
 *   O(channels), whatever the number of merchants;
 * - scheduled rules sit in an index by instant (below), so re-arming the timer looks at pending instants
 *   only, and a transition invalidates exactly its channel (channel and category rules) or its merchant
 *   (merchant rules, dated overrides).
 *
 * Memory: merchants without overrides (and without a merchant pricing rule)
 * share one effective record per channel and category, an enablement
 * without overrides is one reference, and merchants enabling the same channels without overrides share one
 * frozen enablement list (see docs/ARCHITECTURE.md, "The data path").
 *
 * Scheduled pricing rules (contract §7): a rule that starts later changes
 * what requests see without any write, so the catalogue arms ONE timer at
 * the earliest pending instant; when it fires it drops the records and lists that instant's rules apply to,
 * bumps `version` and the affected versions, and calls the transition listener
 * (the store's change listeners), exactly as a committed change would. Every
 * server does this on its own clock, so every replica switches at the instant.
 *
 * Invariants:
 * - every record handed out is shared and must be treated as read-only (enablement lists included);
 * - a derived record or list is valid until the next transition: instants later than the moment rows are
 *   applied are indexed when they are applied, and a fired instant leaves the index;
 * - `version` changes whenever anything a request could see changed, and
 *   `merchantVersion(id)` whenever anything that merchant could see changed;
 * - whatever any request could see changed moves `sharedVersion` or supersedes the record of every merchant
 *   it concerns (the caches' two tokens, src/shared/versioned-cache.ts);
 * - `lastSeq` is the highest change-log sequence number already applied.
 */
import { createHash } from 'node:crypto';
import type { KycStatus } from '../../shared/vocabulary.js';
import type { ActiveKeyRecord } from '../../storage/model/records.js';
import type { ApiKeyRow, CatalogRows, ChangedEntities, ChannelRow, MerchantChannelRow, MerchantEntity, MerchantRow, QuoteKeyRow } from '../../storage/model/catalogue-rows.js';
import type { CatalogueLoad } from '../../storage/model/store.js';
import type { MerchantChannel } from './records.js';
import { FLAT_RULE_PREFIX, ruleFromRow, rulesForMerchant, type FeeRuleRow } from '../pricing/domain/fee-rules.js';
import { instructionSetFromColumn, type ChannelInstructions } from '../channels/domain/instructions.js';
import { parseInstant, ruleInForce, scheduledRules, type FeeRule, type RuleSubject } from '../pricing/domain/pricing.js';

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
 * A merchant as the catalogue keeps it: what requests read (no creation time), its texts shared where they
 * repeat. It is also the merchant's cache stamp ({@link DataStamp}): replaced, never modified, whenever
 * anything the merchant could see changed, and the replaced record marked `superseded` (the property is only
 * ever added to a record that left the catalogue, so current records carry no such slot).
 */
type MerchantRecord = Omit<MerchantRow, 'createdAt'> & { superseded?: true };

/** An API key as the catalogue keeps it: what authentication reads, its merchant id the merchant's own string. */
type KeyRecord = Omit<ApiKeyRow, 'createdAt'>;

/**
 * One enabled channel of a merchant, stored compactly: the channel's own id
 * string (interned: the very string of the channel row) when the merchant
 * has no overrides — 8 bytes per enablement, which matters at 100,000
 * merchants × N channels — or an object when it has some.
 */
type Enabled = string | { channelId: string; overrides: Overrides };

const channelIdOf = (e: Enabled): string => (typeof e === 'string' ? e : e.channelId);

/** Derived lists kept by default (cheap to rebuild: each is a handful of shared records). */
export const DEFAULT_LIST_CACHE_ENTRIES = 20_000;

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
  /** Derived channel lists kept at most (default {@link DEFAULT_LIST_CACHE_ENTRIES}); the oldest goes first. */
  listCacheEntries?: number;
}

/** A merchant's own pricing rule (scope MERCHANT) with the channel it prices. */
interface OwnRule {
  channelId: string;
  rule: FeeRule;
}

/** What a pending instant invalidates: a whole channel (channel and category rules) or one merchant. */
type Target = { channel: string; merchant?: undefined } | { merchant: string; channel?: undefined };

/** Source key of a channel's or a merchant's scheduled instants in the transition index. */
const channelSource = (id: string) => `c\u0000${id}`;
const merchantSource = (id: string) => `m\u0000${id}`;

/** A channel's instants in `d`: its flat fee's `fee_set_at` (clock-skewed future) and its rules' starts. */
function channelInstants(d: CatalogueData, channelId: string): [string, Target][] {
  const c = d.channels.get(channelId);
  const target: Target = { channel: channelId };
  const out: [string, Target][] = c ? [[c.feeSetAt, target]] : [];
  for (const r of d.rules.get(channelId) ?? []) if (r.cancelledAt == null) out.push([r.effectiveFrom, target]);
  return out;
}

/** A merchant's instants in `d`: its overrides' `fee_set_at` and its own rules' starts. */
function merchantInstants(d: CatalogueData, merchantId: string): [string, Target][] {
  const target: Target = { merchant: merchantId };
  const out: [string, Target][] = [];
  for (const e of d.enabled.get(merchantId) ?? []) if (typeof e !== 'string') out.push([e.overrides.feeSetAt, target]);
  for (const { rule } of d.ownRules.get(merchantId) ?? []) if (rule.cancelledAt == null) out.push([rule.effectiveFrom, target]);
  return out;
}

/** The instants later than `now`, parsed: what the transition index holds of a source. */
function futureInstants(instants: readonly [string, Target][], now: number): [number, Target][] {
  const out: [number, Target][] = [];
  for (const [text, target] of instants) {
    const at = parseInstant(text);
    if (at !== null && at > now) out.push([at, target]);
  }
  return out;
}

/**
 * Merchants a step of {@link Load.settle} handles before it yields: interning a merchant's list and reading its
 * instants cost about a microsecond, so a step stays a few milliseconds at any number of merchants.
 */
export const SETTLE_STEP = 5_000;

/** Every row the catalogue holds. A full load fills a fresh one beside the live one; the swap is one assignment. */
class CatalogueData {
  currencies = new Map<string, number>();
  /** merchant id → its allowed web origins (normalised, as browsers send them). */
  origins = new Map<string, Set<string>>();
  /** origin → how many merchants allow it (a preflight asks whether any does, without a scan). */
  originUse = new Map<string, number>();
  /** Fee quote signing keys (contract §11): a handful, replaced as a whole when any changes. */
  quoteKeys: readonly QuoteKeyRow[] = [];
  merchants = new Map<string, MerchantRecord>();
  keys = new Map<string, KeyRecord>();
  /** merchantId → its key id, or ids when it has several (most merchants have one: no array for them). */
  keysByMerchant = new Map<string, string | string[]>();
  channels = new Map<string, ChannelRow>();
  channelIdByCode = new Map<string, string>();
  /** merchantId → its enabled channels (frozen; lists without overrides are shared, see {@link intern}). */
  enabled = new Map<string, readonly Enabled[]>();
  /** channelId → its CHANNEL and CATEGORY rules. */
  rules = new Map<string, FeeRule[]>();
  /** merchantId → its MERCHANT rules, any channel. */
  ownRules = new Map<string, OwnRule[]>();
  /** Shared enablement lists without overrides, by their channel ids. */
  readonly #shared = new Map<string, readonly Enabled[]>();
  /**
   * One copy of each low-cardinality value (KYC status, category, key mode): each row read brings its own copy
   * of the text. Bound: the distinct values of those columns (a handful of statuses and modes, the operator's
   * categories), for the life of this data (a full load starts a fresh one).
   */
  readonly #words = new Map<string, string>();

  #word<T extends string>(text: T): T {
    const kept = this.#words.get(text);
    if (kept !== undefined) return kept as T;
    this.#words.set(text, text);
    return text;
  }

  /** The merchant id string the catalogue already holds (one copy per merchant, not one per row naming it). */
  merchantIdOf(id: string): string {
    return this.merchants.get(id)?.id ?? id;
  }

  putMerchant(m: Omit<MerchantRow, 'createdAt'>, id = m.id): void {
    this.merchants.set(id, { id, name: m.name, kycStatus: this.#word(m.kycStatus), category: this.#word(m.category), channelOrder: m.channelOrder });
  }

  /** The merchant's record leaves the catalogue: whatever was cached under it as a stamp is no longer current. */
  #supersede(id: string): MerchantRecord | undefined {
    const old = this.merchants.get(id);
    if (old !== undefined) old.superseded = true;
    return old;
  }

  /** Something the merchant sees changed without a row of its own changing (one of its scheduled rules took effect): a new stamp. */
  renewMerchant(id: string): void {
    const old = this.#supersede(id);
    if (old !== undefined) this.putMerchant(old, old.id);
  }

  putKey(k: ApiKeyRow): void {
    const merchantId = this.merchantIdOf(k.merchantId);
    this.keys.set(k.id, { id: k.id, merchantId, mode: this.#word(k.mode), secretCiphertext: k.secretCiphertext, revokedAt: k.revokedAt });
    const held = this.keysByMerchant.get(merchantId);
    if (held === undefined) this.keysByMerchant.set(merchantId, k.id);
    else if (typeof held === 'string') this.keysByMerchant.set(merchantId, [held, k.id]);
    else held.push(k.id);
  }

  putChannel(c: ChannelRow): void {
    this.channels.set(c.id, c);
    this.channelIdByCode.set(c.code, c.id);
  }

  /** A stored rule: a merchant's goes with the merchant, the others with the channel. Unknown channel: skipped (foreign keys make it impossible). */
  putRule(r: FeeRuleRow): void {
    const c = this.channels.get(r.channelId);
    if (!c) return;
    const rule = ruleFromRow(r, c.code);
    if (r.merchantId !== null && r.scope === 'MERCHANT') {
      const own = this.ownRules.get(r.merchantId);
      if (own) own.push({ channelId: c.id, rule });
      else this.ownRules.set(r.merchantId, [{ channelId: c.id, rule }]);
      return;
    }
    const list = this.rules.get(c.id);
    if (list) list.push(rule);
    else this.rules.set(c.id, [rule]);
  }

  putOrigin(merchantId: string, origin: string): void {
    const set = this.origins.get(merchantId);
    if (set?.has(origin)) return;
    if (set) set.add(origin);
    else this.origins.set(merchantId, new Set([origin]));
    this.originUse.set(origin, (this.originUse.get(origin) ?? 0) + 1);
  }

  dropOrigins(merchantId: string): void {
    for (const origin of this.origins.get(merchantId) ?? []) {
      const n = (this.originUse.get(origin) ?? 1) - 1;
      if (n > 0) this.originUse.set(origin, n);
      else this.originUse.delete(origin);
    }
    this.origins.delete(merchantId);
  }

  /** One enablement as stored in memory (the channel row's own id string, or an object with the overrides). */
  entryOf(e: MerchantChannelRow): Enabled {
    // The channel row's own string, so 100,000 merchants share one copy of each channel id.
    const channelId = this.channels.get(e.channelId)?.id ?? e.channelId;
    // fee_set_at alone is no override: it only dates the fee columns (the implicit merchant rule).
    const hasOverrides =
      e.feePercentage !== null ||
      e.feeValue !== null ||
      e.additionalFeePercentage !== null ||
      e.additionalFeeValue !== null ||
      e.minAmount !== null ||
      e.maxAmount !== null ||
      e.feeChargedToCustomer !== null;
    return hasOverrides
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
  }

  /**
   * The list to keep for a merchant: a list without overrides is shared with every merchant enabling the same
   * channels (an aggregator's merchants mostly enable the same set), so it costs one reference a merchant.
   */
  intern(list: Enabled[]): readonly Enabled[] {
    if (list.some((e) => typeof e !== 'string')) return Object.freeze(list);
    const key = (list as string[]).join('\u0001');
    let shared = this.#shared.get(key);
    if (shared === undefined) {
      shared = Object.freeze(list);
      this.#shared.set(key, shared);
    }
    return shared;
  }

  /** Replace a merchant's rows (absent merchant: deleted). */
  replaceMerchant(id: string, entity: MerchantEntity): void {
    this.#supersede(id);
    const held = this.keysByMerchant.get(id);
    for (const keyId of typeof held === 'string' ? [held] : (held ?? [])) this.keys.delete(keyId);
    this.keysByMerchant.delete(id);
    this.enabled.delete(id);
    this.dropOrigins(id);
    this.ownRules.delete(id);
    if (!entity.merchant) {
      this.merchants.delete(id);
      return;
    }
    this.putMerchant(entity.merchant, id);
    for (const k of entity.keys) this.putKey(k);
    if (entity.enablements.length > 0) this.enabled.set(id, this.intern(entity.enablements.map((e) => this.entryOf(e))));
    for (const o of entity.origins) this.putOrigin(id, o.origin);
    for (const r of entity.feeRules ?? []) this.putRule(r);
  }
}

/** A full load in progress: rows go into a fresh {@link CatalogueData}; nothing is visible until `commit`. */
class Load implements CatalogueLoad {
  readonly data = new CatalogueData();
  /** Enablements gathered per merchant (lists are interned by `settle`, once complete). */
  readonly #lists = new Map<string, Enabled[]>();
  /** Sources (channels, merchants with overrides or rules of their own) → their instants later than `settle`'s now. */
  readonly #future = new Map<string, [number, Target][]>();
  #settled = false;
  #done = false;

  constructor(
    private readonly now: () => number,
    private readonly swapIn: (data: CatalogueData, lastSeq: number, future: ReadonlyMap<string, [number, Target][]>) => void,
  ) {}

  add(rows: Partial<CatalogRows>): void {
    if (this.#done || this.#settled) throw new Error('catalogue load already settled');
    const d = this.data;
    for (const c of rows.currencies ?? []) d.currencies.set(c.code, c.minorUnits);
    for (const c of rows.channels ?? []) d.putChannel(c);
    for (const r of rows.feeRules ?? []) d.putRule(r);
    if (rows.quoteKeys) d.quoteKeys = rows.quoteKeys;
    for (const m of rows.merchants ?? []) d.putMerchant(m);
    for (const k of rows.apiKeys ?? []) d.putKey(k);
    for (const e of rows.merchantChannels ?? []) {
      const list = this.#lists.get(e.merchantId);
      if (list) list.push(d.entryOf(e));
      else this.#lists.set(d.merchantIdOf(e.merchantId), [d.entryOf(e)]);
    }
    for (const o of rows.merchantOrigins ?? []) d.putOrigin(o.merchantId, o.origin);
  }

  /**
   * The work between the last rows and the swap, {@link SETTLE_STEP} merchants a step: intern the enablement
   * lists, and find the scheduled instants of the channels and of the merchants with overrides or rules of
   * their own. A reload while serving yields between the steps; `commit` runs whatever is left.
   */
  *settle(): Generator<void, void> {
    if (this.#done || this.#settled) return;
    this.#settled = true;
    const d = this.data;
    const now = this.now();
    let n = 0;
    for (const [merchantId, list] of this.#lists) {
      const kept = d.intern(list);
      d.enabled.set(merchantId, kept);
      if (kept.some((e) => typeof e !== 'string')) this.#later(merchantSource(merchantId), merchantInstants(d, merchantId), now);
      if (++n % SETTLE_STEP === 0) yield;
    }
    this.#lists.clear();
    for (const merchantId of d.ownRules.keys()) {
      this.#later(merchantSource(merchantId), merchantInstants(d, merchantId), now);
      if (++n % SETTLE_STEP === 0) yield;
    }
    for (const channelId of d.channels.keys()) this.#later(channelSource(channelId), channelInstants(d, channelId), now);
  }

  #later(source: string, instants: [string, Target][], now: number): void {
    const future = futureInstants(instants, now);
    if (future.length > 0) this.#future.set(source, future);
  }

  commit(lastSeq: number): void {
    if (this.#done) throw new Error('catalogue load already committed');
    const steps = this.settle();
    while (!steps.next().done);
    this.#done = true;
    this.swapIn(this.data, lastSeq, this.#future);
  }
}

export class Catalog {
  readonly #now: () => number;
  #d = new CatalogueData();
  /** `channelId NUL category` → the effective record of a merchant without overrides or merchant rules (shared by all such merchants of the category). */
  #baseRecords = new Map<string, MerchantChannel>();
  #timer: NodeJS.Timeout | null = null;
  /** The instant the timer is armed for (null: nothing scheduled). */
  #armedFor: number | null = null;
  /** Every transition up to this instant has been announced. */
  #announcedUpTo: number;
  /** Pending instants (after the moment their rows were applied) → source → what they invalidate. */
  #pending = new Map<number, Map<string, Target[]>>();
  /** Source (a channel or a merchant) → the instants it put in {@link #pending}. */
  #pendingOf = new Map<string, number[]>();
  #onTransition: (() => void) | null = null;
  #closed = false;
  /** Derived, per merchant: the effective channel list in display order (built on first use, bounded). */
  #lists = new Map<string, MerchantChannel[]>();
  readonly #listCacheEntries: number;
  #merchantVersions = new Map<string, number>();
  /** channelId → moves on every change of the channel, its currency, its rules taking effect. */
  #channelGenerations = new Map<string, number>();
  #epoch = 0;
  #changes = 0;
  /** Moves with every change that is not one merchant's (see {@link sharedVersion}). */
  #shared = 0;
  #versionText = '0:0';
  #lastSeq = 0;
  #reloads = 0;
  #work = 0;

  constructor(options: CatalogOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#announcedUpTo = this.#now();
    this.#listCacheEntries = Math.max(1, options.listCacheEntries ?? DEFAULT_LIST_CACHE_ENTRIES);
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

  /**
   * Changes whenever something changed that is not attributed to merchants one by one: a full load, a channel,
   * a currency, a quote key, a channel's or a category's scheduled rule taking effect. What changes for one
   * merchant only (its rows, one of its own scheduled rules taking effect) leaves it as it is and supersedes
   * that merchant's stamp instead ({@link ActiveKeyRecord.merchantStamp}). A derived answer about a merchant
   * is current while both hold.
   */
  get sharedVersion(): number {
    return this.#shared;
  }

  /**
   * Counters for metrics and tests: full loads swapped in, and entities handled by `apply` and transitions
   * (merchants, channels, currencies, pending instants: the work a change costs, which a scan would show).
   */
  get counters(): { reloads: number; work: number } {
    return { reloads: this.#reloads, work: this.#work };
  }

  /** Changes whenever anything this merchant could see changed (its rows, its channels, their currencies). */
  merchantVersion(merchantId: string): string {
    // Generations only grow, and a change of which channels are enabled moves the merchant's own counter: the sum moves whenever one of them does.
    let channels = 0;
    for (const e of this.#d.enabled.get(merchantId) ?? []) channels += this.#channelGenerations.get(channelIdOf(e)) ?? 0;
    return `${this.#epoch}:${this.#merchantVersions.get(merchantId) ?? 0}:${channels}`;
  }

  /** Start a full load (first load, a replaced database, a replica behind the pruned change log): see {@link CatalogueLoad}. */
  beginLoad(): CatalogueLoad {
    return new Load(this.#now, (data, lastSeq, future) => this.#swapIn(data, lastSeq, future));
  }

  /** Replace everything at once (a full load of one batch). */
  replaceAll(rows: CatalogRows, lastSeq: number): void {
    const load = this.beginLoad();
    load.add(rows);
    load.commit(lastSeq);
  }

  #swapIn(data: CatalogueData, lastSeq: number, future: ReadonlyMap<string, [number, Target][]>): void {
    this.#d = data;
    this.#baseRecords.clear();
    this.#lists = new Map();
    this.#merchantVersions = new Map();
    this.#epoch += 1;
    this.#shared += 1;
    this.#lastSeq = lastSeq;
    this.#reloads += 1;
    // Everything is rebuilt from these rows: what is already in force is in; only later instants are pending
    // (found by the load's settle steps: the swap itself looks at no merchant).
    this.#pending = new Map();
    this.#pendingOf = new Map();
    const now = this.#now();
    this.#announcedUpTo = Math.max(this.#announcedUpTo, now);
    for (const [source, instants] of future) this.#schedule(source, instants.filter(([at]) => at > now));
    this.#bump();
    this.#arm();
  }

  /** Apply the reloaded rows of a batch of changes up to `lastSeq`: work in proportion to the entities named. */
  apply(changed: ChangedEntities, lastSeq: number): void {
    const d = this.#d;
    const changedChannels = new Set<string>();
    for (const [code, row] of changed.currencies) {
      this.#work += 1;
      if (row) d.currencies.set(code, row.minorUnits);
      else d.currencies.delete(code);
      // Channels are few (tens): a scan of them is no scan of merchants.
      for (const channel of d.channels.values()) if (channel.currency === code) changedChannels.add(channel.id);
    }
    for (const [id, { channel: row, feeRules }] of changed.channels) {
      this.#work += 1;
      const previous = d.channels.get(id);
      if (previous) {
        d.channels.delete(id);
        if (d.channelIdByCode.get(previous.code) === id) d.channelIdByCode.delete(previous.code);
      }
      d.rules.delete(id);
      if (row) {
        d.putChannel(row);
        for (const r of feeRules) if (r.merchantId === null || r.scope !== 'MERCHANT') d.putRule(r);
      }
      this.#scheduleChannel(id);
      changedChannels.add(id);
    }
    if (changedChannels.size > 0) this.#channelsChanged(changedChannels);
    // Currencies and quote keys are read by every merchant's answers (a currency without channels too: a calculation names it).
    if (changedChannels.size > 0 || changed.currencies.size > 0 || changed.quoteKeys) this.#shared += 1;
    for (const [id, entity] of changed.merchants) {
      this.#work += 1;
      d.replaceMerchant(id, entity);
      this.#scheduleMerchant(id);
      this.#merchantChanged(id);
    }
    if (changed.quoteKeys) d.quoteKeys = changed.quoteKeys;
    this.#lastSeq = Math.max(this.#lastSeq, lastSeq);
    this.#bump();
    this.#arm();
  }

  /** The key with this id if it exists and is not revoked, with what authentication needs. */
  findActiveKey(keyId: string): ActiveKeyRecord | undefined {
    const key = this.#d.keys.get(keyId);
    if (!key || key.revokedAt !== null) return undefined;
    const merchant = this.#d.merchants.get(key.merchantId);
    if (!merchant) return undefined;
    return { keyId: key.id, mode: key.mode, secretCiphertext: key.secretCiphertext, merchantId: merchant.id, merchantKyc: merchant.kycStatus, merchantStamp: merchant };
  }

  /** Every fee quote signing key (contract §11): the one that signs and the retired ones. Read-only. */
  quoteKeys(): readonly QuoteKeyRow[] {
    return this.#d.quoteKeys;
  }

  /** True when `origin` (exactly as a browser sends it) is an allowed web origin of the merchant (contract §9). */
  originAllowed(merchantId: string, origin: string): boolean {
    return this.#d.origins.get(merchantId)?.has(origin) ?? false;
  }

  /** True when some merchant allows `origin` (a preflight, which carries no credentials). */
  isKnownOrigin(origin: string): boolean {
    return this.#d.originUse.has(origin);
  }

  /** Decimals of a currency the service settles (undefined: unknown currency). */
  minorUnitsOf(code: string): number | undefined {
    return this.#d.currencies.get(code);
  }

  /** KYC status of a merchant (undefined: no such merchant). */
  kycOf(merchantId: string): KycStatus | undefined {
    return this.#d.merchants.get(merchantId)?.kycStatus;
  }

  /** A merchant's name (contract §14 `{{merchant_name}}`); undefined: no such merchant. */
  merchantNameOf(merchantId: string): string | undefined {
    return this.#d.merchants.get(merchantId)?.name;
  }

  /** Display name of a catalogue channel (any merchant, any status). */
  nameByCode(code: string): string | undefined {
    const id = this.#d.channelIdByCode.get(code);
    return id === undefined ? undefined : this.#d.channels.get(id)?.name;
  }

  /** True when a catalogue channel's Indonesian and English names differ (contract §12; its badge shows a symbol). */
  nameDiffersByLanguage(code: string): boolean {
    const id = this.#d.channelIdByCode.get(code);
    const c = id === undefined ? undefined : this.#d.channels.get(id);
    return c !== undefined && (c.nameId ?? c.name) !== (c.nameEn ?? c.name);
  }

  /** Every channel enabled for the merchant, catalogue values with its overrides applied, in display order. */
  listForMerchant(merchantId: string): MerchantChannel[] {
    let list = this.#lists.get(merchantId);
    if (list === undefined) {
      list = this.#buildList(merchantId);
      // Past the bound the oldest list goes (Map order is insertion order): random merchants never empty it all.
      if (this.#lists.size >= this.#listCacheEntries) this.#lists.delete(this.#lists.keys().next().value!);
      this.#lists.set(merchantId, list);
    }
    return list;
  }

  /** Derived lists held now (bounded by `listCacheEntries`). */
  get cachedLists(): number {
    return this.#lists.size;
  }

  /** The channel with this (lower-case) code if it is enabled for the merchant. */
  findForMerchant(merchantId: string, code: string): MerchantChannel | undefined {
    const id = this.#d.channelIdByCode.get(code);
    if (id === undefined) return undefined;
    const entry = this.#d.enabled.get(merchantId)?.find((e) => channelIdOf(e) === id);
    return entry === undefined ? undefined : this.#effective(merchantId, entry);
  }

  /** Counts, for sizing and logs. */
  stats(): { merchants: number; keys: number; channels: number; enablements: number } {
    let enablements = 0;
    for (const list of this.#d.enabled.values()) enablements += list.length;
    return { merchants: this.#d.merchants.size, keys: this.#d.keys.size, channels: this.#d.channels.size, enablements };
  }

  #bump(): void {
    this.#changes += 1;
    this.#versionText = `${this.#epoch}:${this.#changes}`;
  }

  /** Channels changed (rows, rules, currency, a transition): O(channels), whatever the number of merchants. */
  #channelsChanged(channelIds: ReadonlySet<string>): void {
    for (const key of this.#baseRecords.keys()) if (channelIds.has(key.slice(0, key.indexOf('\u0000')))) this.#baseRecords.delete(key);
    for (const id of channelIds) this.#channelGenerations.set(id, (this.#channelGenerations.get(id) ?? 0) + 1);
    this.#lists = new Map();
  }

  #merchantChanged(merchantId: string): void {
    this.#lists.delete(merchantId);
    this.#merchantVersions.set(merchantId, (this.#merchantVersions.get(merchantId) ?? 0) + 1);
  }

  /** Put a source's instants (parsed, later than now) in the index, replacing what it had there. */
  #schedule(source: string, instants: readonly [number, Target][]): void {
    for (const at of this.#pendingOf.get(source) ?? []) {
      const entries = this.#pending.get(at);
      entries?.delete(source);
      if (entries?.size === 0) this.#pending.delete(at);
    }
    this.#pendingOf.delete(source);
    const mine: number[] = [];
    for (const [at, target] of instants) {
      let entries = this.#pending.get(at);
      if (!entries) this.#pending.set(at, (entries = new Map<string, Target[]>()));
      const targets = entries.get(source);
      if (targets) targets.push(target);
      else {
        entries.set(source, [target]);
        mine.push(at);
      }
    }
    if (mine.length > 0) this.#pendingOf.set(source, mine);
  }

  #scheduleChannel(channelId: string): void {
    this.#schedule(channelSource(channelId), futureInstants(channelInstants(this.#d, channelId), this.#now()));
  }

  #scheduleMerchant(merchantId: string): void {
    this.#schedule(merchantSource(merchantId), futureInstants(merchantInstants(this.#d, merchantId), this.#now()));
  }

  /**
   * (Re-)arm the one transition timer at the earliest pending instant. Counting from the last announcement,
   * not from now, means a late timer (busy event loop) is announced at once. Far instants are clamped to
   * Node's timer limit and re-armed when the clamped timer fires. Unref'd: it never keeps a process alive.
   * Cost: the number of distinct pending instants (scheduled rules), not of merchants.
   */
  #arm(): void {
    if (this.#closed) return;
    const now = this.#now();
    let next: number | null = null;
    for (const at of this.#pending.keys()) if (at > this.#announcedUpTo && (next === null || at < next)) next = at;
    if (next === this.#armedFor && this.#timer) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedFor = next;
    if (next === null) return;
    this.#timer = setTimeout(() => this.#fire(), Math.min(Math.max(next - now, 0), MAX_TIMER_MS));
    this.#timer.unref();
  }

  /** The timer fired: announce every pending instant in (announcedUpTo, now]. */
  #fire(): void {
    this.#timer = null;
    const now = this.#now();
    // A clamped far timer (or one a millisecond early) has nothing to announce yet: re-arm.
    if (this.#armedFor === null || now < this.#armedFor) {
      this.#armedFor = null;
      this.#arm();
      return;
    }
    this.#announcedUpTo = now;
    const channels = new Set<string>();
    for (const [at, entries] of this.#pending) {
      if (at > now) continue;
      this.#pending.delete(at);
      for (const [source, targets] of entries) {
        const left = this.#pendingOf.get(source)?.filter((t) => t !== at);
        if (left?.length) this.#pendingOf.set(source, left);
        else this.#pendingOf.delete(source);
        for (const t of targets) {
          this.#work += 1;
          if (t.channel !== undefined) channels.add(t.channel);
          else {
            this.#d.renewMerchant(t.merchant);
            this.#merchantChanged(t.merchant);
          }
        }
      }
    }
    if (channels.size > 0) {
      this.#channelsChanged(channels);
      this.#shared += 1;
    }
    this.#bump();
    this.#armedFor = null;
    this.#arm();
    this.#onTransition?.();
  }

  /**
   * A channel's effective record for one merchant at this instant: catalogue
   * values, the merchant's overrides, and the pricing rule in force for it
   * (undefined: channel or currency missing).
   */
  #record(channelId: string, subject: RuleSubject, overrides: Overrides | undefined): MerchantChannel | undefined {
    const c = this.#d.channels.get(channelId);
    const minorUnits = c && this.#d.currencies.get(c.currency);
    // Foreign keys make both impossible; a row missing here is skipped rather than served half-built.
    if (!c || minorUnits === undefined) return undefined;
    const now = this.#now();
    const stored = this.#d.rules.get(channelId) ?? [];
    const own = subject.merchantId === '' ? undefined : this.#d.ownRules.get(subject.merchantId)?.filter((o) => o.channelId === channelId);
    const rules = rulesForMerchant(own?.length ? [...stored, ...own.map((o) => o.rule)] : stored, c, overrides && { merchantId: subject.merchantId, ...overrides });
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
    const category = this.#d.merchants.get(merchantId)?.category;
    if (category === undefined) return undefined;
    const channelId = channelIdOf(entry);
    const ownRule = this.#d.ownRules.get(merchantId)?.some((o) => o.channelId === channelId) ?? false;
    if (typeof entry !== 'string' || ownRule) return this.#record(channelId, { merchantId, category }, typeof entry === 'string' ? undefined : entry.overrides);
    // Shared by every merchant of the category without overrides or rules of its own.
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
    for (const entry of this.#d.enabled.get(merchantId) ?? []) {
      const record = this.#effective(merchantId, entry);
      if (record) out.push({ channel: this.#d.channels.get(record.id)!, record });
    }
    // Contract §12: the merchant's named channels first, in its order; the others after, in the default order.
    const position = merchantPositions(this.#d.merchants.get(merchantId)?.channelOrder ?? null);
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
