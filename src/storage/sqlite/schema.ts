/**
 * Database schema (drizzle, SQLite). Migrations in `drizzle/sqlite/` are
 * generated from this file by `npm run db:generate`; CI fails when they
 * disagree. The Postgres twin is src/storage/postgres/schema.ts (same tables, columns
 * and row shapes; `drizzle/pg/`).
 *
 * Invariants:
 * - Money and percentages are TEXT holding canonical decimals (exact; see
 *   src/shared/money.ts). Amount limits are in the currency's major unit.
 * - API secrets are never stored in plaintext: `secret_ciphertext` is
 *   AES-256-GCM under the master key with the key id as associated data.
 * - A revoked key keeps its row (audit) with `revoked_at` set.
 * - Every committed change to these tables appends a `change_log` row in the
 *   same transaction, written by triggers (custom migrations), so any writer
 *   (admin CLI, another replica, an operator's SQL) reaches every server's
 *   in-memory catalogue (src/modules/catalogue/catalog.ts).
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { CHANGE_ENTITIES, CHANNEL_GROUPS, CHANNEL_STATUSES, EPOCH, KEY_MODES, KYC_STATUSES, QUOTE_KEY_STATES, RULE_SCOPES } from '../../shared/vocabulary.js';
import { feeRuleScopeCheck, overriddenSql } from '../model/schema-checks.js';
import type { ChannelInsert, Conforms, ModelRows, RowTypesConform } from '../model/rows.js';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;


export const currencies = sqliteTable(
  'currencies',
  {
    code: text('code').primaryKey(),
    /** Decimals of the minor unit as this service settles it (IDR 0, USD 2). */
    minorUnits: integer('minor_units').notNull(),
  },
  (t) => [check('currencies_minor_units', sql`${t.minorUnits} between 0 and 4`)],
);

export const merchants = sqliteTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    kycStatus: text('kyc_status', { enum: KYC_STATUSES }).notNull().default('pending'),
    createdAt: text('created_at').notNull().default(now),
    /** Pricing category (contract §7): lower-case code, see validateCategory in src/modules/pricing/domain/pricing.ts. */
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

export const apiKeys = sqliteTable(
  'api_keys',
  {
    /** The public key id sent in `X-SERVICE-API-Key` (`pk_test_…` / `pk_live_…`). */
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    mode: text('mode', { enum: KEY_MODES }).notNull(),
    /** base64(nonce ‖ tag ‖ ciphertext) of the secret; see src/modules/auth/secret-box.ts. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: text('created_at').notNull().default(now),
    revokedAt: text('revoked_at'),
  },
  (t) => [index('api_keys_merchant_idx').on(t.merchantId), check('api_keys_mode', sql`${t.mode} in ('test', 'live')`)],
);

export const channels = sqliteTable(
  'channels',
  {
    id: text('id').primaryKey(),
    /** Lower-case method code (`qris`); requests match it case-insensitively. */
    code: text('code').notNull().unique(),
    name: text('name').notNull(),
    /** Relative path served by this service, e.g. `/images/channels/qris.svg`. */
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
    feeChargedToCustomer: integer('fee_charged_to_customer', { mode: 'boolean' }).notNull(),
    requiresKyc: integer('requires_kyc', { mode: 'boolean' }).notNull().default(false),
    /** Display order in channel lists. */
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    /**
     * When fee_percentage/fee_value were last set: the `effectiveFrom` of the
     * implicit one-band CHANNEL rule they stand for (contract §7; see
     * src/modules/pricing/domain/fee-rules.ts). The epoch for rows older than fee rules.
     */
    feeSetAt: text('fee_set_at').notNull().default(EPOCH),
    /**
     * The group the channel is shown under (contract §12); the backfill migration groups existing channels.
     * No CHECK here (Postgres has one): adding one makes SQLite rebuild the table, which drops its change-log
     * triggers; the admin service validates every write (channel-rules.ts).
     */
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
    check('channels_code_lower', sql`${t.code} = lower(${t.code})`),
  ],
);

/**
 * A channel enabled for a merchant. Absent row = not enabled. Every nullable
 * column overrides the channel's value when set.
 */
export const merchantChannels = sqliteTable(
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
    feeChargedToCustomer: integer('fee_charged_to_customer', { mode: 'boolean' }),
    createdAt: text('created_at').notNull().default(now),
    /** When the fee override (fee_percentage/fee_value) was last set: `effectiveFrom` of the implicit MERCHANT rule. */
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
 * Append-only log of committed changes, written by triggers only (see the
 * custom migration). `merchant` covers the merchant row, its keys and its
 * channel enablements; `channel` a catalogue row; `currency` a currency row.
 * Invariant: `seq` increases in commit order (SQLite has one writer at a time).
 */
/**
 * A merchant's allowed web origins for checkout sessions (contract §9): `origin` is normalised by
 * normalizeOrigin (src/modules/sessions/domain/origins.ts) before it is written, so it compares equal to the
 * `Origin` header a browser sends. A write here is logged as a `merchant` change by a trigger (custom
 * migration), so every server's catalogue sees it within the propagation bound.
 */
export const merchantOrigins = sqliteTable(
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

export const changeLog = sqliteTable('change_log', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  entity: text('entity', { enum: CHANGE_ENTITIES }).notNull(),
  entityId: text('entity_id').notNull(),
  at: text('at').notNull().default(now),
});

/**
 * One row: whether the change-log trigger of `merchant_channels` inserts stays silent. Only a bulk import
 * sets it, inside the transaction that inserts the merchants themselves (each logged by its own row's
 * trigger), around inserting their enablements, and resets it before that transaction commits: no other
 * connection ever reads it set (uncommitted), and a failed or interrupted import rolls it back with
 * everything else. SQLite has no statement-level triggers; this keeps the log at one row per merchant
 * created, not one more per enablement (the Postgres triggers log per statement instead).
 */
export const changeLogMute = sqliteTable(
  'change_log_mute',
  {
    id: integer('id').primaryKey(),
    merchantChannelsInsert: integer('merchant_channels_insert', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [check('change_log_mute_one_row', sql`${t.id} = 1`)],
);

/**
 * Pricing rules (contract §7). Append-mostly: a rule is never edited; a
 * scheduled one may be cancelled (`cancelled_at`) before it starts. `bands`
 * is the JSON text of FeeBand[] (src/modules/pricing/domain/pricing.ts), validated by
 * parseBands before it is written. A write here is logged as a `channel`
 * change by a trigger (custom migration), so every server reloads the
 * channel's rules.
 * Invariant: merchant_id is set exactly for MERCHANT, category exactly for CATEGORY.
 */
export const feeRules = sqliteTable(
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

/**
 * The audit trail (contract §7): one row per administrative change, written
 * by AdminService in the change's own transaction. Append-only: triggers
 * (custom migration) refuse UPDATE and DELETE. `before`/`after` are JSON
 * text (null when there was nothing before / after) and never hold a secret
 * or a ciphertext.
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    /** ISO 8601 UTC instant of the change. */
    at: text('at').notNull(),
    actor: text('actor').notNull(),
    /** e.g. `fee.set`, `key.revoke`, `channel.update`. */
    action: text('action').notNull(),
    /** A merchant id, a channel code, an API key id or a currency code. */
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
export const quoteKeys = sqliteTable(
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
