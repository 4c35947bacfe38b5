/** `audit list` shows what a record changed, field by field: src/modules/admin/audit-changes.ts. */
import { describe, expect, it } from 'vitest';
import { auditChanges } from '../../src/modules/admin/audit-changes.js';

describe('auditChanges', () => {
  it('a change: only the fields that differ, nested objects as dotted paths, arrays whole', () => {
    const before = { name: 'QRIS', status: 'active', overrides: { feePercentage: '0.7', minAmount: 1 }, bands: [{ upTo: '1' }], same: [1] };
    const after = { name: 'QRIS', status: 'offline', overrides: { feePercentage: '0.5', minAmount: 1 }, bands: [{ upTo: '2' }], same: [1], added: true };
    expect(auditChanges(before, after)).toEqual([
      { field: 'status', before: 'active', after: 'offline' },
      { field: 'overrides.feePercentage', before: '0.7', after: '0.5' },
      { field: 'bands', before: [{ upTo: '1' }], after: [{ upTo: '2' }] },
      { field: 'added', after: true },
    ]);
  });

  it('a creation lists every field as added, a deletion every field as removed; nothing changed is empty', () => {
    expect(auditChanges(null, { a: 1, b: null })).toEqual([{ field: 'a', after: 1 }, { field: 'b', after: null }]);
    expect(auditChanges({ a: 1 }, null)).toEqual([{ field: 'a', before: 1 }]);
    expect(auditChanges({ a: 1, o: { x: 1 } }, { a: 1, o: { x: 1 } })).toEqual([]);
    expect(auditChanges({ gone: 'x', keep: 1 }, { keep: 1 })).toEqual([{ field: 'gone', before: 'x' }]);
    expect(auditChanges('a', 'b')).toEqual([{ field: '(value)', before: 'a', after: 'b' }]);
  });
});
