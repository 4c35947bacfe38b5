/**
 * Operator changes (merchants, keys, catalogue, enablement). The admin CLI
 * is a thin layer over this service; every change is validated here, with
 * the rules of src/domain/channel-rules.ts, and written in one transaction
 * on either engine (src/repositories/admin.ts). Running servers see a
 * committed change through the change log (src/db/catalog.ts): SQLite on the
 * next request, Postgres replicas within a second (docs/SCALING.md).
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { generateKey } from '../auth/keys.js';
import type { SecretBox } from '../auth/secret-box.js';
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
import type { AdminRepository, CatalogueChannelRecord, CurrencyRecord, MerchantChannelRecord, OverrideWrite } from '../repositories/admin.js';
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
  /**
   * @param repo the engine's operator repository (`store.admin`)
   * @param secretBox encrypts newly issued secrets
   */
  constructor(
    private readonly repo: AdminRepository,
    private readonly secretBox: SecretBox,
  ) {}

  // Merchants

  async createMerchant(input: { name: unknown; kycStatus?: unknown; channels?: string[] | 'all' }): Promise<MerchantRecord> {
    const m = parse(merchantCreateSchema, { name: input.name, kycStatus: input.kycStatus });
    const id = randomUUID();
    return this.repo.transaction(async (repo) => {
      await repo.insertMerchant({ id, name: m.name, kycStatus: m.kycStatus });
      if (input.channels !== undefined) {
        const codes = input.channels === 'all' ? (await repo.listChannels()).map((c) => c.code) : input.channels;
        for (const code of codes) await enable(repo, id, code, {});
      }
      return (await repo.findMerchant(id))!;
    });
  }

  listMerchants(): Promise<MerchantRecord[]> {
    return this.repo.listMerchants();
  }

  async setKyc(merchantId: string, status: unknown): Promise<MerchantRecord> {
    const kyc: KycStatus = parseField('kyc', kycStatusSchema, status);
    return this.repo.transaction(async (repo) => {
      await merchantOf(repo, merchantId);
      await repo.setKyc(merchantId, kyc);
      return (await repo.findMerchant(merchantId))!;
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
      return (await repo.findKey(apiKey))!;
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
      await repo.upsertCurrency(c);
      for (const ch of (await repo.listChannels()).filter((x) => x.currency === c.code)) await assertChannelConsistent(repo, ch);
      return c;
    });
  }

  // Catalogue

  listChannels(): Promise<CatalogueChannel[]> {
    return this.repo.listChannels();
  }

  async createChannel(input: ChannelCreateInput): Promise<CatalogueChannel> {
    const c = parse(channelCreateSchema, input);
    return this.repo.transaction(async (repo) => {
      const currency = await currencyOf(repo, c.currency);
      const problems = effectiveSettingsProblems(c, currency.minorUnits);
      if (problems.length > 0) throw new AdminError('invalid', problems);
      if (await repo.findChannel(c.code)) throw new AdminError('conflict', [`channel ${c.code} already exists`]);
      await repo.insertChannel({
        ...c,
        id: randomUUID(),
        imagePath: `/images/channels/${c.code}.svg`,
        sortOrder: c.sortOrder ?? (await repo.nextSortOrder()),
      });
      return (await repo.listChannels()).find((x) => x.code === c.code)!;
    });
  }

  async updateChannel(code: string, input: ChannelUpdateInput): Promise<CatalogueChannel> {
    const changes = parse(channelUpdateSchema, input);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(defined).length === 0) throw new AdminError('invalid', ['nothing to change: give at least one option']);
    return this.repo.transaction(async (repo) => {
      const channel = await channelOf(repo, code);
      if (defined.currency !== undefined) await currencyOf(repo, defined.currency as string);
      await repo.updateChannel(channel.id, defined);
      await assertChannelConsistent(repo, await channelOf(repo, code));
      return (await repo.listChannels()).find((x) => x.code === channel.code)!;
    });
  }

  /** Enable a channel for a merchant, setting (or, with null/"default", clearing) the given overrides. */
  async enableChannel(merchantId: string, code: string, overrides: OverridesInput = {}): Promise<MerchantChannelView> {
    const parsed = parse(overridesSchema, overrides);
    return this.repo.transaction(async (repo) => {
      await enable(repo, merchantId, code, parsed);
      return (await merchantChannelViews(repo, merchantId)).find((c) => c.code === code.trim().toLowerCase())!;
    });
  }

  async disableChannel(merchantId: string, code: string): Promise<void> {
    await this.repo.transaction(async (repo) => {
      await merchantOf(repo, merchantId);
      const channel = await channelOf(repo, code);
      if (!(await repo.deleteEnablement(merchantId, channel.id))) {
        throw new AdminError('conflict', [`channel ${channel.code} is not enabled for merchant ${merchantId}`]);
      }
    });
  }
}

// Internals: each takes the repository of the caller's transaction.

async function merchantChannelViews(repo: AdminRepository, merchantId: string): Promise<MerchantChannelView[]> {
  await merchantOf(repo, merchantId);
  const catalogue = new Map((await repo.listChannels()).map((c) => [c.code, c]));
  return (await repo.enablementsOfMerchant(merchantId)).map((e) => {
    const overrides = overridesOf(e.overrides);
    return { code: e.code, status: e.status, overrides, effective: applyOverrides(settingsOf(catalogue.get(e.code)!), overrides) };
  });
}

async function enable(repo: AdminRepository, merchantId: string, code: string, overrides: OverrideWrite): Promise<void> {
  await merchantOf(repo, merchantId);
  const channel = await channelOf(repo, code);
  const writes = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as OverrideWrite;
  await repo.upsertEnablement(merchantId, channel.id, writes);
  const row = (await repo.findEnablement(merchantId, channel.id))!;
  const problems = effectiveSettingsProblems(applyOverrides(settingsOf(channel), overridesOf(row)), (await currencyOf(repo, channel.currency)).minorUnits);
  if (problems.length > 0) throw new AdminError('invalid', problems.map((p) => `for merchant ${merchantId}: ${p}`));
}

/** The channel's own settings and every merchant's effective settings must stay valid. */
async function assertChannelConsistent(repo: AdminRepository, channel: CatalogueChannelRecord): Promise<void> {
  const { minorUnits } = await currencyOf(repo, channel.currency);
  const base = settingsOf(channel);
  const problems = effectiveSettingsProblems(base, minorUnits);
  for (const e of await repo.enablementsOf(channel.id)) {
    const overrides = overridesOf(e);
    if (Object.keys(overrides).length === 0) continue;
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

async function channelOf(repo: AdminRepository, code: string): Promise<CatalogueChannelRecord> {
  const parsed = channelCodeSchema.safeParse(code.trim().toLowerCase());
  const c = parsed.success ? await repo.findChannel(parsed.data) : undefined;
  if (!c) throw new AdminError('not_found', [`no channel ${code}`]);
  return c;
}

async function currencyOf(repo: AdminRepository, code: string): Promise<CurrencyRecord> {
  const c = await repo.findCurrency(code);
  if (!c) throw new AdminError('not_found', [`unknown currency ${code}; add it first: admin currency set ${code} --minor-units N`]);
  return c;
}
