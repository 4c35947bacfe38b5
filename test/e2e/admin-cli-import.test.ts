/**
 * `merchant import` and the paged listings as an operator runs them (contract §15): the CLI process, a
 * file and standard input, exit codes, --json lines, and the next-page command a listing prints. The rules
 * themselves are tested in process (test/integration/merchant-import.test.ts); this file keeps to a few
 * process starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { admin, type RunResult } from '../helpers/ops.js';

let dataDir: string;

beforeAll(async () => {
  dataDir = makeTempDir('pgw-cli-import-');
  const init = await admin(dataDir, ['init']);
  expect(init.code, init.stderr).toBe(0);
}, 60_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The admin CLI with `input` on its standard input. */
const adminWithInput = (args: string[], input: string): Promise<RunResult> => admin(dataDir, args, {}, input);

describe('admin CLI: merchant import and paged lists', () => {
  let imported: { merchantId: string; name: string }[] = [];

  it('imports CSV from standard input; --json prints one line per merchant', async () => {
    const csv = '\uFEFFname,category,kyc,channels\r\n"Toko ""Satu"", Jaya",micro,approved,all\r\nToko Dua,,,ovo;dana\r\n\r\nToko Tiga,regular,pending,\r\nToko Empat,regular,approved,qris\r\n';
    const r = await adminWithInput(['merchant', 'import', '-', '--json', '--batch-size', '2'], csv);
    expect(r.code, r.stderr).toBe(0);
    imported = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { merchantId: string; name: string });
    expect(imported.map((m) => m.name)).toEqual(['Toko "Satu", Jaya', 'Toko Dua', 'Toko Tiga', 'Toko Empat']);
    expect(imported.every((m) => /^[0-9a-f-]{36}$/.test(m.merchantId))).toBe(true);
  }, 60_000);

  it('a bad line refuses the file with exit 1, naming line and field; nothing is written', async () => {
    const file = path.join(dataDir, 'bad.csv');
    fs.writeFileSync(file, 'name,kyc\nFine,approved\n"Evil\u202Ename",approved\nAlso Fine,maybe\n');
    const r = await admin(dataDir, ['merchant', 'import', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: line 3: name: contains U+202E (a bidirectional control');
    expect(r.stderr).toContain('error: line 4: kyc: must be approved, pending or rejected (got "maybe")');
    expect(r.stderr).toContain('error: nothing was written');
    expect(r.stdout).toBe('');
  }, 60_000);

  it('merchant list pages and prints the command for the next page; --all --json streams every merchant', async () => {
    const first = await admin(dataDir, ['merchant', 'list', '--limit', '3']);
    expect(first.code, first.stderr).toBe(0);
    const rows = first.stdout.split('\n').filter((l) => /^[0-9a-f]{8}-/.test(l));
    expect(rows).toHaveLength(3);
    const more = /^more: npm run admin -- merchant list --limit 3 --after ([0-9a-f-]{36}) {2}\(or --all for every one\)$/m.exec(first.stderr);
    expect(more, first.stderr).not.toBeNull();
    expect(first.stdout).not.toContain('more:'); // stdout stays the rows
    expect(rows[2]!.startsWith(more![1]!)).toBe(true);

    const all = await admin(dataDir, ['merchant', 'list', '--all', '--json']);
    expect(all.code, all.stderr).toBe(0);
    const everyone = JSON.parse(all.stdout) as { id: string; name: string }[];
    expect(everyone.map((m) => m.id)).toEqual([...everyone.map((m) => m.id)].sort());
    expect(everyone.map((m) => m.name)).toEqual(expect.arrayContaining(['Toko Kopi Nusantara', ...imported.map((m) => m.name)]));
    expect(everyone).toHaveLength(3 + imported.length); // the demo merchants and the imported ones

    const next = await admin(dataDir, ['merchant', 'list', '--limit', '3', '--after', more![1]!, '--json']);
    expect((JSON.parse(next.stdout) as { id: string }[]).map((m) => m.id)).toEqual(everyone.slice(3, 6).map((m) => m.id));
    expect(next.stderr).toContain('more: npm run admin -- merchant list --limit 3 --after ');
  }, 60_000);

  it('import --update changes the columns given and says what changed', async () => {
    const file = path.join(dataDir, 'update.csv');
    fs.writeFileSync(file, `merchantId,kyc,category\n${imported[1]!.merchantId},approved,micro\n${imported[2]!.merchantId},rejected,\n`);
    const r = await admin(dataDir, ['merchant', 'import', '--update', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Updated 2 merchants from update.csv in 1 transaction.\nChanged: kyc 2, category 1.\n');
  }, 60_000);
});
