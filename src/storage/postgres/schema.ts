/**
 * Database schema for Postgres (drizzle pg-core): the twin of the SQLite
 * schema in src/storage/sqlite/schema.ts, with the same table and column names and the
 * same TypeScript row shapes, so repositories and the in-memory catalogue
 * treat both engines alike. Migrations in `drizzle/pg/` (drizzle.pg.config.ts).
 *
 * Invariants as in schema.ts. Timestamps stay ISO-8601 UTC text (as in
 * SQLite) so records compare and serialise identically on both engines.
 * `change_log` is written by statement-level triggers (custom migrations; a
 * statement logs each entity it touched once) that also take a
 * transaction-scoped advisory lock before taking a sequence number, so
 * sequence order is commit order, and `pg_notify('gateway_changes')` in the
 * committing transaction.
 */
import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { CHANGE_ENTITIES, CHANNEL_GROUPS, CHANNEL_STATUSES, EPOCH, KEY_MODES, KYC_STATUSES, QUOTE_KEY_STATES, RULE_SCOPES } from '../../shared/vocabulary.js';
import { feeRuleScopeCheck, overriddenSql } from '../model/schema-checks.js';
import type { ChannelInsert, Conforms, ModelRows, RowTypesConform } from '../model/rows.js';

const now = sql`(to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

export const currencies = pgTable(
  'currencies',
  {
    code: text('code').primaryKey(),
    minorUnits: integer('minor_units').notNull(),
  },
  (t) => [check('currencies_minor_units', sql`${t.minorUnits} between 0 and 4`)],
);

export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    kycStatus: text('kyc_status', { enum: KYC_STATUSES }).notNull().default('pending'),
    createdAt: text('created_at').notNull().default(now),
    category: text('category').notNull().default('regular'),
    /**
     * The merchant's channel order (contract §12): JSON array of channel codes listed first, in that order;
     * null: the default order. Written by `merchant channels order`; a code no longer enabled is skipped.
     */
    channelOrder: text('channel_order'),
  },
  (t) => [
    check('merchants_kyc_status', sql`${t.kycStatus} in ('approved', 'pending', 'rejected')`),
    // Whether a category is in use (`fee set --category` refuses one no merchant has) without reading every merchant.
    index('merchants_category_idx').on(t.category),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: KEY_MODES }).notNull(),
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: text('created_at').notNull().default(now),
    revokedAt: text('revoked_at'),
  },
  (t) => [index('api_keys_merchant_idx').on(t.merchantId), check('api_keys_mode', sql`${t.mode} in ('test', 'live')`)],
);

export const channels = pgTable(
  'channels',
  {
    id: text('id').primaryKey(),
    code: text('code').notNull().unique(),
    name: text('name').notNull(),
    imagePath: text('image_path').notNull(),
    status: text('status', { enum: CHANNEL_STATUSES }).notNull().default('active'),
    currency: text('currency')
      .notNull()
      .references(() => currencies.code),
    feePercentage: text('fee_percentage').notNull().default('0'),
    feeValue: text('fee_value').notNull().default('0'),
    additionalFeePercentage: text('additional_fee_percentage').notNull().default('0'),
    additionalFeeValue: text('additional_fee_value').notNull().default('0'),
    minAmount: text('min_amount').notNull(),
    maxAmount: text('max_amount').notNull(),
    feeChargedToCustomer: boolean('fee_charged_to_customer').notNull(),
    requiresKyc: boolean('requires_kyc').notNull().default(false),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    feeSetAt: text('fee_set_at').notNull().default(EPOCH),
    /** The group the channel is shown under (contract §12); the backfill migration groups existing channels. */
    channelGroup: text('channel_group', { enum: CHANNEL_GROUPS }).notNull().default('ewallet'),
    /** Display name in Indonesian / English (contract §12); null: `name` applies. */
    nameId: text('name_id'),
    nameEn: text('name_en'),
    /**
     * Payment instructions in Indonesian / English (contract §14): JSON text of the sections, validated by
     * parseInstructionSet (src/modules/channels/domain/instructions.ts) before it is written; null: none.
     */
    instructionsId: text('instructions_id'),
    instructionsEn: text('instructions_en'),
  },
  (t) => [
    check('channels_status', sql`${t.status} in ('active', 'offline', 'maintenance')`),
    check('channels_group', sql`${t.channelGroup} in ('qris', 'virtual_account', 'ewallet', 'retail_outlet', 'card')`),
    check('channels_code_lower', sql`${t.code} = lower(${t.code})`),
  ],
);

export const merchantChannels = pgTable(
  'merchant_channels',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    feePercentage: text('fee_percentage'),
    feeValue: text('fee_value'),
    additionalFeePercentage: text('additional_fee_percentage'),
    additionalFeeValue: text('additional_fee_value'),
    minAmount: text('min_amount'),
    maxAmount: text('max_amount'),
    feeChargedToCustomer: boolean('fee_charged_to_customer'),
    createdAt: text('created_at').notNull().default(now),
    feeSetAt: text('fee_set_at').notNull().default(EPOCH),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.channelId] }),
    index('merchant_channels_channel_idx').on(t.channelId),
    // A channel's enablements that override a setting (what a channel change re-checks), without its others.
    index('merchant_channels_overrides_idx').on(t.channelId).where(overriddenSql(t)),
  ],
);

/**
 * A merchant's allowed web origins for checkout sessions (contract §9): `origin` is normalised by
 * normalizeOrigin (src/modules/sessions/domain/origins.ts) before it is written, so it compares equal to the
 * `Origin` header a browser sends. A write here is logged as a `merchant` change by a trigger (custom
 * migration), so every server's catalogue sees it within the propagation bound.
 */
export const merchantOrigins = pgTable(
  'merchant_origins',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    origin: text('origin').notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.origin] })],
);

export const changeLog = pgTable('change_log', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  entity: text('entity', { enum: CHANGE_ENTITIES }).notNull(),
  entityId: text('entity_id').notNull(),
  at: text('at').notNull().default(now),
});

export const feeRules = pgTable(
  'fee_rules',
  {
    id: text('id').primaryKey(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    scope: text('scope', { enum: RULE_SCOPES }).notNull(),
    merchantId: text('merchant_id').references(() => merchants.id, { onDelete: 'cascade' }),
    category: text('category'),
    bands: text('bands').notNull(),
    effectiveFrom: text('effective_from').notNull(),
    cancelledAt: text('cancelled_at'),
    createdAt: text('created_at').notNull().default(now),
    /** Contract §10, canonical decimals, null when not set: the fee's lower and upper bound (major unit), */
    minFee: text('min_fee'),
    maxFee: text('max_fee'),
    /** the tax on fee + additional fee (percent), and the customer's share of all charges (percent, 0–100). */
    taxPercentage: text('tax_percentage'),
    customerShare: text('customer_share'),
  },
  (t) => [
    index('fee_rules_channel_idx').on(t.channelId),
    index('fee_rules_merchant_idx').on(t.merchantId),
    check('fee_rules_scope', feeRuleScopeCheck(t)),
  ],
);

export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    at: text('at').notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    entity: text('entity').notNull(),
    before: text('before'),
    after: text('after'),
  },
  (t) => [index('audit_log_entity_idx').on(t.entity, t.at), index('audit_log_at_idx').on(t.at)],
);

/**
 * Fee quote signing keys (contract §11), shared by every replica. The private key is stored only encrypted
 * under the master key (the key id as associated data), as API secrets are. At most one key signs: the
 * partial unique index makes a second `signing` row fail, so replicas starting together create the first
 * key once, and a rotation retires the old key and inserts the new one in one transaction. A write here is
 * logged as a `quote_key` change by a trigger (custom migration), so every server's catalogue sees a
 * rotation within the propagation bound.
 */
export const quoteKeys = pgTable(
  'quote_keys',
  {
    /** The JWS `kid` (`qk_…`). */
    id: text('id').primaryKey(),
    state: text('state', { enum: QUOTE_KEY_STATES }).notNull(),
    /** JSON text of the public JWK (`kty` OKP, `crv` Ed25519, `x`). */
    publicJwk: text('public_jwk').notNull(),
    /** base64(nonce ‖ tag ‖ ciphertext) of the private part; see src/modules/auth/secret-box.ts. */
    privateKeyCiphertext: text('private_key_ciphertext').notNull(),
    createdAt: text('created_at').notNull().default(now),
    retiredAt: text('retired_at'),
    /**
     * The longest lifetime (QUOTE_TTL_SECONDS) of any quote this key signed, seconds: every server raises it to
     * its own TTL before its first signature with the key. A retired key stays published until
     * `retired_at` + this + a margin. NULL on keys made before it existed: unknown, read as the largest TTL
     * allowed (86,400).
     */
    maxTtlSeconds: integer('max_ttl_seconds'),
  },
  (t) => [
    check('quote_keys_state', sql`${t.state} in ('signing', 'retired')`),
    uniqueIndex('quote_keys_one_signing').on(t.state).where(sql`${t.state} = 'signing'`),
  ],
);

interface Tables {
  currencies: typeof currencies;
  merchants: typeof merchants;
  apiKeys: typeof apiKeys;
  channels: typeof channels;
  merchantChannels: typeof merchantChannels;
  merchantOrigins: typeof merchantOrigins;
  changeLog: typeof changeLog;
  feeRules: typeof feeRules;
  auditLog: typeof auditLog;
  quoteKeys: typeof quoteKeys;
}

/** Compile-time proof that this engine's tables infer exactly the shared row types (src/storage/model/rows.ts). */
export const ROW_TYPES_CONFORM: {
  [K in keyof RowTypesConform]: K extends 'channelInsert'
    ? Conforms<ChannelInsert extends typeof channels.$inferInsert ? true : false, true>
    : Conforms<Tables[Exclude<K, 'channelInsert'>]['$inferSelect'], ModelRows[Exclude<K, 'channelInsert'>]>;
} = { currencies: true, merchants: true, apiKeys: true, channels: true, channelInsert: true, merchantChannels: true, merchantOrigins: true, changeLog: true, feeRules: true, auditLog: true, quoteKeys: true };
