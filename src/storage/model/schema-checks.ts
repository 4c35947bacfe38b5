/** Table constraints both engines' schemas declare alike (drizzle's `sql` is dialect-neutral here). */
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

/** The scope invariant of `fee_rules`: the target column matching the scope, and only it, is set. */
export function feeRuleScopeCheck(t: { scope: AnyColumn; merchantId: AnyColumn; category: AnyColumn }): SQL {
  return sql`(${t.scope} = 'CHANNEL' and ${t.merchantId} is null and ${t.category} is null) or (${t.scope} = 'CATEGORY' and ${t.merchantId} is null and ${t.category} is not null) or (${t.scope} = 'MERCHANT' and ${t.merchantId} is not null and ${t.category} is null)`;
}

/**
 * An enablement that overrides at least one of the channel's settings: the condition of the partial index
 * `merchant_channels_overrides_idx` and of the queries it serves (the same expression, so both engines' planners
 * use the index), which read a channel's overriding enablements without visiting the others.
 */
export function overriddenSql(t: {
  feePercentage: AnyColumn;
  feeValue: AnyColumn;
  additionalFeePercentage: AnyColumn;
  additionalFeeValue: AnyColumn;
  minAmount: AnyColumn;
  maxAmount: AnyColumn;
  feeChargedToCustomer: AnyColumn;
}): SQL {
  const columns = [t.feePercentage, t.feeValue, t.additionalFeePercentage, t.additionalFeeValue, t.minAmount, t.maxAmount, t.feeChargedToCustomer];
  return sql`(${sql.join(
    columns.map((c) => sql`${c} is not null`),
    sql` or `,
  )})`;
}
