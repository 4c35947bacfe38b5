import { describe, expect, it } from 'vitest';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';
import { applyOverrides, channelCreateSchema, channelUpdateSchema, effectiveSettingsProblems, overridesSchema, type ChannelSettings } from '../../src/modules/channels/domain/channel-rules.js';

const base: ChannelSettings = {
  feePercentage: '0.7', feeValue: '0', additionalFeePercentage: '0', additionalFeeValue: '0', minAmount: '1000', maxAmount: '10000000', feeChargedToCustomer: true,
};

describe('channel rules', () => {
  it('accept every demo channel (the seed obeys the rules the CLI enforces)', () => {
    for (const c of DEMO_CHANNELS) {
      const parsed = channelCreateSchema.parse({ ...c, currency: 'IDR' });
      expect(effectiveSettingsProblems(parsed, 0), c.code).toEqual([]);
    }
  });

  it('canonicalise decimals and refuse negative, non-numeric, too precise or too large values', () => {
    const ok = channelCreateSchema.parse({ code: 'x', name: 'X', currency: 'idr', minAmount: '1000.0', maxAmount: 5e6, feePercentage: '0.70' });
    expect(ok).toMatchObject({ currency: 'IDR', minAmount: '1000', maxAmount: '5000000', feePercentage: '0.7', status: 'active', feeChargedToCustomer: true });
    const bad = channelCreateSchema.safeParse({ code: 'x', name: 'X', currency: 'IDR', minAmount: '-1', maxAmount: '1e14', feePercentage: '0.00001', feeValue: '1,5' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path[0]).sort()).toEqual(['feePercentage', 'feeValue', 'maxAmount', 'minAmount']);
  });

  it('check min ≤ max and minor units on the effective settings', () => {
    expect(effectiveSettingsProblems({ ...base, minAmount: '20000000' }, 0)).toEqual(['min 20000000 is greater than max 10000000']);
    expect(effectiveSettingsProblems({ ...base, feeValue: '0.5' }, 0)).toEqual(['fee value 0.5 has more decimals than the currency allows (0)']);
    expect(effectiveSettingsProblems({ ...base, feeValue: '0.5' }, 2)).toEqual([]);
    expect(effectiveSettingsProblems({ ...base, minAmount: '0', maxAmount: '0' }, 0)).toEqual(['max must be greater than 0']);
  });

  it('report a bad min/max range together with the other invalid fields of the same change (all problems at once)', () => {
    const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues.map((i) => i.message) ?? [];
    const update = channelUpdateSchema.safeParse({ feePercentage: '150', feeValue: '-1', minAmount: '5000000', maxAmount: '10' });
    expect(messages(update)).toEqual(['must be at most 100 (percent)', 'must not be negative', 'min 5000000 is greater than max 10']);
    // max > 0 is still checked when min itself is invalid; min ≤ max is not (nothing to compare).
    expect(messages(channelUpdateSchema.safeParse({ minAmount: 'abc', maxAmount: '0' }))).toEqual(['must be a number', 'max must be greater than 0']);
    expect(messages(channelCreateSchema.safeParse({ code: 'Bad Code', name: 'X', currency: 'IDR', minAmount: '5', maxAmount: '1' }))).toEqual([
      'must be 1-64 characters of a-z, 0-9, "_" or "-", starting with a letter or digit',
      'min 5 is greater than max 1',
    ]);
    expect(messages(overridesSchema.safeParse({ feePercentage: '200', minAmount: '5', maxAmount: '1' }))).toEqual(['must be at most 100 (percent)', 'min 5 is greater than max 1']);
    // A cleared or absent bound is left to the effective-settings check (it knows the stored value).
    expect(overridesSchema.safeParse({ minAmount: 'default', maxAmount: '1' }).success).toBe(true);
    expect(channelUpdateSchema.safeParse({ minAmount: '5' }).success).toBe(true);
  });

  it('overrides: null/"default" clears, the rest replaces the catalogue value', () => {
    const o = overridesSchema.parse({ feePercentage: 'default', maxAmount: '500', feeChargedToCustomer: 'false' });
    expect(o).toEqual({ feePercentage: null, maxAmount: '500', feeChargedToCustomer: false });
    expect(applyOverrides(base, o)).toEqual({ ...base, maxAmount: '500', feeChargedToCustomer: false });
    expect(overridesSchema.safeParse({ surprise: '1' }).success).toBe(false);
  });
});
