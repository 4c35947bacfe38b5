/** Table constraints both engines' schemas declare alike (drizzle's `sql` is dialect-neutral here). */
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

/** The scope invariant of `fee_rules`: the target column matching the scope, and only it, is set. */
export function feeRuleScopeCheck(t: { scope: AnyColumn; merchantId: AnyColumn; category: AnyColumn }): SQL {
  return sql`(${t.scope} = 'CHANNEL' and ${t.merchantId} is null and ${t.category} is null) or (${t.scope} = 'CATEGORY' and ${t.merchantId} is null and ${t.category} is not null) or (${t.scope} = 'MERCHANT' and ${t.merchantId} is not null and ${t.category} is null)`;
}
