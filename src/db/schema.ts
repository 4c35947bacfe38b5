/**
 * Database schema (drizzle, SQLite). Migrations in `drizzle/sqlite/` are
 * generated from this file by `npm run db:generate`; CI fails when they
 * disagree. The Postgres twin is src/db/schema.pg.ts (same tables, columns
 * and row shapes; `drizzle/pg/`).
 *
 * Invariants:
 * - Money and percentages are TEXT holding canonical decimals (exact; see
 *   src/domain/money.ts). Amount limits are in the currency's major unit.
 * - API secrets are never stored in plaintext: `secret_ciphertext` is
 *   AES-256-GCM under the master key with the key id as associated data.
 * - A revoked key keeps its row (audit) with `revoked_at` set.
 * - Every committed change to these tables appends a `change_log` row in the
 *   same transaction, written by triggers (custom migrations), so any writer
 *   (admin CLI, another replica, an operator's SQL) reaches every server's
 *   in-memory catalogue (src/db/catalog.ts).
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const KYC_STATUSES = ['approved', 'pending', 'rejected'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

export const CHANNEL_STATUSES = ['active', 'offline', 'maintenance'] as const;
export type ChannelStatusValue = (typeof CHANNEL_STATUSES)[number];

export const KEY_MODES = ['test', 'live'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

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
  },
  (t) => [check('merchants_kyc_status', sql`${t.kycStatus} in ('approved', 'pending', 'rejected')`)],
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
    /** base64(nonce ‖ tag ‖ ciphertext) of the secret; see src/auth/secret-box.ts. */
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
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.channelId] }), index('merchant_channels_channel_idx').on(t.channelId)],
);

/** What a `change_log` row names: the entity whose in-memory state must be reloaded. */
export const CHANGE_ENTITIES = ['merchant', 'channel', 'currency'] as const;
export type ChangeEntity = (typeof CHANGE_ENTITIES)[number];

/**
 * Append-only log of committed changes, written by triggers only (see the
 * custom migration). `merchant` covers the merchant row, its keys and its
 * channel enablements; `channel` a catalogue row; `currency` a currency row.
 * Invariant: `seq` increases in commit order (SQLite has one writer at a time).
 */
export const changeLog = sqliteTable('change_log', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  entity: text('entity', { enum: CHANGE_ENTITIES }).notNull(),
  entityId: text('entity_id').notNull(),
  at: text('at').notNull().default(now),
});
