/**
 * Operator changes (merchants, keys, catalogue, enablement). The admin CLI
 * is a thin layer over this service; every change is validated here, with
 * the rules of src/domain/channel-rules.ts, and written in one synchronous
 * transaction. A running server sees a committed change on its next request
 * (it reads through its own connection; see docs/OPERATIONS.md).
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { generateKey } from '../auth/keys.js';
import type { SecretBox } from '../auth/secret-box.js';
import type { Db } from '../db/client.js';
import type { KeyMode, KycStatus } from '../db/schema.js';
import {
  applyOverrides,
  channelCodeSchema,
  channelCreateSchema,
  channelUpdateSchema,
  currencySchema,
  describeIssues,
  effectiveSettingsProblems,
  keyModeSchema,
  kycStatusSchema,
  merchantCreateSchema,
  overridesSchema,
  type ChannelCreateInput,
  type ChannelSettings,
  type ChannelUpdateInput,
  type OverridesInput,
} from '../domain/channel-rules.js';
import { AdminRepository, type CatalogueChannelRecord, type CurrencyRecord, type MerchantChannelRecord, type OverrideWrite } from '../repositories/admin.js';
import type { ApiKeyRecord, MerchantRecord } from '../repositories/merchants.js';

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

/** A catalogue channel as listed to operators. */
export type CatalogueChannel = CatalogueChannelRecord & { minorUnits: number; enabledFor: number };

/** A channel as enabled for one merchant: the raw overrides and the resulting effective settings. */
export interface MerchantChannelView {
  code: string;
  status: string;
  overrides: Partial<ChannelSettings>;
  effective: ChannelSettings;
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
  readonly #repo: AdminRepository;

  constructor(
    db: Db,
    private readonly secretBox: SecretBox,
  ) {
    this.#repo = new AdminRepository(db);
  }

  // Merchants

  createMerchant(input: { name: unknown; kycStatus?: unknown; channels?: string[] | 'all' }): MerchantRecord {
    const m = parse(merchantCreateSchema, { name: input.name, kycStatus: input.kycStatus });
    const id = randomUUID();
    return this.#repo.transaction(() => {
      this.#repo.insertMerchant({ id, name: m.name, kycStatus: m.kycStatus });
      if (input.channels !== undefined) {
        const codes = input.channels === 'all' ? this.#repo.listChannels().map((c) => c.code) : input.channels;
        for (const code of codes) this.#enable(id, code, {});
      }
      return this.#repo.findMerchant(id)!;
    });
  }

  listMerchants(): MerchantRecord[] {
    return this.#repo.listMerchants();
  }

  setKyc(merchantId: string, status: unknown): MerchantRecord {
    const kyc: KycStatus = parseField('kyc', kycStatusSchema, status);
    return this.#repo.transaction(() => {
      this.#merchant(merchantId);
      this.#repo.setKyc(merchantId, kyc);
      return this.#repo.findMerchant(merchantId)!;
    });
  }

  /** Channels enabled for a merchant, with overrides and effective values. */
  merchantChannels(merchantId: string): MerchantChannelView[] {
    this.#merchant(merchantId);
    const catalogue = new Map(this.#repo.listChannels().map((c) => [c.code, c]));
    return this.#repo.enablementsOfMerchant(merchantId).map((e) => {
      const overrides = overridesOf(e.overrides);
      return { code: e.code, status: e.status, overrides, effective: applyOverrides(settingsOf(catalogue.get(e.code)!), overrides) };
    });
  }

  // Keys

  /** Issue a key; the returned secret is shown once and stored only encrypted. */
  createKey(merchantId: string, mode: unknown = 'test'): IssuedKey {
    const keyMode: KeyMode = parseField('mode', keyModeSchema, mode);
    return this.#repo.transaction(() => {
      this.#merchant(merchantId);
      const key = generateKey(keyMode);
      this.#repo.insertKey({ id: key.apiKey, merchantId, mode: keyMode, secretCiphertext: this.secretBox.encrypt(key.apiKey, key.apiSecret) });
      return { apiKey: key.apiKey, apiSecret: key.apiSecret, merchantId, mode: keyMode };
    });
  }

  listKeys(merchantId: string): ApiKeyRecord[] {
    this.#merchant(merchantId);
    return this.#repo.listKeys(merchantId);
  }

  revokeKey(apiKey: string): ApiKeyRecord {
    return this.#repo.transaction(() => {
      const key = this.#repo.findKey(apiKey);
      if (!key) throw new AdminError('not_found', [`no API key ${apiKey}`]);
      if (!this.#repo.revokeKey(apiKey)) throw new AdminError('conflict', [`API key ${apiKey} was already revoked at ${key.revokedAt}`]);
      return this.#repo.findKey(apiKey)!;
    });
  }

  // Currencies

  listCurrencies(): CurrencyRecord[] {
    return this.#repo.listCurrencies();
  }

  /** Add a currency or change its minor units (re-validating every channel settling in it). */
  setCurrency(input: { code: unknown; minorUnits: unknown }): CurrencyRecord {
    const c = parse(currencySchema, input);
    return this.#repo.transaction(() => {
      this.#repo.upsertCurrency(c);
      for (const ch of this.#repo.listChannels().filter((x) => x.currency === c.code)) this.#assertChannelConsistent(ch);
      return c;
    });
  }

  // Catalogue

  listChannels(): CatalogueChannel[] {
    return this.#repo.listChannels();
  }

  createChannel(input: ChannelCreateInput): CatalogueChannel {
    const c = parse(channelCreateSchema, input);
    return this.#repo.transaction(() => {
      const currency = this.#currency(c.currency);
      const problems = effectiveSettingsProblems(c, currency.minorUnits);
      if (problems.length > 0) throw new AdminError('invalid', problems);
      if (this.#repo.findChannel(c.code)) throw new AdminError('conflict', [`channel ${c.code} already exists`]);
      this.#repo.insertChannel({
        ...c,
        id: randomUUID(),
        imagePath: `/images/channels/${c.code}.svg`,
        sortOrder: c.sortOrder ?? this.#repo.nextSortOrder(),
      });
      return this.#repo.listChannels().find((x) => x.code === c.code)!;
    });
  }

  updateChannel(code: string, input: ChannelUpdateInput): CatalogueChannel {
    const changes = parse(channelUpdateSchema, input);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(defined).length === 0) throw new AdminError('invalid', ['nothing to change: give at least one option']);
    return this.#repo.transaction(() => {
      const channel = this.#channel(code);
      if (defined.currency !== undefined) this.#currency(defined.currency as string);
      this.#repo.updateChannel(channel.id, defined);
      this.#assertChannelConsistent(this.#channel(code));
      return this.#repo.listChannels().find((x) => x.code === channel.code)!;
    });
  }

  /** Enable a channel for a merchant, setting (or, with null/"default", clearing) the given overrides. */
  enableChannel(merchantId: string, code: string, overrides: OverridesInput = {}): MerchantChannelView {
    const parsed = parse(overridesSchema, overrides);
    return this.#repo.transaction(() => {
      this.#enable(merchantId, code, parsed);
      return this.merchantChannels(merchantId).find((c) => c.code === code.trim().toLowerCase())!;
    });
  }

  disableChannel(merchantId: string, code: string): void {
    this.#repo.transaction(() => {
      this.#merchant(merchantId);
      const channel = this.#channel(code);
      if (!this.#repo.deleteEnablement(merchantId, channel.id)) {
        throw new AdminError('conflict', [`channel ${channel.code} is not enabled for merchant ${merchantId}`]);
      }
    });
  }

  // Internals (called inside a transaction)

  #enable(merchantId: string, code: string, overrides: OverrideWrite): void {
    this.#merchant(merchantId);
    const channel = this.#channel(code);
    const writes = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as OverrideWrite;
    this.#repo.upsertEnablement(merchantId, channel.id, writes);
    const row = this.#repo.findEnablement(merchantId, channel.id)!;
    const problems = effectiveSettingsProblems(applyOverrides(settingsOf(channel), overridesOf(row)), this.#currency(channel.currency).minorUnits);
    if (problems.length > 0) throw new AdminError('invalid', problems.map((p) => `for merchant ${merchantId}: ${p}`));
  }

  /** The channel's own settings and every merchant's effective settings must stay valid. */
  #assertChannelConsistent(channel: CatalogueChannelRecord): void {
    const { minorUnits } = this.#currency(channel.currency);
    const base = settingsOf(channel);
    const problems = effectiveSettingsProblems(base, minorUnits);
    for (const e of this.#repo.enablementsOf(channel.id)) {
      const overrides = overridesOf(e);
      if (Object.keys(overrides).length === 0) continue;
      for (const p of effectiveSettingsProblems(applyOverrides(base, overrides), minorUnits)) {
        problems.push(`with the overrides of merchant ${e.merchantId}: ${p}`);
      }
    }
    if (problems.length > 0) throw new AdminError('invalid', problems);
  }

  #merchant(id: string): MerchantRecord {
    const m = this.#repo.findMerchant(id);
    if (!m) throw new AdminError('not_found', [`no merchant ${id}`]);
    return m;
  }

  #channel(code: string): CatalogueChannelRecord {
    const parsed = channelCodeSchema.safeParse(code.trim().toLowerCase());
    const c = parsed.success ? this.#repo.findChannel(parsed.data) : undefined;
    if (!c) throw new AdminError('not_found', [`no channel ${code}`]);
    return c;
  }

  #currency(code: string): CurrencyRecord {
    const c = this.#repo.findCurrency(code);
    if (!c) throw new AdminError('not_found', [`unknown currency ${code}; add it first: admin currency set ${code} --minor-units N`]);
    return c;
  }
}
