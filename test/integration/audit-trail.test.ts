/**
 * The audit trail of contract §7 on the engine of TEST_DB: every admin
 * change appends a record in its own transaction (both commit or neither),
 * no record holds a secret or a ciphertext, the database refuses edits and
 * deletions, and `audit list` filters by entity, time and count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInstant } from '../../src/modules/pricing/domain/pricing.js';
import type { AdminRepository } from '../../src/storage/model/admin-repository.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: AdminService;

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'audit-test' });
});
afterAll(() => t.close());

/** Read rows with raw SQL on either engine (the test inspects what is stored, not what the app shows). */
async function query<T>(statement: string): Promise<T[]> {
  return t.sql().all<T>(statement);
}

/**
 * A repository whose transactions run the real writes, then fail at `failAt`:
 * 'after-audit' throws once the audit record has been written (the last write
 * of every change), 'instead-of-audit' throws in place of writing it.
 */
function failing(repo: AdminRepository, failAt: 'after-audit' | 'instead-of-audit'): AdminRepository {
  const wrap = (inner: AdminRepository): AdminRepository =>
    new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'transaction') return <T>(fn: (r: AdminRepository) => Promise<T>) => target.transaction((tx) => fn(wrap(tx)));
        if (prop === 'appendAudit') {
          return async (record: Parameters<AdminRepository['appendAudit']>[0]) => {
            if (failAt === 'after-audit') await target.appendAudit(record);
            throw new Error(`injected failure ${failAt}`);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return wrap(repo);
}

describe('audit trail', () => {
  it('records actor, action, entity and before/after of each change kind', async () => {
    const m = await admin.createMerchant({ name: 'Audit Shop', kycStatus: 'pending', category: 'micro', channels: ['dana'] });
    await admin.setKyc(m.id, 'approved');
    await admin.setCategory(m.id, 'regular');
    await admin.enableChannel(m.id, 'ovo', { feePercentage: '1.2' });
    await admin.disableChannel(m.id, 'ovo');
    await admin.updateChannel('dana', { status: 'maintenance' });
    const rule = await admin.setFee({ channel: 'dana', merchantId: m.id, bands: '*:1:0', effectiveFrom: formatInstant(Date.now() + 3_600_000) });
    await admin.cancelFee(rule.id);

    const forMerchant = await admin.listAudit({ entity: m.id });
    expect(forMerchant.map((a) => a.action).reverse()).toEqual([
      'merchant.create',
      'merchant.set-kyc',
      'merchant.set-category',
      'merchant.enable-channel',
      'merchant.disable-channel',
    ]);
    expect(forMerchant.every((a) => a.actor === 'audit-test' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(a.at))).toBe(true);
    expect(forMerchant.find((a) => a.action === 'merchant.set-kyc')).toMatchObject({ before: { kycStatus: 'pending' }, after: { kycStatus: 'approved' } });

    const forDana = await admin.listAudit({ entity: 'dana' });
    expect(forDana.map((a) => a.action)).toEqual(['fee.cancel', 'fee.set', 'channel.update']);
    expect(forDana[1]).toMatchObject({ after: { id: rule.id, scope: 'MERCHANT', bandsText: '*:1:0', state: 'scheduled' } });
    expect(forDana[2]).toMatchObject({ before: { status: 'active' }, after: { status: 'maintenance' } });
    await admin.updateChannel('dana', { status: 'active' });
  });

  it('no record ever holds a secret or a ciphertext (keys: id, mode, merchant, revokedAt only)', async () => {
    const m = (await admin.createMerchant({ name: 'Key Shop' })).id;
    const issued = [await admin.createKey(m), await admin.createKey(m, 'live')];
    await admin.revokeKey(issued[0]!.apiKey);
    const ciphertexts = (await query<{ secret_ciphertext: string }>('select secret_ciphertext from api_keys')).map((r) => r.secret_ciphertext);
    const secrets = [...issued.map((k) => k.apiSecret), ...t.data.seeded!.map((m) => m.apiSecret)];
    const stored = await query<Record<string, string | null>>('select * from audit_log');
    expect(stored.length).toBeGreaterThan(0);
    const text = JSON.stringify(stored);
    for (const s of [...secrets, ...ciphertexts]) expect(text).not.toContain(s);
    expect(text).not.toMatch(/sk_(test|live)_|secret/i);

    const keyRecords = await admin.listAudit({ entity: issued[0]!.apiKey });
    expect(keyRecords.map((a) => a.action)).toEqual(['key.revoke', 'key.create']);
    expect(Object.keys(keyRecords[1]!.after as object).sort()).toEqual(['id', 'merchantId', 'mode', 'revokedAt']);
    expect(keyRecords[0]!.after).toMatchObject({ id: issued[0]!.apiKey, mode: 'test', merchantId: m, revokedAt: expect.any(String) });
  });

  it.each(['after-audit', 'instead-of-audit'] as const)('a change and its record commit or roll back together (failure %s)', async (failAt) => {
    const broken = new AdminService(failing(t.store.admin, failAt), t.data.secretBox, { actor: 'audit-test' });
    const before = await query<{ n: number | string }>('select count(*) as n from audit_log');
    await expect(broken.updateChannel('bca_va', { feeValue: '1234' })).rejects.toThrow(/injected failure/);
    await expect(broken.setFee({ channel: 'bca_va', bands: '*:0:1' })).rejects.toThrow(/injected failure/);
    await expect(broken.createMerchant({ name: `Ghost ${failAt}` })).rejects.toThrow(/injected failure/);
    expect(await query<{ n: number | string }>('select count(*) as n from audit_log')).toEqual(before);
    expect((await admin.listChannels()).find((c) => c.code === 'bca_va')!.feeValue).toBe('4000');
    expect((await admin.listFees('bca_va')).map((r) => r.id)).toEqual(['flat:bca_va']);
    expect((await admin.merchantsPage({ limit: 1000 })).merchants.map((m) => m.name)).not.toContain(`Ghost ${failAt}`);
    await t.sync();
    expect(t.store.catalog.listForMerchant(t.approved.merchantId).find((c) => c.code === 'bca_va')!.feeInfo.feeValue).toBe('4000');
  });

  it('the database refuses to edit or delete audit records', async () => {
    await expect(t.sql().exec("update audit_log set actor = 'mallory'")).rejects.toThrow(/append-only/);
    await expect(t.sql().exec('delete from audit_log')).rejects.toThrow(/append-only/);
    expect((await query<{ actor: string }>('select distinct actor from audit_log')).map((r) => r.actor)).toEqual(['audit-test']);
  });

  it('audit list filters by entity, since and limit, newest first', async () => {
    const since = formatInstant(Date.now());
    await new Promise((r) => setTimeout(r, 5));
    await admin.setCurrency({ code: 'SGD', minorUnits: 2 });
    await admin.setCurrency({ code: 'SGD', minorUnits: 2 });
    const recent = await admin.listAudit({ since });
    expect(recent.map((a) => [a.action, a.entity])).toEqual([
      ['currency.set', 'SGD'],
      ['currency.set', 'SGD'],
    ]);
    expect(recent[0]!.before).toEqual({ code: 'SGD', minorUnits: 2 });
    expect(recent[1]!.before).toBeNull();
    expect(await admin.listAudit({ entity: 'SGD', limit: 1 })).toEqual([recent[0]]);
    expect(await admin.listAudit({ entity: 'nothing-here' })).toEqual([]);
    expect((await admin.listAudit({ limit: 3 })).length).toBe(3);
    await expect(admin.listAudit({ since: 'yesterday', limit: 0 })).rejects.toMatchObject({ problems: [expect.stringContaining('since:'), expect.stringContaining('limit:')] });
  });
});
