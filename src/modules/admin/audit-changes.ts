/**
 * What one audit record changed, field by field (`audit list` printed the whole before
 * and after values, and an operator had to compare two blobs by eye). Nested objects are walked to dotted
 * paths (`overrides.feePercentage`); arrays and scalars are compared whole (a band list is one value: its
 * bands only mean something together). The whole record stays available as data (`--json`).
 */

/** One field of an audit record: added (`before` absent), removed (`after` absent) or changed. */
export interface AuditChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Equal as JSON values (the audit trail stores JSON). */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields that differ between `before` and `after`, in the order of `after`'s fields, then removed ones. */
export function auditChanges(before: unknown, after: unknown, prefix = ''): AuditChange[] {
  if (!isRecord(before) || !isRecord(after)) {
    if (same(before, after)) return [];
    if (!prefix) {
      // A created or deleted entity (one side null): every field of the other side, as added or removed.
      if (before === null && isRecord(after)) return auditChanges({}, after);
      if (after === null && isRecord(before)) return auditChanges(before, {});
    }
    return [{ field: prefix || '(value)', ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) }];
  }
  const changes: AuditChange[] = [];
  const keys = [...Object.keys(after), ...Object.keys(before).filter((k) => !(k in after))];
  for (const key of keys) {
    const field = prefix ? `${prefix}.${key}` : key;
    const b = before[key];
    const a = after[key];
    if (same(b, a)) continue;
    if (isRecord(b) && isRecord(a)) changes.push(...auditChanges(b, a, field));
    else changes.push({ field, ...(key in before ? { before: b } : {}), ...(key in after ? { after: a } : {}) });
  }
  return changes;
}
