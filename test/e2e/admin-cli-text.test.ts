/**
 * Operator text through the real admin CLI (src/shared/operator-text.ts): names and the audit actor with
 * control, bidirectional or other format characters are refused with the character named; what an older
 * database still holds is printed escaped (`\u001b`, `\u202e`) by `channel list`, `merchant list` and
 * `audit list`, human and `--json`, so it never reaches the next operator's terminal raw.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { admin, adminJson } from '../helpers/ops.js';
import { databaseUrlForDataDir } from '../helpers/engine.js';
import { openSqlConnection } from '../helpers/sql.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { DEMO_APPROVED_MERCHANT_ID as M } from '../../src/modules/admin/demo-seed.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = makeTempDir('pgw-cli-text-');
  // The CLI acts only on an existing database: create it (demo data included) as an operator would.
  const init = await admin(dataDir, ['init']);
  if (init.code !== 0) throw new Error(`admin init exited ${init.code}: ${init.stderr}`);
}, 60_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Anything that would act on a terminal or reorder what it shows. */
const RAW = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const OSC_TITLE = 'Bank\u001b]0;pwned\u0007\u001b[2J VA';
const BIDI = 'Transfer \u202eAV knaB';

describe('admin CLI: operator text taken as typed or refused', () => {
  it.each([
    [['channel', 'create', '--code', 'evil_va', '--name', OSC_TITLE, '--currency', 'IDR', '--min', '1', '--max', '10'], 'U+001B'],
    [['channel', 'create', '--code', 'evil_va', '--name', BIDI, '--currency', 'IDR', '--min', '1', '--max', '10'], 'U+202E'],
    [['channel', 'update', 'qris', '--name-en', 'QRIS\u2066x\u2069'], 'U+2066'],
    [['merchant', 'create', '--name', 'Toko\tBudi'], 'U+0009'],
    [['merchant', 'create', '--name', 'Toko\u200dBudi'], 'U+200D'],
    [['merchant', 'create', '--name', 'Toko Budi', '--actor', 'ops\u001b[31m'], 'U+001B'],
  ])('%j is refused naming %s, exit non-zero, nothing raw on stderr', async (args, name) => {
    const res = await admin(dataDir, args);
    expect(res.code, res.stdout).not.toBe(0);
    expect(res.stderr).toContain(`contains ${name}`);
    expect(res.stderr).not.toMatch(RAW);
  }, 60_000);

  it('what an older database holds is printed escaped: channel list, merchant list, audit list (human and --json)', async () => {
    await adminJson(dataDir, ['channel', 'list']);
    // The database as an older version (or a hand) left it.
    // On the engine the CLI uses (TEST_DB=postgres: this DATA_DIR's own database), from a connection of its own.
    const url = databaseUrlForDataDir(dataDir);
    const db = openSqlConnection(url ? { engine: 'postgres', url } : { engine: 'sqlite', file: path.join(dataDir, DATABASE_FILE) });
    const text = (value: string) => `'${value.replace(/'/g, "''")}'`;
    try {
      await db.exec(`UPDATE channels SET name = ${text(OSC_TITLE)} WHERE code = 'qris'`);
      await db.exec(`UPDATE merchants SET name = ${text(BIDI)} WHERE id = ${text(M)}`);
      // The audit trail is append-only: an older version's record is added, not edited.
      await db.exec(
        `INSERT INTO audit_log (id, at, actor, action, entity, before, after) VALUES ('ffffffff-ffff-7fff-bfff-ffffffffffff', '2999-01-01T00:00:00.000Z', ${text('ops\u001b[8m\u0085')}, 'channel.update', 'qris', ${text(JSON.stringify({ name: 'QRIS' }))}, ${text(JSON.stringify({ name: BIDI }))})`,
      );
    } finally {
      await db.close();
    }
    for (const args of [['channel', 'list'], ['merchant', 'list'], ['audit', 'list', '--limit', '5']]) {
      const human = await admin(dataDir, args);
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout, args.join(' ')).not.toMatch(RAW);
      const json = await admin(dataDir, [...args, '--json']);
      expect(json.stdout, `${args.join(' ')} --json`).not.toMatch(RAW);
    }
    // --wide: tables otherwise cut long cells to fit 120 columns.
    expect((await admin(dataDir, ['channel', 'list', '--wide'])).stdout).toContain('Bank\\u001b]0;pwned\\u0007\\u001b[2J VA');
    expect((await admin(dataDir, ['merchant', 'list', '--wide'])).stdout).toContain('Transfer \\u202eAV knaB');
    expect((await admin(dataDir, ['audit', 'list', '--limit', '5', '--wide'])).stdout).toContain('ops\\u001b[8m\\u0085');
    // --json stays JSON, with the stored values unchanged.
    const channels = await adminJson<{ code: string; name: string }[]>(dataDir, ['channel', 'list']);
    expect(channels.find((c) => c.code === 'qris')?.name).toBe(OSC_TITLE);
    const merchants = await adminJson<{ id: string; name: string }[]>(dataDir, ['merchant', 'list']);
    expect(merchants.find((m) => m.id === M)?.name).toBe(BIDI);
  }, 120_000);
});
