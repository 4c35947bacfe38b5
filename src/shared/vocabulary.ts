/**
 * The closed sets of values every layer speaks: stored in both engines' schemas (as CHECKed text), decided
 * on by the domain rules, carried on the wire. Declared once here so that storage, the domain modules and
 * the pipeline agree without importing each other.
 */

export const KYC_STATUSES = ['approved', 'pending', 'rejected'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/** Channel status (contract §5): REST lowercase, GraphQL's ChannelStatus enum maps to these. */
export const CHANNEL_STATUSES = ['active', 'offline', 'maintenance'] as const;
export type ChannelStatusValue = (typeof CHANNEL_STATUSES)[number];

/** API key mode, visible in the key id prefix (`pk_test_…`, `pk_live_…`). */
export const KEY_MODES = ['test', 'live'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

/** Scope of a pricing rule (contract §7), most specific last. */
export const RULE_SCOPES = ['CHANNEL', 'CATEGORY', 'MERCHANT'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

/** What a `change_log` row names: the entity whose in-memory state must be reloaded. */
export const CHANGE_ENTITIES = ['merchant', 'channel', 'currency', 'quote_key'] as const;
export type ChangeEntity = (typeof CHANGE_ENTITIES)[number];

/** "Since ever": the fee_set_at of flat fees written before fee rules existed (a constant, so ALTER TABLE can add it). */
export const EPOCH = '1970-01-01T00:00:00.000Z';

/**
 * The group a channel is shown under (contract §12): REST `group` carries these, GraphQL's `ChannelGroup`
 * enum maps to them (upper case). Order = the default order of the groups' headings.
 */
export const CHANNEL_GROUPS = ['qris', 'virtual_account', 'ewallet', 'retail_outlet', 'card'] as const;
export type ChannelGroupValue = (typeof CHANNEL_GROUPS)[number];

/** The languages channel names, group names, sessions and the checkout component speak (contract §12). */
export const LOCALES = ['id', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/**
 * A fee quote signing key's state (contract §11): exactly one key `signing` at a time (a partial unique index
 * says so in both engines); `retired` keys stay published while quotes they signed may still be valid.
 */
export const QUOTE_KEY_STATES = ['signing', 'retired'] as const;
export type QuoteKeyState = (typeof QUOTE_KEY_STATES)[number];
