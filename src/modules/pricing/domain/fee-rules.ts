/**
 * Stored and implicit pricing rules of one channel (contract §7), as the
 * pure module src/modules/pricing/domain/pricing.ts takes them. Shared by the in-memory
 * catalogue (what requests price with) and the admin service (`fee list`),
 * so both see the same rules.
 *
 * Decision — flat settings are rules. The channel's `fee_percentage`/
 * `fee_value` are an implicit one-band CHANNEL rule, and a merchant's fee
 * override (`merchant_channels.fee_percentage`/`fee_value`, either set) an
 * implicit one-band MERCHANT rule, each effective from the row's
 * `fee_set_at` (written "now" whenever those columns are written; the epoch
 * for rows older than fee rules). So `channel update --fee-percentage` and
 * `merchant enable-channel --fee-percentage` behave exactly like
 * `fee set --bands "*:P:F"` at that instant: they replace the rule in force
 * of their scope, and a later scheduled rule still takes over at its time.
 * Clearing an override (`default`) removes the implicit MERCHANT rule. The
 * channel's implicit rule always exists, so every channel has a rule in
 * force. Implicit rules have ids starting with {@link FLAT_RULE_PREFIX} and
 * cannot be cancelled (they are never scheduled).
 */
import { flatRule, parseInstant, type FeeBand, type FeeRule, type RuleScope } from './pricing.js';

/** Prefix of the ids of implicit (flat-setting) rules; stored rule ids are UUIDs. */
export const FLAT_RULE_PREFIX = 'flat:';

/** A `fee_rules` row as both engines return it. */
export interface FeeRuleRow {
  id: string;
  channelId: string;
  scope: RuleScope;
  merchantId: string | null;
  category: string | null;
  /** JSON text of FeeBand[]. */
  bands: string;
  effectiveFrom: string;
  cancelledAt: string | null;
  createdAt: string;
  /** Contract §10 settings (canonical decimals; null: not set). */
  minFee: string | null;
  maxFee: string | null;
  taxPercentage: string | null;
  customerShare: string | null;
}

/** What the implicit CHANNEL rule is made of. */
export interface ChannelFlatFee {
  id: string;
  code: string;
  feePercentage: string;
  feeValue: string;
  feeSetAt: string;
}

/** What the implicit MERCHANT rule is made of: the enablement's fee override columns (null = not overridden). */
export interface MerchantFlatFee {
  merchantId: string;
  feePercentage: string | null;
  feeValue: string | null;
  feeSetAt: string;
}

function instantOf(text: string, what: string): number {
  const ms = parseInstant(text);
  // A corrupt stored instant is a data error: pricing with a guessed instant would misprice silently.
  if (ms === null) throw new Error(`${what}: ${JSON.stringify(text)} is not an ISO 8601 instant`);
  return ms;
}

/** A stored row as a {@link FeeRule} of the channel `channelCode`. Throws on corrupt JSON (never prices with a guess). */
export function ruleFromRow(row: FeeRuleRow, channelCode: string): FeeRule {
  const bands = JSON.parse(row.bands) as FeeBand[];
  if (!Array.isArray(bands) || bands.length === 0) throw new Error(`fee rule ${row.id}: bands ${row.bands} is not a non-empty list`);
  return {
    id: row.id,
    channelCode,
    scope: row.scope,
    ...(row.merchantId !== null ? { merchantId: row.merchantId } : {}),
    ...(row.category !== null ? { category: row.category } : {}),
    bands,
    effectiveFrom: row.effectiveFrom,
    cancelledAt: row.cancelledAt,
    createdAt: row.createdAt,
    ...(row.minFee !== null || row.maxFee !== null || row.taxPercentage !== null || row.customerShare !== null
      ? { settings: { minFee: row.minFee, maxFee: row.maxFee, taxPercentage: row.taxPercentage, customerShare: row.customerShare } }
      : {}),
  };
}

/** The channel's flat fee as its implicit CHANNEL rule. */
export function channelFlatRule(c: ChannelFlatFee): FeeRule {
  return flatRule({ id: `${FLAT_RULE_PREFIX}${c.code}`, channelCode: c.code, percentage: c.feePercentage, fixed: c.feeValue }, instantOf(c.feeSetAt, `channel ${c.code} fee_set_at`));
}

/** A merchant's fee override as its implicit MERCHANT rule, or null when it overrides neither fee column. */
export function merchantFlatRule(c: ChannelFlatFee, o: MerchantFlatFee): FeeRule | null {
  if (o.feePercentage === null && o.feeValue === null) return null;
  return flatRule(
    {
      id: `${FLAT_RULE_PREFIX}${c.code}:${o.merchantId}`,
      channelCode: c.code,
      merchantId: o.merchantId,
      percentage: o.feePercentage ?? c.feePercentage,
      fixed: o.feeValue ?? c.feeValue,
    },
    instantOf(o.feeSetAt, `merchant ${o.merchantId} channel ${c.code} fee_set_at`),
  );
}

/** The rules one merchant's price on a channel is chosen from: stored rules, the implicit channel rule and (if any) the merchant's. */
export function rulesForMerchant(stored: readonly FeeRule[], channel: ChannelFlatFee, override: MerchantFlatFee | undefined): FeeRule[] {
  const own = override ? merchantFlatRule(channel, override) : null;
  return own ? [...stored, channelFlatRule(channel), own] : [...stored, channelFlatRule(channel)];
}
