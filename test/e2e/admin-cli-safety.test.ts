/**
 * The admin CLI cannot act on the wrong database, drops nothing in silence, explains itself, and prints
 * what an operator can read: spawned as an operator runs it (docs/OPERATIONS.md, "Admin CLI reference").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { TEST_ENGINE } from '../helpers/engine.js';
import { admin, adminJson, childEnv, ROOT, run } from '../helpers/ops.js';
import { DEMO_APPROVED_MERCHANT_ID } from '../../src/modules/admin/demo-seed.js';

let root: string;
let dataDir: string;

beforeAll(() => {
  root = makeTempDir('pgw-cli-safety-');
  dataDir = path.join(root, 'data');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Lines of stderr that are not the database banner. */
const errors = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('error:'));

describe('admin CLI: the database it acts on', () => {
  it.runIf(TEST_ENGINE === 'sqlite')('refuses a DATA_DIR without a database, naming it and how to point elsewhere, and creates nothing', async () => {
    const missing = path.join(root, 'typo');
    const r = await admin(missing, ['merchant', 'list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`database: SQLite ${path.join(missing, 'gateway.db')}`);
    expect(r.stderr).toContain(`error: there is no database in ${missing}`);
    expect(r.stderr).toContain('nothing was created');
    expect(r.stderr).toMatch(/DATA_DIR points there\. .*set DATA_DIR/);
    expect(r.stderr).toContain('DATABASE_URL');
    expect(r.stderr).toContain('npm run admin -- init');
    expect(fs.existsSync(missing)).toBe(false);

    // An existing but empty directory: still refused, still nothing written into it (no database, no master.key).
    fs.mkdirSync(missing);
    for (const args of [['fee', 'set', 'qris', '--bands', '*:1:0'], ['key', 'create', '--merchant', DEMO_APPROVED_MERCHANT_ID], ['channel', 'list']]) {
      const refused = await admin(missing, args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr).toContain(`there is no database in ${missing} (no gateway.db)`);
    }
    expect(fs.readdirSync(missing)).toEqual([]);
  }, 60_000);

  it('init creates the database as the server\'s first start does (demo data), once; other commands then act on it', async () => {
    const created = await admin(dataDir, ['init']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created the database .* with demo data/);
    expect(fs.existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(true);
    const again = await admin(dataDir, ['init']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('there is a database already');
    const listed = await admin(dataDir, ['merchant', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(3);
    // The banner is on stderr only: stdout is the JSON alone.
    expect(listed.stderr).toMatch(/^database: (SQLite \/|Postgres )/);
  }, 60_000);

  it('without DATA_DIR it looks in the project\'s own data/ wherever it is started from, and says so', async () => {
    const env = childEnv({});
    delete env.DATA_DIR;
    delete env.DATABASE_URL;
    const elsewhere = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      // Started from another directory: the launcher and the bundle find the project root beside themselves.
      import('node:child_process')
        .then(({ spawn }) => {
          const child = spawn(process.execPath, [path.join(ROOT, 'bin/payment-gateway-admin.mjs'), 'currency', 'list', '--json'], { cwd: os.tmpdir(), env, stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stderr }));
        })
        .catch(reject);
    });
    expect(elsewhere.stderr).toContain(`database: SQLite ${path.join(ROOT, 'data', 'gateway.db')} (DATA_DIR not set: the project's own data directory)`);
    if (elsewhere.code !== 0) expect(elsewhere.stderr).toContain("DATA_DIR is not set, so the CLI looked in the project's own data directory");
  }, 60_000);

  it('names a Postgres database by host and name, never its password', async () => {
    const r = await admin(path.join(root, 'pg-dir'), ['merchant', 'list'], { DATABASE_URL: 'postgres://gateway:hunter2@127.0.0.1:1/ledger', MASTER_KEY: 'ab'.repeat(32) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('database: Postgres 127.0.0.1:1/ledger\n');
    expect(r.stderr).not.toContain('hunter2');
  }, 60_000);
});

describe('admin CLI: nothing dropped in silence', () => {
  const rulesOf = (merchant: string) => adminJson<{ id: string; state: string }[]>(dataDir, ['fee', 'list', 'ovo', '--merchant', merchant]);

  it('fee set naming each setting the new rule would drop (caps, tax, customer share, bands); restated or --replace goes through', async () => {
    const shop = await adminJson<{ id: string }>(dataDir, ['merchant', 'create', '--name', 'Kedai Penuh Aturan', '--kyc', 'approved', '--channels', 'ovo']);
    const full = ['--bands', '100000:0:500,*:1.5:0', '--min-fee', '500', '--max-fee', '9000', '--tax', '11', '--customer-share', '40'];
    expect((await admin(dataDir, ['fee', 'set', 'ovo', '--merchant', shop.id, ...full])).code).toBe(0);
    const before = await rulesOf(shop.id);

    const cases: [string[], string][] = [
      [['--bands', '100000:0:500,*:1.5:0', '--max-fee', '9000', '--tax', '11', '--customer-share', '40'], 'its minimum fee (--min-fee 500)'],
      [['--bands', '100000:0:500,*:1.5:0', '--min-fee', '500', '--tax', '11', '--customer-share', '40'], 'its maximum fee (--max-fee 9000)'],
      [['--bands', '100000:0:500,*:1.5:0', '--min-fee', '500', '--max-fee', '9000', '--customer-share', '40'], 'its tax (--tax 11)'],
      [['--bands', '100000:0:500,*:1.5:0', '--min-fee', '500', '--max-fee', '9000', '--tax', '11'], 'its customer share (--customer-share 40)'],
      [['--bands', '*:1.5:0', '--min-fee', '500', '--max-fee', '9000', '--tax', '11', '--customer-share', '40'], 'its band up to 100000 (100000:0:500)'],
    ];
    for (const [args, named] of cases) {
      const r = await admin(dataDir, ['fee', 'set', 'ovo', '--merchant', shop.id, ...args]);
      expect(r.code, args.join(' ')).toBe(1);
      const lines = errors(r.stderr);
      expect(lines, args.join(' ')).toHaveLength(2);
      expect(lines[0]).toContain(`the new rule would drop ${named} of rule ${before[0]!.id} (in force since`);
      expect(lines[1]).toBe('error: nothing changed: restate these settings, or pass --replace to drop them');
    }
    // All of them at once, one line each; a scheduled replacement is judged against the rule in force at its instant.
    const all = await admin(dataDir, ['fee', 'set', 'ovo', '--merchant', shop.id, '--bands', '*:1:0', '--effective-from', '2099-01-05T00:00:00+07:00']);
    expect(all.code).toBe(1);
    expect(errors(all.stderr)).toHaveLength(6);
    expect(await rulesOf(shop.id)).toEqual(before); // nothing changed

    // Restated (another value is a restatement too): accepted. Then --replace drops on purpose.
    expect((await admin(dataDir, ['fee', 'set', 'ovo', '--merchant', shop.id, ...full.slice(0, -2), '--customer-share', '50'])).code).toBe(0);
    const scheduled = await admin(dataDir, ['fee', 'set', 'ovo', '--merchant', shop.id, '--bands', '*:1:0', '--effective-from', '2099-01-05T00:00:00+07:00', '--replace']);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    // A later rule replacing the scheduled one names that one, as scheduled.
    const later = await admin(dataDir, ['fee', 'set', 'ovo', '--merchant', shop.id, '--bands', '*:1:0', '--effective-from', '2099-02-01T00:00:00+07:00']);
    expect(later.code, later.stderr).toBe(0); // the scheduled rule has nothing to drop
  }, 120_000);

  it('channel update --fee-percentage / --fee-value over a channel rule with settings: refused naming them, --replace confirms', async () => {
    expect((await admin(dataDir, ['fee', 'set', 'dana', '--bands', '50000:0:1000,*:1.5:0', '--max-fee', '7500', '--tax', '11'])).code).toBe(0);
    for (const flag of [['--fee-percentage', '1.2'], ['--fee-value', '900']]) {
      const r = await admin(dataDir, ['channel', 'update', 'dana', ...flag]);
      expect(r.code, flag.join(' ')).toBe(1);
      const lines = errors(r.stderr);
      expect(lines).toHaveLength(4);
      expect(lines[0]).toContain('drop its maximum fee (--max-fee 7500)');
      expect(lines[1]).toContain('drop its tax (--tax 11)');
      expect(lines[2]).toContain('drop its band up to 50000 (50000:0:1000)');
      expect(lines.at(-1)).toBe('error: nothing changed: pass --replace to drop them, or set the fee with fee set and restate them');
    }
    expect((await adminJson<{ feePercentage: string }[]>(dataDir, ['channel', 'list'])).find((c: any) => c.code === 'dana')!.feePercentage).not.toBe('1.2');
    // A change that is not a fee is not a replacement.
    expect((await admin(dataDir, ['channel', 'update', 'dana', '--status', 'active'])).code).toBe(0);
    const replaced = await admin(dataDir, ['channel', 'update', 'dana', '--fee-percentage', '1.2', '--replace']);
    expect(replaced.code, replaced.stderr).toBe(0);
    const [inForce] = await adminJson<{ id: string; bandsText: string; maxFee: string | null }[]>(dataDir, ['fee', 'list', 'dana']);
    expect(inForce).toMatchObject({ id: 'flat:dana', bandsText: '*:1.2:0', maxFee: null });
  }, 60_000);
});

describe('admin CLI: a merchant\'s fee override over its own rule', () => {
  it('merchant enable-channel --fee-percentage over the demo micro merchant\'s OVO rule (tax, customer share): refused naming them, --replace confirms', async () => {
    const micro = (await adminJson<{ id: string; category: string }[]>(dataDir, ['merchant', 'list'])).find((m) => m.category === 'micro')!;
    const r = await admin(dataDir, ['merchant', 'enable-channel', micro.id, 'ovo', '--fee-percentage', '1']);
    expect(r.code).toBe(1);
    const lines = errors(r.stderr);
    expect(lines[0]).toContain('drop its tax (--tax 11)');
    expect(lines[1]).toContain('drop its customer share (--customer-share 50)');
    expect(lines.at(-1)).toBe('error: nothing changed: pass --replace to drop them, or set the fee with fee set --merchant and restate them');
    // Other overrides are not fees: no replacement.
    expect((await admin(dataDir, ['merchant', 'enable-channel', micro.id, 'ovo', '--max', '1500000'])).code).toBe(0);
    expect((await admin(dataDir, ['merchant', 'enable-channel', micro.id, 'ovo', '--fee-percentage', '1', '--replace'])).code).toBe(0);
  }, 60_000);
});

describe('admin CLI: help and mistakes', () => {
  it('COMMAND --help and help COMMAND print that command alone: synopsis, options, one example', async () => {
    for (const args of [['fee', 'set', '--help'], ['help', 'fee', 'set'], ['fee', 'set', '-h']]) {
      const r = await admin(path.join(root, 'never'), args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^usage: npm run admin -- fee set CODE /);
      expect(r.stdout).toContain('--customer-share PCT');
      expect(r.stdout).toContain('--replace');
      expect(r.stdout).toMatch(/\nexample:\n {2}npm run admin -- fee set qris /);
      expect(r.stdout).not.toContain('merchant create');
      expect(r.stdout.split('\n').length).toBeLessThan(20);
    }
    const key = await admin(path.join(root, 'never'), ['help', 'key', 'create']);
    expect(key.stdout).toMatch(/^usage: npm run admin -- key create --merchant MERCHANT_ID/);
    expect(key.stdout).toContain('also: --actor NAME, --json');
    expect(fs.existsSync(path.join(root, 'never'))).toBe(false);
  }, 60_000);

  it('unknown commands get "did you mean"; exit 2 before any database is looked at', async () => {
    const cases: [string[], string][] = [
      [['merchant', 'craete'], 'unknown command: merchant craete; did you mean merchant create?'],
      [['quote-keys', 'rotat'], 'unknown command: quote-keys rotat; did you mean quote-keys rotate?'],
      [['help', 'fee', 'lst'], 'unknown command: fee lst; did you mean fee list?'],
      [['key', 'frobnicate'], 'unknown command: key frobnicate; "key" takes: create, list, revoke'],
    ];
    for (const [args, message] of cases) {
      const r = await admin(path.join(root, 'never'), args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`error: ${message}\n`);
      expect(r.stderr).not.toContain('database:');
    }
  }, 60_000);

  it('a negative number is read as a number and refused for its value (exit 1), not as a missing value', async () => {
    const r = await admin(dataDir, ['channel', 'update', 'qris', '--fee-percentage', '-1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: fee-percentage: must not be negative');
    expect(r.stderr).not.toContain('needs a value');
    const fee = await admin(dataDir, ['fee', 'set', 'qris', '--bands', '*:1:0', '--max-fee', '-5', '--replace']);
    expect(fee.code).toBe(1);
    expect(fee.stderr).toContain('maxFee');
  }, 60_000);
});

describe('admin CLI: readable output', () => {
  it('times in --tz or TZ, the zone named; an unknown zone is a usage error', async () => {
    const set = await admin(dataDir, ['fee', 'set', 'bri_va', '--bands', '*:0:4000', '--effective-from', '2099-01-05T00:00:00+07:00', '--tz', 'Asia/Jakarta']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain('effective from 2099-01-05 00:00:00 +07:00 (Asia/Jakarta).');
    const jakarta = await admin(dataDir, ['fee', 'list', 'bri_va'], { TZ: 'Asia/Jakarta' });
    expect(jakarta.stdout).toMatch(/scheduled\s+\(channel default\)\s+\*:0:4000\s+-\s+2099-01-05 00:00\n/);
    expect(jakarta.stdout).toContain('(times in Asia/Jakarta;');
    const utc = await admin(dataDir, ['fee', 'list', 'bri_va', '--tz', 'UTC', '--wide']);
    expect(utc.stdout).toContain('2099-01-04 17:00:00 +00:00');
    expect(utc.stdout).toContain('(times in UTC;');
    const bad = await admin(dataDir, ['fee', 'list', 'bri_va', '--tz', 'Mars/Olympus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tz: unknown time zone "Mars/Olympus"');
    // --json keeps the instants as data (ISO, UTC).
    const json = await adminJson<{ effectiveFrom: string }[]>(dataDir, ['fee', 'list', 'bri_va']);
    expect(json.map((r) => r.effectiveFrom)).toContain('2099-01-04T17:00:00.000Z');
  }, 60_000);

  it('tables fit 120 columns by default, --wide shows every column; merchant names beside ids', async () => {
    const shop = await adminJson<{ id: string }>(dataDir, ['merchant', 'create', '--name', 'Toko Nama Yang Sangat Panjang Sekali Untuk Tabel', '--kyc', 'approved', '--channels', 'qris']);
    expect((await admin(dataDir, ['fee', 'set', 'qris', '--merchant', shop.id, '--bands', '100000:0:0,500000:0.3:0,1000000:0.25:0,*:0.2:0', '--min-fee', '500', '--max-fee', '5000', '--tax', '11'])).code).toBe(0);
    for (const args of [['fee', 'list', 'qris'], ['channel', 'list'], ['merchant', 'list'], ['audit', 'list', '--limit', '5'], ['key', 'list', '--merchant', DEMO_APPROVED_MERCHANT_ID]]) {
      const r = await admin(dataDir, args, { COLUMNS: '200' });
      expect(r.code, r.stderr).toBe(0);
      for (const line of r.stdout.split('\n')) expect(line.length, `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(120);
    }
    const narrow = await admin(dataDir, ['fee', 'list', 'qris']);
    expect(narrow.stdout).toMatch(/^RULE ID\s+STATE\s+FOR\s+BANDS\s+SETTINGS\s+EFFECTIVE FROM\n/);
    // Cut to fit: the merchant's short id and the start of its name, bands and settings each ending in "…".
    expect(narrow.stdout).toMatch(new RegExp(`${shop.id.slice(0, 8)} Toko[^\\n]*?…\\s+100000:0:0,\\S*…\\s+min 500, [^\\n]*?…`));
    const wide = await admin(dataDir, ['fee', 'list', 'qris', '--wide']);
    expect(wide.stdout).toMatch(/^RULE ID\s+STATE\s+SCOPE\s+FOR\s+BANDS\s+MIN FEE\s+MAX FEE\s+TAX %\s+CUSTOMER %\s+EFFECTIVE FROM\s+CREATED\n/);
    expect(wide.stdout).toContain(`Toko Nama Yang Sangat Panjang Sekali Untuk Tabel (${shop.id})`);
    expect(wide.stdout).toContain('100000:0:0,500000:0.3:0,1000000:0.25:0,*:0.2:0');
    const audit = await admin(dataDir, ['audit', 'list', '--entity', shop.id, '--limit', '1']);
    expect(audit.stdout).toMatch(/merchant\.create\s+[0-9a-f-]{36}\s+Toko Nama/);
  }, 90_000);

  it('audit lines show what a creation set, not its unset fields', async () => {
    expect((await admin(dataDir, ['fee', 'set', 'bni_va', '--bands', '*:0:3500', '--actor', 'audit-reader'])).code).toBe(0);
    const r = await admin(dataDir, ['audit', 'list', '--entity', 'bni_va', '--limit', '1']);
    expect(r.stdout).toContain('    + bandsText: "*:0:3500"');
    expect(r.stdout).not.toMatch(/: null$/m);
    expect(r.stdout).not.toContain('taxPercentage');
  }, 60_000);

  it('key create ends with the lines to use the key', async () => {
    const r = await admin(dataDir, ['key', 'create', '--merchant', DEMO_APPROVED_MERCHANT_ID]);
    expect(r.code, r.stderr).toBe(0);
    const key = /API key: {4}(pk_test_\w+)\n {2}API secret: (sk_test_[\w-]+)/.exec(r.stdout)!;
    expect(r.stdout).toContain(`  export API_KEY=${key[1]} API_SECRET=${key[2]}\n  npm run sign -- GET /v1/payments/channel\n`);
    // What it says to run works: npm run sign picks the pair up from the environment.
    const signed = await run(process.execPath, [path.join(ROOT, 'node_modules/.bin/tsx'), 'src/cli/sign.ts', 'GET', '/v1/payments/channel'], childEnv({ API_KEY: key[1]!, API_SECRET: key[2]! }));
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain(`X-SERVICE-API-Key: ${key[1]}`);
  }, 60_000);
});
