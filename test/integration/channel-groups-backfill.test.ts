/**
 * The custom migration that groups an existing database's channels and gives the demo channels
 * their Indonesian/English names, run as drizzle runs it (its own statements) on a database put back into
 * the state an earlier release left it in (every channel at the column default, no names). On the engine
 * TEST_DB names. Values an operator set are kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/server.js';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t?.close());

function backfillMigration(): string[] {
  const dir = t.sqlTarget.engine === 'sqlite' ? 'drizzle/sqlite' : 'drizzle/pg';
  const file = fs.readdirSync(path.join(PROJECT_ROOT, dir)).find((f) => f.endsWith('_channel_groups_backfill.sql'))!;
  return fs.readFileSync(path.join(PROJECT_ROOT, dir, file), 'utf8').split('--> statement-breakpoint');
}

describe('the channel group backfill migration', () => {
  it('groups the twelve demo channels as the seed does, names them in both languages, and keeps an operator’s values', async () => {
    const sql = t.sql();
    // As an earlier release left it: the ADD COLUMN defaults. One operator-set channel: dana already moved.
    await sql.exec(`update channels set channel_group = 'ewallet', name_id = null, name_en = null`);
    await sql.exec(`update channels set channel_group = 'card', name_id = 'Dompet DANA' where code = 'dana'`);
    for (const statement of backfillMigration()) await sql.exec(statement);
    const rows = await sql.all<{ code: string; channel_group: string; name_id: string | null; name_en: string | null }>('select code, channel_group, name_id, name_en from channels');
    const byCode = new Map(rows.map((r) => [r.code, r]));
    for (const c of DEMO_CHANNELS) {
      if (c.code === 'dana') continue;
      expect(byCode.get(c.code), c.code).toMatchObject({ channel_group: c.group, name_id: c.nameId ?? c.name, name_en: c.name });
    }
    // The operator's group and name survive (the backfill touches rows still at the defaults only).
    expect(byCode.get('dana')).toMatchObject({ channel_group: 'card', name_id: 'Dompet DANA', name_en: null });
    // Running servers pick it up through the change log: GraphQL answers the backfilled names.
    await t.sync();
    const res = await t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: '{ paymentChannels { code group name(locale: "id") } }' }) });
    const list = ((await res.json()) as { data: { paymentChannels: { code: string; group: string; name: string }[] } }).data.paymentChannels;
    expect(list.find((c) => c.code === 'credit_card')).toMatchObject({ group: 'CARD', name: 'Kartu Kredit' });
    expect(list.find((c) => c.code === 'bca_va')).toMatchObject({ group: 'VIRTUAL_ACCOUNT', name: 'BCA Virtual Account' });
  });
});
