/**
 * A refused catalogue change reports every problem at once (docs/OPERATIONS.md): the invalid fields, an
 * unknown currency, an unknown or existing channel code — not only the first one found. On either engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError, AdminService } from '../../src/modules/admin/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: AdminService;
beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox);
});
afterAll(() => t.close());

async function problemsOf(change: Promise<unknown>): Promise<string[]> {
  const err = await change.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdminError);
  return (err as AdminError).problems;
}

describe('admin changes report every problem at once', () => {
  it('channel create: invalid fields, an unknown currency and an existing code together', async () => {
    const problems = await problemsOf(admin.createChannel({ code: 'ovo', name: 'OVO again', currency: 'XYZ', feePercentage: 'abc', minAmount: '1000', maxAmount: '500' }));
    expect(problems.join('\n')).toMatch(/fee-percentage/);
    expect(problems.join('\n')).toMatch(/min.*max|max.*min/);
    expect(problems).toContain('unknown currency XYZ; add it first: admin currency set XYZ --minor-units N');
    expect(problems).toContain('channel ovo already exists');
  });

  it('channel create: decimals the currency does not allow, with an existing code', async () => {
    const problems = await problemsOf(admin.createChannel({ code: 'bca_va', name: 'BCA', currency: 'IDR', feeValue: '1.5', minAmount: '1000', maxAmount: '5000' }));
    expect(problems.some((p) => /fee-value|decimal/i.test(p))).toBe(true);
    expect(problems).toContain('channel bca_va already exists');
  });

  it('channel update: invalid fields, an unknown channel and an unknown currency together', async () => {
    const problems = await problemsOf(admin.updateChannel('no_such_channel', { feePercentage: 'abc', currency: 'XYZ' }));
    expect(problems.join('\n')).toMatch(/fee-percentage/);
    expect(problems).toContain('no channel no_such_channel');
    expect(problems).toContain('unknown currency XYZ; add it first: admin currency set XYZ --minor-units N');
  });

  it('a valid change still goes through', async () => {
    const created = await admin.createChannel({ code: 'all_problems_ok', name: 'OK Pay', currency: 'IDR', minAmount: '1000', maxAmount: '5000' });
    expect(created.code).toBe('all_problems_ok');
  });
});
