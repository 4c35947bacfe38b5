/**
 * Operator changes (merchants, keys, catalogue, enablement). The admin CLI
 * is a thin layer over this service; every change is validated here, with
 * the rules of src/modules/channels/domain/channel-rules.ts, and written in one transaction
 * on either engine (src/storage/sqlite/admin.ts). Running servers see a
 * committed change through the change log (src/modules/catalogue/catalog.ts): SQLite on the
 * next request, Postgres replicas within a second (docs/SCALING.md).
 */
import { generateQuoteKey } from '../quotes/keys.js';
import { publishedUntilOf } from '../quotes/service.js';
import type { QuoteKeyRow } from '../../storage/model/rows.js';
import { randomUUID } from 'node:crypto';
import { v7 as timeOrderedUuid } from 'uuid';
import os from 'node:os';
import type { z } from 'zod';
import { generateKey } from '../auth/keys.js';
import type { SecretBox } from '../auth/secret-box.js';
import { LOCALES, type KeyMode, type KycStatus, type Locale } from '../../shared/vocabulary.js';
import {
  applyOverrides,
  channelCodeSchema,
  channelCreateSchema,
  channelUpdateSchema,
  currencySchema,
  describeIssues,
  defaultGroupOf,
  effectiveSettingsProblems,
  keyModeSchema,
  parseChannelOrder,
  kycStatusSchema,
  merchantCreateSchema,
  overridesSchema,
  type ChannelCreateInput,
  type ChannelSettings,
  type ChannelUpdateInput,
  type OverridesInput,
} from '../channels/domain/channel-rules.js';
import { FLAT_RULE_PREFIX, ruleFromRow, rulesForMerchant, type FeeRuleRow } from '../pricing/domain/fee-rules.js';
import {
  formatBands,
  formatInstant,
  parseBands,
  parseFeeSettings,
  parseInstant,
  ruleInForce,
  scheduledRules,
  validateCategory,
  DEFAULT_CATEGORY,
  type FeeBand,
  type FeeRule,
  type RuleScope,
} from '../pricing/domain/pricing.js';
import type {
  AdminRepository,
  AuditRow,
  CatalogueChannelListing as CatalogueChannel,
  CatalogueChannelRecord,
  CurrencyRecord,
  MerchantChannelRecord,
  MerchantImportRow,
  MerchantUpdateRow,
  OverrideWrite,
} from '../../storage/model/admin-repository.js';
import { parseImportFile, parseUpdateFile, Problems } from './merchant-import.js';
import type { ApiKeyRecord, MerchantRecord } from '../../storage/model/records.js';
import { normalizeOrigin } from '../sessions/domain/origins.js';
import { instructionSetFromColumn, parseInstructionSet, serialiseInstructionSet, type InstructionSet } from '../channels/domain/instructions.js';

/** Why an admin change was refused. `kind` decides the CLI exit code. */
export class AdminError extends Error {
  constructor(
    readonly kind: 'invalid' | 'not_found' | 'conflict',
    readonly problems: string[],
  ) {
    super(problems.join('; '));
    this.name = 'AdminError';
  }
}

/** A newly issued key: the only time the secret exists outside its ciphertext. */
export interface IssuedKey {
  apiKey: string;
  apiSecret: string;
  merchantId: string;
  mode: KeyMode;
}

/** A catalogue channel as listed to operators (the storage listing: row, currency decimals, merchants enabled). */
export type { CatalogueChannelListing as CatalogueChannel } from '../../storage/model/admin-repository.js';

/** A channel as enabled for one merchant: the raw overrides and the resulting effective settings. */
export interface MerchantChannelView {
  code: string;
  status: string;
  overrides: Partial<ChannelSettings>;
  effective: ChannelSettings;
}

/** A pricing rule as operators see it (`fee set`, `fee list`, `fee cancel`). */
export interface FeeRuleView {
  id: string;
  channel: string;
  /** Who the rule is for: CHANNEL (default), CATEGORY or MERCHANT. */
  scope: RuleScope;
  merchantId: string | null;
  category: string | null;
  bands: FeeBand[];
  /** The bands in the CLI syntax (`500000:0:0,*:0.3:0`). */
  bandsText: string;
  effectiveFrom: string;
  createdAt: string;
  cancelledAt: string | null;
  /** in-force: applies now (to its scope); scheduled: starts later; cancelled; superseded: a later rule of its scope applies. */
  state: 'in-force' | 'scheduled' | 'cancelled' | 'superseded';
  /** True for the implicit rule of a flat setting (channel fee or merchant override); such a rule cannot be cancelled. */
  implicit: boolean;
  /** Contract §10: caps (major unit), tax on fees and customer share (percent); null when not set. */
  minFee: string | null;
  maxFee: string | null;
  taxPercentage: string | null;
  customerShare: string | null;
}

/** What `fee set` asks for (raw CLI values; validated by the service). */
export interface FeeSetInput {
  channel: string;
  merchantId?: string;
  category?: string;
  bands: string;
  /** ISO 8601 instant with a zone; default now. */
  effectiveFrom?: string;
  /** Allow a category no merchant has yet (other than `regular`); otherwise refused as a likely typo. */
  allowUnusedCategory?: boolean;
  /** Contract §10: caps of the fee (major unit), tax on fees and the customer's share (percent). */
  minFee?: string;
  maxFee?: string;
  taxPercentage?: string;
  customerShare?: string;
  /**
   * Replace the rule of the same scope in force at `effectiveFrom` even when the new rule drops some of its
   * settings (caps, tax, customer share, bands). Without it such a `fee set` is refused, naming each one.
   */
  replace?: boolean;
}

/** An audit record as listed (`before`/`after` parsed). */
export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  entity: string;
  before: unknown;
  after: unknown;
}

/** What `audit list` asks for (raw CLI values; validated by the service). */
export interface AuditListFilter {
  entity?: string;
  since?: string;
  limit?: string | number;
  /** The id of the record the previous page ended with. */
  after?: string;
}

/** How a `merchant import` runs. */
export interface ImportOptions {
  /** The file's name, for the audit record. */
  source?: string;
  /** Merchants per transaction (default {@link IMPORT_BATCH}). */
  batchSize?: number;
  /** The most merchants a file may hold (default DEFAULT_MAX_IMPORT_ROWS). */
  maxRows?: number;
}

/** What an import created: the count, the transactions, each merchant's id and name in file order. */
export interface ImportResult {
  count: number;
  batches: number;
  merchants: { merchantId: string; name: string }[];
}

/** What an import update changed: merchants changed and left as they were, and per merchant of the file which fields changed. */
export interface UpdateResult {
  count: number;
  unchanged: number;
  batches: number;
  merchants: { merchantId: string; name: string; changed: ('name' | 'kyc' | 'category')[] }[];
}

/** Options of {@link AdminService}. */
export interface AdminServiceOptions {
  /** Who makes the changes, recorded in the audit trail (`--actor`); default the operating-system user. */
  actor?: string;
  /** Clock for rule instants and audit times (tests). */
  now?: () => number;
}

/** The operating-system user, the default actor (contract §7). */
export function osUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    // No passwd entry (some containers): the uid still identifies the operator account.
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

/** The audit view of a key: never its secret or ciphertext (contract §7). */
function keyAudit(k: { id: string; mode: string; merchantId: string; revokedAt: string | null }) {
  return { id: k.id, mode: k.mode, merchantId: k.merchantId, revokedAt: k.revokedAt };
}

/** A quote signing key as listed and audited: never its private key or ciphertext (contract §7, §11). */
export interface QuoteKeyListing {
  id: string;
  state: string;
  createdAt: string;
  retiredAt: string | null;
  /** The longest QUOTE_TTL_SECONDS any server signed with it; null: unknown (an older key, read as 86,400). */
  maxTtlSeconds: number | null;
  /** A retired key: until when it stays published (its last quote's latest expiry plus the margin); else null. */
  publishedUntil: string | null;
}

function quoteKeyAudit(k: QuoteKeyRow): QuoteKeyListing {
  return {
    id: k.id,
    state: k.state,
    createdAt: k.createdAt,
    retiredAt: k.retiredAt,
    maxTtlSeconds: k.maxTtlSeconds,
    publishedUntil: k.state === 'retired' && k.retiredAt !== null ? formatInstant(publishedUntilOf(k)) : null,
  };
}

/** Labels for CLI-facing messages (the CLI flag names). */
const LABELS: Record<string, string> = {
  feePercentage: 'fee-percentage',
  feeValue: 'fee-value',
  additionalFeePercentage: 'additional-fee-percentage',
  additionalFeeValue: 'additional-fee-value',
  minAmount: 'min',
  maxAmount: 'max',
  feeChargedToCustomer: 'fee-to-customer',
  requiresKyc: 'requires-kyc',
  sortOrder: 'sort-order',
  nameId: 'name-id',
  nameEn: 'name-en',
  kycStatus: 'kyc',
  minorUnits: 'minor-units',
};

function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new AdminError('invalid', describeIssues(result.error, LABELS));
  return result.data;
}

/** Parse a single value, naming `field` in the message. */
function parseField<T extends z.ZodType>(field: string, schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new AdminError('invalid', result.error.issues.map((i) => `${field}: ${i.message}`));
  return result.data;
}

const OVERRIDE_KEYS = ['feePercentage', 'feeValue', 'additionalFeePercentage', 'additionalFeeValue', 'minAmount', 'maxAmount', 'feeChargedToCustomer'] as const;

function settingsOf(c: CatalogueChannelRecord): ChannelSettings {
  return {
    feePercentage: c.feePercentage,
    feeValue: c.feeValue,
    additionalFeePercentage: c.additionalFeePercentage,
    additionalFeeValue: c.additionalFeeValue,
    minAmount: c.minAmount,
    maxAmount: c.maxAmount,
    feeChargedToCustomer: c.feeChargedToCustomer,
  };
}

function overridesOf(row: MerchantChannelRecord): Partial<ChannelSettings> {
  const out: Partial<Record<keyof ChannelSettings, unknown>> = {};
  for (const k of OVERRIDE_KEYS) if (row[k] !== null) out[k] = row[k];
  return out as Partial<ChannelSettings>;
}

export class AdminService {
  /**
   * @param repo the engine's operator repository (`store.admin`)
   * @param secretBox encrypts newly issued secrets
   */
  readonly actor: string;
  readonly #now: () => number;

  constructor(
    private readonly repo: AdminRepository,
    private readonly secretBox: SecretBox,
    options: AdminServiceOptions = {},
  ) {
    this.actor = options.actor ?? osUser();
    this.#now = options.now ?? Date.now;
  }

  /** Append the audit record of a change, on the change's own transaction (`repo` is the transaction's). */
  async #audit(repo: AdminRepository, action: string, entity: string, before: unknown, after: unknown): Promise<void> {
    const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
    // Time-ordered ids (monotonic within this process) break ties between records of the same millisecond,
    // so `audit list` (newest first: `at`, then `id`) shows one command's changes in the order they were made.
    await repo.appendAudit({ id: timeOrderedUuid(), at: formatInstant(this.#now()), actor: this.actor, action, entity, before: json(before), after: json(after) });
  }

  // Merchants

  async createMerchant(input: { name: unknown; kycStatus?: unknown; category?: string; channels?: string[] | 'all' }): Promise<MerchantRecord> {
    const problems: string[] = [];
    const checked = merchantCreateSchema.safeParse({ name: input.name, kycStatus: input.kycStatus });
    if (!checked.success) problems.push(...describeIssues(checked.error, LABELS));
    const category = validateCategory(input.category);
    if (!category.ok) problems.push(...category.problems);
    if (!checked.success || !category.ok) throw new AdminError('invalid', problems);
    const m = checked.data;
    const id = randomUUID();
    return this.repo.transaction(async (repo) => {
      await repo.insertMerchant({ id, name: m.name, kycStatus: m.kycStatus, category: category.value });
      if (input.channels !== undefined) {
        const codes = input.channels === 'all' ? (await repo.catalogueChannels()).map((c) => c.code) : input.channels;
        for (const code of codes) await enable(repo, id, code, {}, this.#now());
      }
      const created = (await repo.findMerchant(id))!;
      await this.#audit(repo, 'merchant.create', id, null, { ...created, channels: (await repo.enablementsOfMerchant(id)).map((e) => e.code) });
      return created;
    });
  }

  async setCategory(merchantId: string, code: string): Promise<MerchantRecord> {
    const category = validateCategory(code);
    if (!category.ok) throw new AdminError('invalid', category.problems);
    return this.repo.transaction(async (repo) => {
      const before = await merchantOf(repo, merchantId);
      await repo.setCategory(merchantId, category.value);
      const after = (await repo.findMerchant(merchantId))!;
      await this.#audit(repo, 'merchant.set-category', merchantId, { category: before.category }, { category: after.category });
      return after;
    });
  }

  /**
   * One page of merchants in id order: at most `limit` (1 to 1000, default 100) after the merchant id `after`;
   * `next` is the cursor of the following page, null on the last. Each page costs its own rows (keyset on the
   * primary key), however many merchants there are.
   */
  async merchantsPage(input: { after?: string; limit?: string | number } = {}): Promise<{ merchants: MerchantRecord[]; next: string | null }> {
    const limit = pageLimit(input.limit);
    const rows = await this.repo.merchantsPage({ after: input.after, limit: limit + 1 });
    const merchants = rows.slice(0, limit);
    return { merchants, next: rows.length > limit ? merchants[merchants.length - 1]!.id : null };
  }

  /** Every merchant after `after`, in id order, read a page at a time (memory bounded by the page, not the total). */
  async *allMerchants(after?: string, pageSize = STREAM_PAGE): AsyncGenerator<MerchantRecord> {
    let cursor = after;
    for (;;) {
      const page = await this.repo.merchantsPage({ after: cursor, limit: pageSize });
      yield* page;
      if (page.length < pageSize) return;
      cursor = page[page.length - 1]!.id;
    }
  }

  /**
   * Create the merchants of a CSV file (contract §15; the format: src/modules/admin/merchant-import.ts). The
   * whole file is checked first (channel codes against the catalogue too): any problem refuses it, naming
   * lines and fields, and nothing is written. Then the merchants are written in transactions of
   * `batchSize`, so no transaction holds the write lock for long and replicas catch up slice by slice. One
   * audit record (`merchant.import`, entity `merchants`, with the count) commits with the first batch: no
   * merchant of the import exists without it. Should a later batch fail, the error names the lines written
   * and those not, and a `merchant.import-incomplete` record gives the count that was written.
   * API keys are not created: each merchant's key is issued with `key create` when it goes live.
   */
  async importMerchants(text: string, options: ImportOptions = {}): Promise<ImportResult> {
    const parsed = parseImportFile(text, options.maxRows);
    if (!parsed.ok) throw new AdminError('invalid', parsed.problems);
    const catalogue = new Map((await this.repo.catalogueChannels()).map((c) => [c.code, c.id]));
    const problems = new Problems();
    const rows: (MerchantImportRow & { line: number })[] = [];
    // One list for every `all` row (a file of 100,000 such rows holds it once, not 100,000 times).
    const all = [...catalogue.values()];
    for (const r of parsed.rows) {
      const unknown = r.channels === 'all' ? [] : r.channels.filter((code) => !catalogue.has(code));
      for (const code of unknown) problems.add(`line ${r.line}: channels: no channel ${code} in the catalogue (channel list shows them)`);
      const channelIds = r.channels === 'all' ? all : r.channels.map((code) => catalogue.get(code)!);
      rows.push({ line: r.line, id: timeOrderedUuid(), name: r.name, kycStatus: r.kycStatus, category: r.category, channelIds });
    }
    if (!problems.empty) throw new AdminError('invalid', problems.report());
    const kyc: Record<string, number> = {};
    for (const r of rows) kyc[r.kycStatus] = (kyc[r.kycStatus] ?? 0) + 1;
    const batches = await this.#inBatches(rows, options.batchSize, 'merchant.import', { count: rows.length, source: options.source ?? null, kyc }, (repo, batch) => repo.insertMerchants(batch));
    return { count: rows.length, batches, merchants: rows.map((r) => ({ merchantId: r.id, name: r.name })) };
  }

  /**
   * Change name, category or KYC of existing merchants from a CSV file with a `merchantId` column (the
   * columns present decide what changes; an empty cell keeps the value). Checked as a whole first (an
   * unknown id refuses the file, naming its line), then written in batches like {@link importMerchants},
   * with one `merchant.import-update` audit record: the count, and per field how many values moved from
   * what to what.
   */
  async updateMerchantsFromFile(text: string, options: ImportOptions = {}): Promise<UpdateResult> {
    const parsed = parseUpdateFile(text, options.maxRows);
    if (!parsed.ok) throw new AdminError('invalid', parsed.problems);
    const existing = new Map((await this.repo.findMerchants(parsed.rows.map((r) => r.merchantId))).map((m) => [m.id, m]));
    const problems = new Problems();
    for (const r of parsed.rows) if (!existing.has(r.merchantId)) problems.add(`line ${r.line}: merchantId: no merchant ${r.merchantId}`);
    if (!problems.empty) throw new AdminError('invalid', problems.report());
    const changes: (MerchantUpdateRow & { line: number })[] = [];
    const moved = { name: 0, kycStatus: new Tally(), category: new Tally() };
    const merchants: UpdateResult['merchants'] = [];
    for (const r of parsed.rows) {
      const before = existing.get(r.merchantId)!;
      const change: MerchantUpdateRow & { line: number } = { line: r.line, id: r.merchantId };
      const changed: UpdateResult['merchants'][number]['changed'] = [];
      if (r.name !== undefined && r.name !== before.name) {
        change.name = r.name;
        changed.push('name');
        moved.name++;
      }
      if (r.kycStatus !== undefined && r.kycStatus !== before.kycStatus) {
        change.kycStatus = r.kycStatus;
        changed.push('kyc');
        moved.kycStatus.add(`${before.kycStatus} → ${r.kycStatus}`);
      }
      if (r.category !== undefined && r.category !== before.category) {
        change.category = r.category;
        changed.push('category');
        moved.category.add(`${before.category} → ${r.category}`);
      }
      if (changed.length > 0) changes.push(change);
      merchants.push({ merchantId: r.merchantId, name: change.name ?? before.name, changed });
    }
    const summary = { count: changes.length, unchanged: parsed.rows.length - changes.length, source: options.source ?? null, names: moved.name, kyc: moved.kycStatus.toJSON(), category: moved.category.toJSON() };
    const batches = await this.#inBatches(changes, options.batchSize, 'merchant.import-update', summary, (repo, batch) => repo.updateMerchants(batch));
    return { count: changes.length, unchanged: summary.unchanged, batches, merchants };
  }

  /**
   * Write `rows` in transactions of `batchSize`, the audit record (`action`, entity `merchants`) with the first.
   * A failure after some batches committed is an AdminError naming the lines written and not written, with a
   * `…-incomplete` audit record of the count written; a failure of the first batch leaves nothing and is thrown
   * as it is. Returns the number of batches.
   */
  async #inBatches<R extends { line: number }>(rows: R[], batchSize: number | undefined, action: string, summary: object, write: (repo: AdminRepository, batch: R[]) => Promise<void>): Promise<number> {
    const size = batchSize ?? IMPORT_BATCH;
    if (!Number.isInteger(size) || size < 1) throw new AdminError('invalid', [`batch size must be a whole number of at least 1, got ${size}`]);
    let written = 0;
    let batches = 0;
    for (let i = 0; i < rows.length; i += size) {
      const batch = rows.slice(i, i + size);
      try {
        await this.repo.transaction(async (repo) => {
          await write(repo, batch);
          if (i === 0) await this.#audit(repo, action, 'merchants', null, { ...summary, batches: Math.ceil(rows.length / size) });
        });
      } catch (err) {
        if (written === 0) throw err;
        const firstLost = batch[0]!.line;
        await this.repo.transaction((repo) => this.#audit(repo, `${action}-incomplete`, 'merchants', null, { count: written, of: rows.length, notWrittenFromLine: firstLost, error: String(err) }));
        throw new AdminError('conflict', [
          `the database refused the batch from line ${firstLost}: ${(err as Error).message}`,
          `${written} of ${rows.length} merchants were written (the file's rows before line ${firstLost}); the rest were not`,
          `fix the cause, then import the rows from line ${firstLost} on as a new file`,
        ]);
      }
      written += batch.length;
      batches++;
    }
    return batches;
  }

  /** The names of the given merchant ids that exist (for output that shows a name beside an id). */
  async merchantNames(ids: Iterable<string>): Promise<Map<string, string>> {
    // Audit entities are also channel codes and rule ids; only a UUID can be a merchant. One read for the page.
    const candidates = [...new Set(ids)].filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
    return new Map((await this.repo.findMerchants(candidates)).map((m) => [m.id, m.name]));
  }

  // Allowed web origins for checkout sessions (contract §9)

  /** The merchant's allowed origins, sorted. */
  async listOrigins(merchantId: string): Promise<string[]> {
    await merchantOf(this.repo, merchantId);
    return this.repo.listOrigins(merchantId);
  }

  /**
   * Allow a web origin (validated as typed, normalised); a conflict when it is already allowed. `unicode`:
   * the host's Unicode form when it was typed as punycode, for the operator to confirm what was allowed.
   */
  async addOrigin(merchantId: string, text: string, options: { allowInsecureHttp?: boolean } = {}): Promise<{ merchantId: string; origin: string; unicode?: string; origins: string[] }> {
    const checked = normalizeOrigin(text, options);
    if (!checked.ok) throw new AdminError('invalid', [checked.problem]);
    return this.repo.transaction(async (repo) => {
      await merchantOf(repo, merchantId);
      const before = await repo.listOrigins(merchantId);
      if (!(await repo.addOrigin(merchantId, checked.origin))) throw new AdminError('conflict', [`${checked.origin} is already an allowed origin of merchant ${merchantId}`]);
      const after = await repo.listOrigins(merchantId);
      await this.#audit(repo, 'merchant.origin-add', merchantId, { origins: before }, { origins: after });
      return { merchantId, origin: checked.origin, ...(checked.unicode === undefined ? {} : { unicode: checked.unicode }), origins: after };
    });
  }

  /** Stop allowing a web origin (matched after normalisation); not found when it was not allowed. */
  async removeOrigin(merchantId: string, text: string): Promise<{ merchantId: string; origin: string; origins: string[] }> {
    // Removal never refuses an insecure origin: whatever was stored can be taken away, also an origin stored
    // before the rules of what may be added tightened, typed exactly as `origins list` shows it.
    const normalized = normalizeOrigin(text, { allowInsecureHttp: true });
    return this.repo.transaction(async (repo) => {
      await merchantOf(repo, merchantId);
      const before = await repo.listOrigins(merchantId);
      const checked = normalized.ok ? normalized : before.includes(text) ? { ok: true as const, origin: text } : normalized;
      if (!checked.ok) throw new AdminError('invalid', [checked.problem]);
      if (!(await repo.removeOrigin(merchantId, checked.origin))) throw new AdminError('not_found', [`${checked.origin} is not an allowed origin of merchant ${merchantId}`]);
      const after = await repo.listOrigins(merchantId);
      await this.#audit(repo, 'merchant.origin-remove', merchantId, { origins: before }, { origins: after });
      return { merchantId, origin: checked.origin, origins: after };
    });
  }

  /**
   * The merchant's channel order (contract §12): `codes` first, in that order, the others after in the
   * default order; null resets to the default. Every code must name a channel enabled for the merchant
   * (each unknown one is named). Audited; the merchant row's change-log trigger makes every replica apply it.
   */
  async setChannelOrder(merchantId: string, codes: readonly string[] | null): Promise<{ merchantId: string; order: string[] | null; channels: string[] }> {
    const parsed = codes === null ? null : parseChannelOrder(codes);
    if (parsed && !parsed.ok) throw new AdminError('invalid', parsed.problems);
    const order = parsed ? parsed.value : null;
    return this.repo.transaction(async (repo) => {
      const merchant = await merchantOf(repo, merchantId);
      const enabled = (await repo.enablementsOfMerchant(merchantId)).map((e) => e.code);
      const unknown = (order ?? []).filter((code) => !enabled.includes(code));
      if (unknown.length > 0) {
        throw new AdminError('invalid', unknown.map((code) => `unknown channel ${code}: not a channel of merchant ${merchantId} (its channels: ${enabled.join(', ')})`));
      }
      await repo.setChannelOrder(merchantId, order === null ? null : JSON.stringify(order));
      const before = merchant.channelOrder === null ? null : (JSON.parse(merchant.channelOrder) as string[]);
      await this.#audit(repo, 'merchant.channel-order', merchantId, { order: before }, { order });
      return { merchantId, order, channels: orderChannels(enabled, order) };
    });
  }

  async setKyc(merchantId: string, status: unknown): Promise<MerchantRecord> {
    const kyc: KycStatus = parseField('kyc', kycStatusSchema, status);
    return this.repo.transaction(async (repo) => {
      const before = await merchantOf(repo, merchantId);
      await repo.setKyc(merchantId, kyc);
      const after = (await repo.findMerchant(merchantId))!;
      await this.#audit(repo, 'merchant.set-kyc', merchantId, { kycStatus: before.kycStatus }, { kycStatus: after.kycStatus });
      return after;
    });
  }

  /** Channels enabled for a merchant, with overrides and effective values. */
  merchantChannels(merchantId: string): Promise<MerchantChannelView[]> {
    return merchantChannelViews(this.repo, merchantId);
  }

  // Keys

  /** Issue a key; the returned secret is shown once and stored only encrypted. */
  async createKey(merchantId: string, mode: unknown = 'test'): Promise<IssuedKey> {
    const keyMode: KeyMode = parseField('mode', keyModeSchema, mode);
    return this.repo.transaction(async (repo) => {
      await merchantOf(repo, merchantId);
      const key = generateKey(keyMode);
      await repo.insertKey({ id: key.apiKey, merchantId, mode: keyMode, secretCiphertext: this.secretBox.encrypt(key.apiKey, key.apiSecret) });
      await this.#audit(repo, 'key.create', key.apiKey, null, keyAudit({ id: key.apiKey, mode: keyMode, merchantId, revokedAt: null }));
      return { apiKey: key.apiKey, apiSecret: key.apiSecret, merchantId, mode: keyMode };
    });
  }

  async listKeys(merchantId: string): Promise<ApiKeyRecord[]> {
    await merchantOf(this.repo, merchantId);
    return this.repo.listKeys(merchantId);
  }

  async revokeKey(apiKey: string): Promise<ApiKeyRecord> {
    return this.repo.transaction(async (repo) => {
      const key = await repo.findKey(apiKey);
      if (!key) throw new AdminError('not_found', [`no API key ${apiKey}`]);
      if (!(await repo.revokeKey(apiKey))) throw new AdminError('conflict', [`API key ${apiKey} was already revoked at ${key.revokedAt}`]);
      const revoked = (await repo.findKey(apiKey))!;
      await this.#audit(repo, 'key.revoke', apiKey, keyAudit(key), keyAudit(revoked));
      return revoked;
    });
  }

  // Fee quote signing keys (contract §11)

  /** Every quote signing key, newest first: id, state, when it was created and retired (never key material). */
  async listQuoteKeys(): Promise<QuoteKeyListing[]> {
    return (await this.repo.listQuoteKeys()).map(quoteKeyAudit);
  }

  /**
   * Retire the signing key and make a new one sign, in one transaction (every replica picks it up through the
   * change feed within the propagation bound). The retired key stays published while its quotes may be valid.
   */
  async rotateQuoteKey(): Promise<{ signing: QuoteKeyListing; retired: QuoteKeyListing | null }> {
    const fresh = await generateQuoteKey(this.secretBox);
    return this.repo.transaction(async (repo) => {
      const before = (await repo.listQuoteKeys()).find((k) => k.state === 'signing');
      const retiredId = await repo.retireSigningQuoteKey(formatInstant(this.#now()));
      if (!(await repo.insertSigningQuoteKey(fresh))) throw new AdminError('conflict', ['another quote signing key was created at the same moment; run the command again']);
      const keys = await repo.listQuoteKeys();
      const signing = quoteKeyAudit(keys.find((k) => k.id === fresh.id)!);
      const retiredRow = retiredId === undefined ? undefined : keys.find((k) => k.id === retiredId);
      const retired = retiredRow ? quoteKeyAudit(retiredRow) : null;
      await this.#audit(repo, 'quote-key.rotate', fresh.id, before ? { signing: quoteKeyAudit(before) } : null, { signing, retired });
      return { signing, retired };
    });
  }

  // Currencies

  listCurrencies(): Promise<CurrencyRecord[]> {
    return this.repo.listCurrencies();
  }

  /** Add a currency or change its minor units (re-validating every channel settling in it). */
  async setCurrency(input: { code: unknown; minorUnits: unknown }): Promise<CurrencyRecord> {
    const c = parse(currencySchema, input);
    return this.repo.transaction(async (repo) => {
      const before = await repo.findCurrency(c.code);
      await repo.upsertCurrency(c);
      for (const ch of (await repo.catalogueChannels()).filter((x) => x.currency === c.code)) await assertChannelConsistent(repo, ch);
      await this.#audit(repo, 'currency.set', c.code, before ?? null, c);
      return c;
    });
  }

  // Catalogue

  listChannels(): Promise<CatalogueChannel[]> {
    return this.repo.listChannels();
  }

  async createChannel(input: ChannelCreateInput): Promise<CatalogueChannel> {
    // Every problem of the change at once (docs/OPERATIONS.md): the fields, the currency, the code.
    const parsed = channelCreateSchema.safeParse(input);
    const problems = parsed.success ? [] : describeIssues(parsed.error, LABELS);
    return this.repo.transaction(async (repo) => {
      const currencyCode = codeText(input.currency)?.toUpperCase();
      const currency = currencyCode ? await repo.findCurrency(currencyCode) : undefined;
      if (currencyCode && /^[A-Z]{3}$/.test(currencyCode) && !currency) problems.push(unknownCurrency(currencyCode));
      if (parsed.success && currency) problems.push(...effectiveSettingsProblems(parsed.data, currency.minorUnits));
      const code = codeText(input.code)?.toLowerCase();
      const exists = code ? await repo.findChannel(code) : undefined;
      if (problems.length > 0 || !parsed.success) throw new AdminError('invalid', exists ? [...problems, `channel ${code} already exists`] : problems);
      if (exists) throw new AdminError('conflict', [`channel ${code} already exists`]);
      const { group, ...c } = parsed.data;
      await repo.insertChannel({
        ...c,
        channelGroup: group ?? defaultGroupOf(c.code),
        id: randomUUID(),
        imagePath: `/images/channels/${c.code}.svg`,
        sortOrder: c.sortOrder ?? (await repo.nextSortOrder()),
        feeSetAt: formatInstant(this.#now()),
      });
      const created = (await repo.channelListing((await repo.findChannel(c.code))!.id))!;
      await this.#audit(repo, 'channel.create', c.code, null, created);
      return created;
    });
  }

  /**
   * Change catalogue settings of a channel. A new flat fee (`feePercentage`/`feeValue`) is a one-band CHANNEL
   * rule effective now: when it would replace a stored rule with caps, tax, a customer share or bands, it is
   * refused naming each of them unless `options.replace`.
   */
  async updateChannel(code: string, input: ChannelUpdateInput, options: { replace?: boolean } = {}): Promise<CatalogueChannel> {
    const parsed = channelUpdateSchema.safeParse(input);
    if (!parsed.success) {
      // Every problem at once: the fields, and an unknown channel or currency named as well.
      const problems = describeIssues(parsed.error, LABELS);
      const currencyCode = codeText(input.currency)?.toUpperCase();
      if (!(await channelExists(this.repo, code))) problems.push(`no channel ${code}`);
      if (currencyCode && /^[A-Z]{3}$/.test(currencyCode) && !(await this.repo.findCurrency(currencyCode))) problems.push(unknownCurrency(currencyCode));
      throw new AdminError('invalid', problems);
    }
    const { group, ...fieldsGiven } = parsed.data;
    const defined: Record<string, unknown> = Object.fromEntries(Object.entries(fieldsGiven).filter(([, v]) => v !== undefined));
    if (group !== undefined) defined.channelGroup = group;
    if (Object.keys(defined).length === 0) throw new AdminError('invalid', ['nothing to change: give at least one option']);
    // Writing the flat fee is a one-band CHANNEL rule effective now (contract §7; src/modules/pricing/domain/fee-rules.ts).
    if (defined.feePercentage !== undefined || defined.feeValue !== undefined) defined.feeSetAt = formatInstant(this.#now());
    return this.repo.transaction(async (repo) => {
      const channel = await channelOf(repo, code);
      if (defined.currency !== undefined) await currencyOf(repo, defined.currency as string);
      if (defined.feeSetAt !== undefined && !options.replace) {
        const now = this.#now();
        await refuseDrops(repo, channel, { scope: 'CHANNEL', merchantId: null, category: null }, now, now, {}, [{ upTo: null, percentage: '0', fixed: '0' }], 'pass --replace to drop them, or set the fee with fee set and restate them');
      }
      await repo.updateChannel(channel.id, defined);
      await assertChannelConsistent(repo, await channelOf(repo, code));
      const after = (await repo.channelListing(channel.id))!;
      await this.#audit(repo, 'channel.update', channel.code, channel, after);
      return after;
    });
  }

  /**
   * Set a channel's payment instructions in one language (contract §14), from an operator's JSON (an array of
   * sections or `{ "sections": [...] }`): validated (every problem at once), stored, audited. Every replica and
   * open page sees it within the propagation bound: the write is a channel change (its trigger logs it).
   */
  async setInstructions(code: string, localeText: unknown, json: unknown): Promise<ChannelInstructionsView> {
    const locale = instructionLocaleOf(localeText);
    const parsed = parseInstructionSet(json);
    if (!parsed.ok) throw new AdminError('invalid', parsed.problems);
    const text = serialiseInstructionSet(parsed.value);
    return this.repo.transaction(async (repo) => {
      const channel = await channelOf(repo, code);
      const column = locale === 'id' ? 'instructionsId' : 'instructionsEn';
      const before = instructionSetFromColumn(channel[column]).set;
      await repo.updateChannel(channel.id, { [column]: text });
      await this.#audit(repo, 'channel.instructions.set', channel.code, { locale, sections: before }, { locale, sections: parsed.value });
      return { code: channel.code, instructions: { [locale]: parsed.value } };
    });
  }

  /** A channel's stored instructions, in one language or both (null: none stored in that language). */
  async showInstructions(code: string, localeText?: unknown): Promise<ChannelInstructionsView> {
    const locales: readonly Locale[] = localeText === undefined ? LOCALES : [instructionLocaleOf(localeText)];
    const channel = await channelOf(this.repo, code);
    const instructions: Partial<Record<Locale, InstructionSet | null>> = {};
    for (const l of locales) instructions[l] = instructionSetFromColumn(l === 'id' ? channel.instructionsId : channel.instructionsEn).set;
    return { code: channel.code, instructions };
  }

  /** Enable a channel for a merchant, setting (or, with null/"default", clearing) the given overrides. */
  async enableChannel(merchantId: string, code: string, overrides: OverridesInput = {}, options: { replace?: boolean } = {}): Promise<MerchantChannelView> {
    const parsed = parse(overridesSchema, overrides);
    return this.repo.transaction(async (repo) => {
      const channel = await channelOf(repo, code);
      // A fee override is a one-band MERCHANT rule effective now: it must not drop a stored merchant rule's settings unasked.
      if (!options.replace && ((parsed as { feePercentage?: unknown }).feePercentage != null || (parsed as { feeValue?: unknown }).feeValue != null)) {
        const now = this.#now();
        await refuseDrops(repo, channel, { scope: 'MERCHANT', merchantId, category: null }, now, now, {}, [{ upTo: null, percentage: '0', fixed: '0' }], 'pass --replace to drop them, or set the fee with fee set --merchant and restate them');
      }
      const before = (await repo.findMerchant(merchantId)) && (await repo.findEnablement(merchantId, channel.id));
      await enable(repo, merchantId, code, parsed, this.#now());
      const view = (await merchantChannelViews(repo, merchantId)).find((c) => c.code === channel.code)!;
      await this.#audit(repo, 'merchant.enable-channel', merchantId, before ? { code: channel.code, overrides: overridesOf(before) } : null, { code: channel.code, overrides: view.overrides });
      return view;
    });
  }

  async disableChannel(merchantId: string, code: string): Promise<void> {
    await this.repo.transaction(async (repo) => {
      await merchantOf(repo, merchantId);
      const channel = await channelOf(repo, code);
      const before = await repo.findEnablement(merchantId, channel.id);
      if (!before || !(await repo.deleteEnablement(merchantId, channel.id))) {
        throw new AdminError('conflict', [`channel ${channel.code} is not enabled for merchant ${merchantId}`]);
      }
      await this.#audit(repo, 'merchant.disable-channel', merchantId, { code: channel.code, overrides: overridesOf(before) }, null);
    });
  }

  // Pricing rules (contract §7)

  /**
   * Set a pricing rule for a channel (its default), a category or one
   * merchant, effective now or at a later instant. Every problem with the
   * input is reported at once. Returns the stored rule.
   */
  async setFee(input: FeeSetInput): Promise<FeeRuleView> {
    const now = this.#now();
    return this.repo.transaction(async (repo) => {
      const problems: string[] = [];
      let notFound = false;
      const channel = await findChannelByCode(repo, input.channel);
      if (!channel) {
        problems.push(`no channel ${input.channel}`);
        notFound = true;
      }
      // Without the channel the currency is unknown: judge the bands' syntax with the largest precision.
      const minorUnits = channel ? (await currencyOf(repo, channel.currency)).minorUnits : 4;
      const bands = parseBands(input.bands, minorUnits);
      if (!bands.ok) problems.push(...bands.problems);
      const settings = parseFeeSettings(input, minorUnits);
      if (!settings.ok) problems.push(...settings.problems);
      if (input.merchantId !== undefined && input.category !== undefined) problems.push('give --merchant or --category, not both');
      if (input.merchantId !== undefined && !(await repo.findMerchant(input.merchantId))) {
        problems.push(`no merchant ${input.merchantId}`);
        notFound = true;
      }
      let category: string | undefined;
      if (input.category !== undefined) {
        const checked = validateCategory(input.category);
        if (!checked.ok) problems.push(...checked.problems);
        else if (checked.value !== DEFAULT_CATEGORY && !input.allowUnusedCategory && !(await repo.categoryInUse(checked.value))) {
          problems.push(
            `unknown category ${checked.value}: no merchant has it (a typo would price nobody); set a merchant's category first (merchant set-category) or pass --allow-unused-category`,
          );
        } else category = checked.value;
      }
      let effectiveFrom = now;
      if (input.effectiveFrom !== undefined) {
        const at = parseInstant(input.effectiveFrom);
        if (at === null) problems.push(`effective-from: ${JSON.stringify(input.effectiveFrom)} is not an ISO 8601 instant with seconds and a zone, e.g. 2026-03-02T00:00:00+07:00`);
        else if (at < now) problems.push(`effective-from: ${formatInstant(at)} is in the past (now ${formatInstant(now)}); omit it for "now"`);
        else effectiveFrom = at;
      }
      if (problems.length > 0 || !channel || !bands.ok || !settings.ok) throw new AdminError(notFound && problems.length === 1 ? 'not_found' : 'invalid', problems);

      const scope: RuleScope = input.merchantId !== undefined ? 'MERCHANT' : category !== undefined ? 'CATEGORY' : 'CHANNEL';
      if (!input.replace) {
        await refuseDrops(repo, channel, { scope, merchantId: input.merchantId ?? null, category: category ?? null }, effectiveFrom, now, input, bands.value, 'restate these settings, or pass --replace to drop them');
      }
      const row: FeeRuleRow = {
        id: randomUUID(),
        channelId: channel.id,
        scope,
        merchantId: input.merchantId ?? null,
        category: category ?? null,
        bands: JSON.stringify(bands.value),
        effectiveFrom: formatInstant(effectiveFrom),
        cancelledAt: null,
        createdAt: formatInstant(now),
        ...settings.value,
      };
      await repo.insertFeeRule(row);
      const view = ruleView(ruleFromRow(row, channel.code), effectiveFrom > now ? 'scheduled' : 'in-force');
      await this.#audit(repo, 'fee.set', channel.code, null, view);
      return view;
    });
  }

  /**
   * The rules of a channel in force now and scheduled. With a merchant: the
   * rule that prices that merchant's payments now, then every later rule that
   * applies to it. Without: per scope (channel default, each category, each
   * merchant) the rule in force and the scheduled ones.
   */
  async listFees(code: string, merchantId?: string): Promise<FeeRuleView[]> {
    const now = this.#now();
    const channel = await channelOf(this.repo, code);
    if (merchantId !== undefined) {
      const merchant = await merchantOf(this.repo, merchantId);
      const who = { merchantId, category: merchant.category };
      const stored = (await this.repo.feeRulesFor(channel.id, who)).map((r) => ruleFromRow(r, channel.code));
      const rules = rulesForMerchant(stored, channel, (await this.repo.findEnablement(merchantId, channel.id)) ?? undefined);
      const inForce = ruleInForce(rules, who, now);
      return [...(inForce ? [ruleView(inForce, 'in-force')] : []), ...scheduledRules(rules, who, now).map((r) => ruleView(r, 'scheduled'))];
    }
    const stored = (await this.repo.feeRulesOf(channel.id)).map((r) => ruleFromRow(r, channel.code));
    const rules = [...stored, ...rulesForMerchantOverrides(channel, await this.repo.overriddenEnablementsOf(channel.id))];
    const groups = new Map<string, FeeRule[]>();
    for (const r of rules) {
      const key = `${r.scope}:${r.merchantId ?? r.category ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const out: FeeRuleView[] = [];
    for (const group of groups.values()) {
      const first = group[0]!;
      // A subject that matches exactly this group's scope and target.
      const inForce = ruleInForce(group, { merchantId: first.merchantId ?? '', category: first.category ?? '' }, now);
      if (inForce) out.push(ruleView(inForce, 'in-force'));
      for (const r of group) if (r.cancelledAt == null && parseInstant(r.effectiveFrom)! > now) out.push(ruleView(r, 'scheduled'));
    }
    const order: Record<RuleScope, number> = { CHANNEL: 0, CATEGORY: 1, MERCHANT: 2 };
    return out.sort((a, b) => order[a.scope] - order[b.scope] || (a.category ?? a.merchantId ?? '').localeCompare(b.category ?? b.merchantId ?? '') || a.effectiveFrom.localeCompare(b.effectiveFrom));
  }

  /**
   * A page of {@link listFees}: at most `limit` (1 to 1000, default 100; a larger number from `--all`) after the
   * rule `after` in its order; `next` the cursor of the following page, null on the last.
   */
  async feesPage(code: string, input: { merchantId?: string; after?: string; limit?: string | number }): Promise<{ rules: FeeRuleView[]; next: string | null }> {
    const limit = input.limit === Number.MAX_SAFE_INTEGER ? input.limit : pageLimit(input.limit);
    const list = await this.listFees(code, input.merchantId);
    let from = 0;
    if (input.after !== undefined) {
      const at = list.findIndex((r) => r.id === input.after!.trim());
      if (at === -1) throw new AdminError('invalid', [`after: rule ${input.after} is not in this list (the cursor is the rule id a page ends with)`]);
      from = at + 1;
    }
    const rules = list.slice(from, from + limit);
    return { rules, next: from + limit < list.length ? rules[rules.length - 1]!.id : null };
  }

  /** Cancel a scheduled rule before it starts. */
  async cancelFee(ruleId: string): Promise<FeeRuleView> {
    if (ruleId.startsWith(FLAT_RULE_PREFIX)) {
      throw new AdminError('invalid', [`${ruleId} is the implicit rule of a flat fee setting; change it with channel update or merchant enable-channel, or set a rule`]);
    }
    const now = formatInstant(this.#now());
    return this.repo.transaction(async (repo) => {
      const row = await repo.findFeeRule(ruleId);
      if (!row) throw new AdminError('not_found', [`no fee rule ${ruleId}`]);
      if (row.cancelledAt !== null) throw new AdminError('conflict', [`fee rule ${ruleId} was already cancelled at ${row.cancelledAt}`]);
      if (!(await repo.cancelFeeRule(ruleId, now))) {
        throw new AdminError('conflict', [`fee rule ${ruleId} is in force since ${row.effectiveFrom} and can no longer be cancelled; set a new rule instead`]);
      }
      const channel = (await repo.catalogueChannels()).find((c) => c.id === row.channelId)!;
      const before = ruleView(ruleFromRow(row, channel.code), 'scheduled');
      const after = ruleView(ruleFromRow((await repo.findFeeRule(ruleId))!, channel.code), 'cancelled');
      await this.#audit(repo, 'fee.cancel', channel.code, before, after);
      return after;
    });
  }

  // Audit

  /** Audit records, newest first. `since` is an ISO 8601 instant; `limit` 1..1000 (default 100). */
  async listAudit(filter: AuditListFilter = {}): Promise<AuditEntry[]> {
    return (await this.auditPage(filter)).entries;
  }

  /**
   * One page of audit records, newest first, older than the record `after` (its id, the cursor a page
   * ends with); `next` is the cursor of the following page, null on the last.
   */
  async auditPage(filter: AuditListFilter = {}): Promise<{ entries: AuditEntry[]; next: string | null }> {
    const problems: string[] = [];
    let since: string | undefined;
    if (filter.since !== undefined) {
      const at = parseInstant(filter.since);
      if (at === null) problems.push(`since: ${JSON.stringify(filter.since)} is not an ISO 8601 instant with seconds and a zone`);
      else since = formatInstant(at);
    }
    let limit = 0;
    try {
      limit = pageLimit(filter.limit);
    } catch (err) {
      problems.push(...(err as AdminError).problems);
    }
    const cursor = filter.after === undefined ? undefined : await this.repo.findAudit(filter.after.trim());
    if (filter.after !== undefined && cursor === undefined) problems.push(`after: no audit record ${filter.after} (the cursor is the id a page ends with)`);
    if (problems.length > 0) throw new AdminError('invalid', problems);
    const rows = await this.repo.listAudit({ entity: filter.entity?.trim(), since, before: cursor && { at: cursor.at, id: cursor.id }, limit: limit + 1 });
    const entries = rows.slice(0, limit).map(auditEntry);
    return { entries, next: rows.length > limit ? entries[entries.length - 1]!.id : null };
  }

  /** Every audit record of the filter, newest first, read a page at a time. */
  async *allAudit(filter: Omit<AuditListFilter, 'limit'> = {}, pageSize = STREAM_PAGE): AsyncGenerator<AuditEntry> {
    let after = filter.after;
    for (;;) {
      const page = await this.auditPage({ ...filter, after, limit: pageSize });
      yield* page.entries;
      if (page.next === null) return;
      after = page.next;
    }
  }
}

/** Rows a listing reads per page when it streams every row (`--all`). */
const STREAM_PAGE = 1000;

/** Merchants per transaction of an import: a few milliseconds of write lock each, and a slice a replica catches up on at once. */
export const IMPORT_BATCH = 2000;

/** A page size as given (`--limit`): 1 to 1000, default 100. */
function pageLimit(text: string | number | undefined): number {
  const limit = text === undefined ? 100 : Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AdminError('invalid', [`limit: must be a whole number from 1 to 1000, got ${JSON.stringify(text)}`]);
  return limit;
}

/** Counts of values (`pending → approved`: 12), at most {@link Tally.MAX} distinct ones (the rest summed as `other`). */
class Tally {
  static readonly MAX = 50;
  readonly #counts = new Map<string, number>();

  add(key: string): void {
    const k = this.#counts.has(key) || this.#counts.size < Tally.MAX ? key : 'other';
    this.#counts.set(k, (this.#counts.get(k) ?? 0) + 1);
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }
}

function auditEntry(r: AuditRow): AuditEntry {
  return { id: r.id, at: r.at, actor: r.actor, action: r.action, entity: r.entity, before: r.before === null ? null : JSON.parse(r.before), after: r.after === null ? null : JSON.parse(r.after) };
}

function ruleView(r: FeeRule, state: FeeRuleView['state']): FeeRuleView {
  return {
    id: r.id,
    channel: r.channelCode,
    scope: r.scope,
    merchantId: r.merchantId ?? null,
    category: r.category ?? null,
    bands: r.bands,
    bandsText: formatBands(r.bands),
    effectiveFrom: r.effectiveFrom,
    createdAt: r.createdAt,
    cancelledAt: r.cancelledAt ?? null,
    state: r.cancelledAt != null ? 'cancelled' : state,
    implicit: r.id.startsWith(FLAT_RULE_PREFIX),
    minFee: r.settings?.minFee ?? null,
    maxFee: r.settings?.maxFee ?? null,
    taxPercentage: r.settings?.taxPercentage ?? null,
    customerShare: r.settings?.customerShare ?? null,
  };
}

/**
 * What a new rule would lose of the rule it replaces, as the flags that would keep it: each cap, the tax, the
 * customer share the old rule has and the new one does not give, and each bounded band whose upper bound the
 * new bands do not restate.
 */
function droppedSettings(old: FeeRuleView, input: Pick<FeeSetInput, 'minFee' | 'maxFee' | 'taxPercentage' | 'customerShare'>, bands: readonly FeeBand[]): string[] {
  const out: string[] = [];
  if (old.minFee !== null && input.minFee === undefined) out.push(`its minimum fee (--min-fee ${old.minFee})`);
  if (old.maxFee !== null && input.maxFee === undefined) out.push(`its maximum fee (--max-fee ${old.maxFee})`);
  if (old.taxPercentage !== null && input.taxPercentage === undefined) out.push(`its tax (--tax ${old.taxPercentage})`);
  if (old.customerShare !== null && input.customerShare === undefined) out.push(`its customer share (--customer-share ${old.customerShare})`);
  const bounds = new Set(bands.map((b) => (b.upTo === null ? null : Number(b.upTo))));
  for (const b of old.bands) if (b.upTo !== null && !bounds.has(Number(b.upTo))) out.push(`its band up to ${b.upTo} (${formatBands([b])})`);
  return out;
}

/**
 * Refuse (AdminError 'conflict', naming each setting) a new rule of `target`'s scope effective at `atMs` that
 * would drop settings of the stored rule it takes over from: the one of the same scope and target in force at
 * that instant (in force now, or scheduled before it). Implicit flat rules carry one unbounded band and no
 * settings, so only stored rules can lose something.
 */
async function refuseDrops(
  repo: AdminRepository,
  channel: CatalogueChannelRecord,
  target: { scope: RuleScope; merchantId: string | null; category: string | null },
  atMs: number,
  nowMs: number,
  given: Pick<FeeSetInput, 'minFee' | 'maxFee' | 'taxPercentage' | 'customerShare'>,
  bands: readonly FeeBand[],
  howToConfirm: string,
): Promise<void> {
  const sameScope = (await repo.feeRulesFor(channel.id, { merchantId: target.merchantId, category: target.category }))
    .map((r) => ruleFromRow(r, channel.code))
    .filter((r) => r.scope === target.scope && (r.merchantId ?? null) === target.merchantId && (r.category ?? null) === target.category);
  const replaced = ruleInForce(sameScope, { merchantId: target.merchantId ?? '', category: target.category ?? '' }, atMs);
  if (!replaced) return;
  const dropped = droppedSettings(ruleView(replaced, 'in-force'), given, bands);
  if (dropped.length === 0) return;
  const since = parseInstant(replaced.effectiveFrom)! > nowMs ? `scheduled from ${replaced.effectiveFrom}` : `in force since ${replaced.effectiveFrom}`;
  throw new AdminError('conflict', [...dropped.map((d) => `the new rule would drop ${d} of rule ${replaced.id} (${since})`), `nothing changed: ${howToConfirm}`]);
}

/** The channel's implicit rule and every merchant override's implicit rule. */
function rulesForMerchantOverrides(channel: CatalogueChannelRecord, enablements: MerchantChannelRecord[]): FeeRule[] {
  const out = rulesForMerchant([], channel, undefined);
  for (const e of enablements) out.push(...rulesForMerchant([], channel, e).filter((r) => r.scope === 'MERCHANT'));
  return out;
}

/** Codes in the default order, with `order`'s first (the catalogue's rule, for the CLI's answer). */
function orderChannels(defaultOrder: string[], order: string[] | null): string[] {
  if (order === null) return defaultOrder;
  return [...order.filter((c) => defaultOrder.includes(c)), ...defaultOrder.filter((c) => !order.includes(c))];
}

// Internals: each takes the repository of the caller's transaction.

async function merchantChannelViews(repo: AdminRepository, merchantId: string): Promise<MerchantChannelView[]> {
  await merchantOf(repo, merchantId);
  const catalogue = new Map((await repo.catalogueChannels()).map((c) => [c.code, c]));
  return (await repo.enablementsOfMerchant(merchantId)).map((e) => {
    const overrides = overridesOf(e.overrides);
    return { code: e.code, status: e.status, overrides, effective: applyOverrides(settingsOf(catalogue.get(e.code)!), overrides) };
  });
}

async function enable(repo: AdminRepository, merchantId: string, code: string, overrides: OverrideWrite, nowMs: number): Promise<void> {
  await merchantOf(repo, merchantId);
  const channel = await channelOf(repo, code);
  const writes = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as OverrideWrite;
  // Setting or clearing a fee override is a one-band MERCHANT rule effective now, or its removal (src/modules/pricing/domain/fee-rules.ts).
  if ('feePercentage' in writes || 'feeValue' in writes) writes.feeSetAt = formatInstant(nowMs);
  await repo.upsertEnablement(merchantId, channel.id, writes);
  const row = (await repo.findEnablement(merchantId, channel.id))!;
  const problems = effectiveSettingsProblems(applyOverrides(settingsOf(channel), overridesOf(row)), (await currencyOf(repo, channel.currency)).minorUnits);
  if (problems.length > 0) throw new AdminError('invalid', problems.map((p) => `for merchant ${merchantId}: ${p}`));
}

/**
 * The channel's own settings and every merchant's effective settings must stay valid. Only enablements that
 * override something can differ from the channel's own settings, so only those are read: the check costs the
 * channel's overrides, not the merchants it is enabled for.
 */
async function assertChannelConsistent(repo: AdminRepository, channel: CatalogueChannelRecord): Promise<void> {
  const { minorUnits } = await currencyOf(repo, channel.currency);
  const base = settingsOf(channel);
  const problems = effectiveSettingsProblems(base, minorUnits);
  for (const e of await repo.overriddenEnablementsOf(channel.id)) {
    const overrides = overridesOf(e);
    for (const p of effectiveSettingsProblems(applyOverrides(base, overrides), minorUnits)) {
      problems.push(`with the overrides of merchant ${e.merchantId}: ${p}`);
    }
  }
  if (problems.length > 0) throw new AdminError('invalid', problems);
}

async function merchantOf(repo: AdminRepository, id: string): Promise<MerchantRecord> {
  const m = await repo.findMerchant(id);
  if (!m) throw new AdminError('not_found', [`no merchant ${id}`]);
  return m;
}

async function findChannelByCode(repo: AdminRepository, code: string): Promise<CatalogueChannelRecord | undefined> {
  const parsed = channelCodeSchema.safeParse(code.trim().toLowerCase());
  return parsed.success ? repo.findChannel(parsed.data) : undefined;
}

/** A channel's instructions as the admin CLI shows them, per language. */
export interface ChannelInstructionsView {
  code: string;
  instructions: Partial<Record<Locale, InstructionSet | null>>;
}

function instructionLocaleOf(text: unknown): Locale {
  if (text === 'id' || text === 'en') return text;
  throw new AdminError('invalid', [`--locale must be id or en${typeof text === 'string' ? ` (got "${text.slice(0, 20)}")` : ''}`]);
}

async function channelOf(repo: AdminRepository, code: string): Promise<CatalogueChannelRecord> {
  const c = await findChannelByCode(repo, code);
  if (!c) throw new AdminError('not_found', [`no channel ${code}`]);
  return c;
}

async function currencyOf(repo: AdminRepository, code: string): Promise<CurrencyRecord> {
  const c = await repo.findCurrency(code);
  if (!c) throw new AdminError('not_found', [unknownCurrency(code)]);
  return c;
}

function unknownCurrency(code: string): string {
  return `unknown currency ${code}; add it first: admin currency set ${code} --minor-units N`;
}

/** A trimmed string option, or undefined (for naming things in messages before the input has parsed). */
function codeText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

async function channelExists(repo: AdminRepository, code: string): Promise<boolean> {
  const parsed = channelCodeSchema.safeParse(code.trim().toLowerCase());
  return parsed.success && (await repo.findChannel(parsed.data)) !== undefined;
}
