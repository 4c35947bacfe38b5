/**
 * The demo seed's flat fees (the implicit channel rules and the one merchant override) are
 * in force from the seed instant, not from 1970; and the migration that repairs an existing database moves
 * an epoch `fee_set_at` to the row's creation unless a rule of the same scope starts at or before it (that
 * would change which rule is in force). On the engine TEST_DB names, through the migration file itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EPOCH } from '../../src/shared/vocabulary.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/server.js';

let t: TestApp;
let before: number;
let after: number;
beforeAll(async () => {
  before = Date.now();
  t = await createTestApp();
  after = Date.now();
}, 60_000);
afterAll(() => t?.close());

/** The statements of this engine's repair migration, as drizzle runs them. */
function repairMigration(): string[] {
  const dir = t.sqlTarget.engine === 'sqlite' ? 'drizzle/sqlite' : 'drizzle/pg';
  const file = fs.readdirSync(path.join(PROJECT_ROOT, dir)).find((f) => f.endsWith('_seeded_fee_set_at.sql'))!;
  return fs.readFileSync(path.join(PROJECT_ROOT, dir, file), 'utf8').split('--> statement-breakpoint');
}

const q = (engine: string, name: string) => (engine === 'sqlite' ? `\`${name}\`` : `"${name}"`);

describe('seeded flat fees carry the seed instant', () => {
  it('every channel fee and the merchant override are in force from the seed, not 1970', async () => {
    const sql = t.sql();
    const channels = await sql.all<{ fee_set_at: string }>('select fee_set_at from channels');
    expect(channels.length).toBeGreaterThan(0);
    for (const c of channels) {
      expect(c.fee_set_at).not.toBe(EPOCH);
      expect(Date.parse(c.fee_set_at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(c.fee_set_at)).toBeLessThanOrEqual(after);
    }
    const overrides = await sql.all<{ fee_set_at: string }>('select fee_set_at from merchant_channels where fee_percentage is not null or fee_value is not null');
    expect(overrides).toHaveLength(1);
    expect(Date.parse(overrides[0]!.fee_set_at)).toBeGreaterThanOrEqual(before);
    // The catalogue prices with them: the demo QRIS calculation still answers.
    const res = await t.signedFetch('/v1/payments/calculate', {
      method: 'POST',
      body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId }),
    });
    expect(res.status).toBe(200);
  });

  it('the repair migration moves epoch dates to the row creation, except where an earlier rule of that scope would lose to it', async () => {
    const sql = t.sql();
    const e = t.sqlTarget.engine;
    const [qris, ovo] = ['qris', 'ovo'];
    // An existing database: every flat fee at the epoch; ovo also has a channel rule from before its row existed.
    await sql.exec(`update channels set fee_set_at = '${EPOCH}'`);
    await sql.exec(`update merchant_channels set fee_set_at = '${EPOCH}'`);
    await sql.exec(
      `insert into fee_rules (id, channel_id, scope, bands, effective_from, created_at) select 'early-ovo-rule', id, 'CHANNEL', '[]', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z' from channels where code = '${ovo}'`,
    );
    // One enablement also gets a merchant rule from before its row existed (the kept-epoch case, on either engine:
    // whether the seeded merchant rule starts before or after its enablement row depends on the engine's clock).
    await sql.exec(
      `insert into fee_rules (id, channel_id, merchant_id, scope, bands, effective_from, created_at) select 'early-merchant-rule', channel_id, merchant_id, 'MERCHANT', '[]', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z' from ${q(e, 'merchant_channels')} order by merchant_id, channel_id limit 1`,
    );
    try {
      for (const statement of repairMigration()) await sql.exec(statement);
      const rows = await sql.all<{ code: string; fee_set_at: string; created_at: string }>(`select code, fee_set_at, created_at from channels`);
      for (const r of rows) expect(r.fee_set_at, r.code).toBe(r.code === ovo ? EPOCH : r.created_at);
      expect(rows.map((r) => r.code)).toContain(qris);
      // Enablements: the seeded MERCHANT rule (the micro merchant's OVO) starts before its enablement row was written.
      const enablements = await sql.all<{ merchant_id: string; channel_id: string; fee_set_at: string; created_at: string }>(
        `select merchant_id, channel_id, fee_set_at, created_at from ${q(e, 'merchant_channels')}`,
      );
      const merchantRules = await sql.all<{ merchant_id: string; channel_id: string; effective_from: string }>(`select merchant_id, channel_id, effective_from from fee_rules where scope = 'MERCHANT'`);
      expect(merchantRules.length).toBeGreaterThan(0);
      let moved = 0;
      for (const r of enablements) {
        const earlier = merchantRules.some((m) => m.merchant_id === r.merchant_id && m.channel_id === r.channel_id && m.effective_from <= r.created_at);
        expect(r.fee_set_at).toBe(earlier ? EPOCH : r.created_at);
        if (!earlier) moved += 1;
      }
      // Both cases occurred: rows moved, and at least the one with an earlier merchant rule kept the epoch.
      expect(moved).toBeGreaterThan(0);
      expect(moved).toBeLessThan(enablements.length);
      // Run again: nothing left to change (only epoch rows are touched).
      for (const statement of repairMigration()) await sql.exec(statement);
      expect(await sql.all(`select code, fee_set_at, created_at from channels`)).toEqual(rows);
    } finally {
      await sql.exec(`delete from fee_rules where id in ('early-ovo-rule', 'early-merchant-rule')`);
    }
  });
});
