/**
 * Conditions of operator queries that both engines' admin repositories (src/storage/sqlite/admin.ts,
 * src/storage/postgres/admin.ts) put alike, written once with drizzle's dialect-neutral `sql` over either
 * schema's columns.
 */
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { AuditFilter, FeeRuleTarget } from './admin-repository.js';

/** A rule that can apply to `target`: the channel default, the target's category, the target merchant. */
export function feeRuleTargetSql(t: { scope: AnyColumn; merchantId: AnyColumn; category: AnyColumn }, target: FeeRuleTarget): SQL {
  return sql`(${t.scope} = 'CHANNEL' or (${t.scope} = 'CATEGORY' and ${t.category} = ${target.category ?? ''}) or (${t.scope} = 'MERCHANT' and ${t.merchantId} = ${target.merchantId ?? ''}))`;
}

/**
 * The records an audit listing reads: by entity, since an instant, and older than the page's last record
 * (keyset on the newest-first order `at`, then `id`, which the `at` index serves).
 */
export function auditWhere(t: { entity: AnyColumn; at: AnyColumn; id: AnyColumn }, filter: AuditFilter): SQL {
  const parts: SQL[] = [sql`1 = 1`];
  if (filter.entity !== undefined) parts.push(sql`${t.entity} = ${filter.entity}`);
  if (filter.since !== undefined) parts.push(sql`${t.at} >= ${filter.since}`);
  if (filter.before !== undefined) parts.push(sql`(${t.at} < ${filter.before.at} or (${t.at} = ${filter.before.at} and ${t.id} < ${filter.before.id}))`);
  return sql.join(parts, sql` and `);
}
