/**
 * The admin CLI spawned as an operator runs it: output formats, the
 * one-time secret, and the error paths (message on stderr, non-zero exit,
 * nothing written).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/app.js';
import { admin, adminJson, childEnv, ROOT, run } from '../helpers/ops.js';

let dataDir: string;
let merchantId: string;

beforeAll(() => {
  dataDir = makeTempDir('pgw-cli-');
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('admin CLI', () => {
  it('usage errors exit 2 before touching DATA_DIR', async () => {
    const fresh = path.join(dataDir, 'never-created');
    const unknown = await admin(fresh, ['merchant', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command: merchant frobnicate');
    expect(fs.existsSync(fresh)).toBe(false);

    const help = await admin(fresh, ['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('key create --merchant MERCHANT_ID');
  });

  it('on an empty DATA_DIR refuses; init seeds the demo data like npm start; then lists merchants as a table and as JSON', async () => {
    const refused = await admin(dataDir, ['merchant', 'list']);
    expect(refused.code).toBe(1);
    // SQLite: no file in DATA_DIR; TEST_DB=postgres: the DATA_DIR's own database, without the project's schema.
    expect(refused.stderr).toContain(TEST_ENGINE === 'postgres' ? 'holds no payment-gateway schema' : `there is no database in ${dataDir}`);
    const init = await admin(dataDir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain('seeded with demo data');
    const table = await admin(dataDir, ['merchant', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^MERCHANT ID\s+NAME\s+KYC\s+CATEGORY\s+CREATED\n-+/);
    expect(table.stdout).toContain('Toko Kopi Nusantara');
    expect(fs.existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(true);

    const again = await admin(dataDir, ['merchant', 'list', '--json']);
    expect(again.stderr).not.toContain('seeded'); // only the first run seeds
    expect(JSON.parse(again.stdout)).toHaveLength(3); // the three demo merchants
  }, 60_000);

  it('merchant create / set-kyc and their error paths', async () => {
    const m = await adminJson(dataDir, ['merchant', 'create', '--name', 'CLI Shop', '--kyc', 'approved', '--channels', 'qris,bca_va']);
    expect(m).toMatchObject({ name: 'CLI Shop', kycStatus: 'approved' });
    merchantId = m.id;
    const channels = await adminJson<{ code: string }[]>(dataDir, ['merchant', 'channels', merchantId]);
    expect(channels.map((c) => c.code)).toEqual(['qris', 'bca_va']);

    const badKyc = await admin(dataDir, ['merchant', 'create', '--name', 'X', '--kyc', 'maybe']);
    expect(badKyc.code).toBe(1);
    expect(badKyc.stderr).toContain('kyc: must be one of approved, pending, rejected');
    const noName = await admin(dataDir, ['merchant', 'create']);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('--name is required');
    const badChannel = await admin(dataDir, ['merchant', 'create', '--name', 'Y', '--channels', 'nope']);
    expect(badChannel.code).toBe(1);
    expect(badChannel.stderr).toContain('no channel nope');
    // The failed create was rolled back: no merchant "Y".
    expect((await adminJson<{ name: string }[]>(dataDir, ['merchant', 'list'])).map((x) => x.name)).not.toContain('Y');

    expect(await adminJson(dataDir, ['merchant', 'set-kyc', merchantId, 'rejected'])).toMatchObject({ kycStatus: 'rejected' });
    const unknown = await admin(dataDir, ['merchant', 'set-kyc', '00000000-0000-0000-0000-000000000000', 'approved']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no merchant 00000000-0000-0000-0000-000000000000');
  }, 60_000);

  it('key create prints the secret once; key list never shows it; revoke is final', async () => {
    const human = await admin(dataDir, ['key', 'create', '--merchant', merchantId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/API key: {4}pk_test_[0-9a-f]{32}\n {2}API secret: sk_test_[A-Za-z0-9_-]{43}\n/);

    const k = await adminJson(dataDir, ['key', 'create', '--merchant', merchantId, '--mode', 'live']);
    expect(Object.keys(k).sort()).toEqual(['apiKey', 'apiSecret', 'merchantId']);
    expect(k.apiKey).toMatch(/^pk_live_[0-9a-f]{32}$/);
    expect(k.apiSecret).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(k.merchantId).toBe(merchantId);

    const listJson = await admin(dataDir, ['key', 'list', '--merchant', merchantId, '--json']);
    const listTable = await admin(dataDir, ['key', 'list', '--merchant', merchantId]);
    for (const out of [listJson.stdout, listTable.stdout]) {
      expect(out).toContain(k.apiKey);
      expect(out).not.toContain(k.apiSecret);
      expect(out).not.toMatch(/sk_(test|live)_/);
    }
    expect(JSON.parse(listJson.stdout)).toHaveLength(2);

    const revoked = await adminJson(dataDir, ['key', 'revoke', k.apiKey]);
    expect(revoked.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const twice = await admin(dataDir, ['key', 'revoke', k.apiKey]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already revoked');
    const unknownKey = await admin(dataDir, ['key', 'revoke', 'pk_test_doesnotexist']);
    expect(unknownKey.code).toBe(1);
    const badMode = await admin(dataDir, ['key', 'create', '--merchant', merchantId, '--mode', 'prod']);
    expect(badMode.code).toBe(1);
    expect(badMode.stderr).toContain('mode: must be one of test, live');
    const unknownMerchant = await admin(dataDir, ['key', 'list', '--merchant', 'nobody']);
    expect(unknownMerchant.code).toBe(1);
    const unknownFlag = await admin(dataDir, ['key', 'list', '--merchant', merchantId, '--show-secrets']);
    expect(unknownFlag.code).toBe(2);
  }, 60_000);

  it('channel create / update validate with the domain rules and refuse bad values', async () => {
    const cases: [string[], string][] = [
      [['channel', 'update', 'qris', '--min', '20000000'], 'min 20000000 is greater than max 10000000'],
      [['channel', 'update', 'qris', '--fee-value=-5'], 'fee-value: must not be negative'],
      [['channel', 'update', 'qris', '--fee-percentage', '100.5'], 'fee-percentage: must be at most 100'],
      [['channel', 'update', 'qris', '--fee-value', '0.5'], 'has more decimals than the currency allows (0)'],
      [['channel', 'update', 'qris', '--status', 'paused'], 'status: must be one of active, offline, maintenance'],
      [['channel', 'update', 'qris', '--requires-kyc', 'yes'], 'requires-kyc: must be true or false'],
      [['channel', 'update', 'qris', '--fee-value', 'abc'], 'fee-value: must be a number'],
      [['channel', 'update', 'nope', '--status', 'active'], 'no channel nope'],
      [['channel', 'update', 'qris'], 'nothing to change'],
      [['channel', 'update', 'qris', '--currency', 'EUR'], 'unknown currency EUR'],
      [['channel', 'create', '--code', 'qris', '--name', 'Dup', '--currency', 'IDR', '--min', '1', '--max', '2'], 'channel qris already exists'],
      [['channel', 'create', '--code', 'Bad Code', '--name', 'X', '--currency', 'IDR', '--min', '1', '--max', '2'], 'code: must be 1-64 characters'],
    ];
    for (const [args, message] of cases) {
      const r = await admin(dataDir, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(message);
    }
    // Several problems are reported together.
    const many = await admin(dataDir, ['channel', 'update', 'qris', '--status', 'x', '--fee-value=-1', '--fee-to-customer', 'no']);
    expect(many.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(3);
    // ...also when one of them is a bad range next to a bad value (docs/OPERATIONS.md: all problems of one change at once).
    const mixed = await admin(dataDir, ['channel', 'update', 'qris', '--fee-percentage', '150', '--min', '5000000', '--max', '10']);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual(['error: fee-percentage: must be at most 100 (percent)', 'error: min 5000000 is greater than max 10']);
    const missing = await admin(dataDir, ['channel', 'create', '--code', 'x', '--max', '10']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--name, --currency, --min are required');
    // Nothing was written by the refused changes.
    const qris = (await adminJson<any[]>(dataDir, ['channel', 'list'])).find((c) => c.code === 'qris');
    expect(qris).toMatchObject({ status: 'active', feeValue: '0', minAmount: '1000', maxAmount: '10000000', requiresKyc: true });

    const created = await adminJson(dataDir, [
      'channel', 'create', '--code', 'gopay', '--name', 'GoPay', '--currency', 'IDR', '--min', '1000', '--max', '2000000',
      '--fee-percentage', '2', '--fee-to-customer', 'false', '--status', 'maintenance',
    ]);
    expect(created).toMatchObject({ code: 'gopay', feePercentage: '2', feeChargedToCustomer: false, status: 'maintenance', imagePath: '/images/channels/gopay.svg' });
    const updated = await adminJson(dataDir, [
      'channel', 'update', 'GOPAY', '--status', 'active', '--fee-percentage', '1.70', '--fee-value', '500', '--min', '5000', '--max', '3000000',
      '--requires-kyc', 'true', '--fee-to-customer', 'true', '--name', 'GoPay Wallet', '--additional-fee-value', '250',
    ]);
    expect(updated).toMatchObject({
      status: 'active', feePercentage: '1.7', feeValue: '500', minAmount: '5000', maxAmount: '3000000', requiresKyc: true,
      feeChargedToCustomer: true, name: 'GoPay Wallet', additionalFeeValue: '250',
    });

    const table = await admin(dataDir, ['channel', 'list']);
    expect(table.stdout).toMatch(/^CODE\s+NAME\s+STATUS/);
    expect(table.stdout).toMatch(/gopay\s+GoPay Wallet\s+active\s+IDR\s+1\.7\s+500/);
  }, 120_000);

  it('currencies: decimals follow the currency minor units', async () => {
    expect((await admin(dataDir, ['currency', 'set', 'SGD', '--minor-units', '7'])).code).toBe(1);
    expect(await adminJson(dataDir, ['currency', 'set', 'sgd', '--minor-units', '2'])).toEqual({ code: 'SGD', minorUnits: 2 });
    const tooFine = await admin(dataDir, ['channel', 'create', '--code', 'sg_card', '--name', 'SG Card', '--currency', 'SGD', '--min', '0.50', '--max', '5000', '--fee-value', '0.305']);
    expect(tooFine.code).toBe(1);
    expect(tooFine.stderr).toContain('fee value 0.305 has more decimals than the currency allows (2)');
    expect((await admin(dataDir, ['channel', 'create', '--code', 'sg_card', '--name', 'SG Card', '--currency', 'SGD', '--min', '0.50', '--max', '5000', '--fee-value', '0.30'])).code).toBe(0);
    // Lowering the minor units would make the stored 0.3 fee invalid: refused.
    const lower = await admin(dataDir, ['currency', 'set', 'SGD', '--minor-units', '0']);
    expect(lower.code).toBe(1);
    expect(lower.stderr).toContain('more decimals than the currency allows (0)');
  }, 60_000);

  it('enable-channel with overrides validates the effective settings; disable-channel', async () => {
    const ok = await adminJson(dataDir, ['merchant', 'enable-channel', merchantId, 'ovo', '--fee-percentage', '1.2', '--max', '1500000']);
    expect(ok).toMatchObject({ code: 'ovo', overrides: { feePercentage: '1.2', maxAmount: '1500000' }, effective: { feePercentage: '1.2', minAmount: '10000', maxAmount: '1500000' } });

    const bad = await admin(dataDir, ['merchant', 'enable-channel', merchantId, 'ovo', '--min', '1600000']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('min 1600000 is greater than max 1500000');
    // A catalogue change that would break this merchant's overrides is refused too.
    const catalogue = await admin(dataDir, ['channel', 'update', 'ovo', '--min', '1700000', '--max', '1800000']);
    expect(catalogue.code).toBe(1);
    expect(catalogue.stderr).toContain(`with the overrides of merchant ${merchantId}: min 1700000 is greater than max 1500000`);

    const cleared = await adminJson(dataDir, ['merchant', 'enable-channel', merchantId, 'ovo', '--max', 'default']);
    expect(cleared.overrides).toEqual({ feePercentage: '1.2' });
    expect(cleared.effective.maxAmount).toBe('2000000');

    expect((await admin(dataDir, ['merchant', 'disable-channel', merchantId, 'ovo'])).code).toBe(0);
    const twice = await admin(dataDir, ['merchant', 'disable-channel', merchantId, 'ovo']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('is not enabled');
  }, 60_000);

  it('runs as the package bin and through npm run admin', async () => {
    const bin = await run(process.execPath, ['bin/payment-gateway-admin.mjs', 'channel', 'list', '--json'], childEnv({ DATA_DIR: dataDir }));
    expect(bin.code, bin.stderr).toBe(0);
    expect(JSON.parse(bin.stdout).map((c: { code: string }) => c.code)).toContain('gopay');

    const npm = await run('npm', ['run', '--silent', 'admin', '--', 'merchant', 'list', '--json'], childEnv({ DATA_DIR: dataDir }));
    expect(npm.code, npm.stderr).toBe(0);
    expect(JSON.parse(npm.stdout).map((m: { id: string }) => m.id)).toContain(merchantId);
  }, 60_000);

  it('pricing and audit commands (contract §7): --json, rule id on stdout, all problems, exit 1 refused / 2 usage, --actor else the OS user', async () => {
    const micro = (await adminJson<{ id: string; category: string }[]>(dataDir, ['merchant', 'list'])).find((m) => m.category === 'micro')!;
    expect(micro).toBeDefined();
    const shop = await adminJson(dataDir, ['merchant', 'create', '--name', 'Tiny Shop', '--category', 'micro', '--actor', 'carol']);
    expect(shop.category).toBe('micro');
    expect(await adminJson(dataDir, ['merchant', 'set-category', shop.id, 'nano', '--actor', 'carol'])).toMatchObject({ category: 'nano' });

    const set = await admin(dataDir, ['fee', 'set', 'qris', '--category', 'nano', '--bands', '100000:0:0,*:0.2:0', '--effective-from', '2099-01-05T00:00:00+07:00', '--actor', 'carol', '--tz', 'UTC']);
    expect(set.code, set.stderr).toBe(0);
    const ruleId = set.stdout.trim();
    expect(ruleId).toMatch(/^[0-9a-f-]{36}$/);
    expect(set.stderr).toContain('Scheduled CATEGORY rule on qris (100000:0:0,*:0.2:0) effective from 2099-01-04 17:00:00 +00:00 (UTC).');
    const listed = await adminJson<{ id: string; state: string }[]>(dataDir, ['fee', 'list', 'qris', '--merchant', shop.id]);
    expect(listed.map((r) => [r.id, r.state])).toEqual([
      ['flat:qris', 'in-force'],
      [ruleId, 'scheduled'],
    ]);
    const table = await admin(dataDir, ['fee', 'list', 'qris', '--wide']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^RULE ID\s+STATE\s+SCOPE\s+FOR\s+BANDS\s+MIN FEE\s+MAX FEE\s+TAX %\s+CUSTOMER %\s+EFFECTIVE FROM\s+CREATED\n-+/);

    // Contract §10: caps, tax and the customer's share, shown by fee list; every problem at once, exit 1.
    const split = await adminJson<{ id: string; minFee: string; maxFee: string; taxPercentage: string; customerShare: string }>(dataDir, [
      'fee', 'set', 'qris', '--merchant', shop.id, '--bands', '*:0.7:0', '--min-fee', '500', '--max-fee', '5000', '--tax', '11', '--customer-share', '50', '--actor', 'carol',
    ]);
    expect(split).toMatchObject({ minFee: '500', maxFee: '5000', taxPercentage: '11', customerShare: '50' });
    expect((await admin(dataDir, ['fee', 'list', 'qris', '--merchant', shop.id, '--wide'])).stdout).toMatch(new RegExp(`${split.id}\\s+in-force\\s+MERCHANT\\s+Tiny Shop \\(${shop.id}\\)\\s+\\*:0\\.7:0\\s+500\\s+5000\\s+11\\s+50\\s`));
    const badSettings = await admin(dataDir, ['fee', 'set', 'qris', '--bands', '*:0.7:0', '--min-fee=-1', '--max-fee', '0.5', '--tax', '200', '--customer-share', '101']);
    expect(badSettings.code).toBe(1);
    expect(badSettings.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(4);
    expect(badSettings.stderr).toContain('maxFee: 0.5 has more decimals than the currency allows (0)');
    const crossed = await admin(dataDir, ['fee', 'set', 'qris', '--bands', '*:0.7:0', '--min-fee', '6000', '--max-fee', '5000']);
    expect(crossed.code).toBe(1);
    expect(crossed.stderr).toContain('minFee 6000 is above maxFee 5000');

    const refused = await admin(dataDir, ['fee', 'set', 'qris', '--category', 'Nano', '--bands', '*:101:0.5', '--effective-from', 'tomorrow']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(4); // percentage, fixed decimals, category, instant
    const unknown = await admin(dataDir, ['fee', 'set', 'qris', '--merchant', '00000000-0000-0000-0000-000000000000', '--bands', '*:1:0']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no merchant 00000000-0000-0000-0000-000000000000');
    expect((await admin(dataDir, ['fee', 'set', 'qris', '--merchant', micro.id, '--category', 'micro', '--bands', '*:1:0'])).code).toBe(2);
    expect((await admin(dataDir, ['fee', 'set', 'qris'])).code).toBe(2); // --bands is required
    expect((await admin(dataDir, ['fee', 'list'])).code).toBe(2);
    expect((await admin(dataDir, ['fee', 'list', 'qris', '--actor', 'x'])).code).toBe(2); // read-only commands take no actor

    expect(await adminJson(dataDir, ['fee', 'cancel', ruleId, '--actor', 'carol'])).toMatchObject({ id: ruleId, state: 'cancelled' });
    const again = await admin(dataDir, ['fee', 'cancel', ruleId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already cancelled');

    const audit = await adminJson<{ actor: string; action: string; entity: string }[]>(dataDir, ['audit', 'list', '--entity', 'qris', '--limit', '2']);
    expect(audit.map((a) => [a.actor, a.action])).toEqual([
      ['carol', 'fee.cancel'],
      ['carol', 'fee.set'],
    ]);
    const mine = await adminJson<{ actor: string; action: string }[]>(dataDir, ['audit', 'list', '--entity', shop.id]);
    expect(mine.map((a) => a.action)).toEqual(['merchant.set-category', 'merchant.create']);
    // Without --actor the operating-system user is recorded.
    await adminJson(dataDir, ['merchant', 'set-kyc', shop.id, 'approved']);
    const [latest] = await adminJson<{ actor: string; action: string }[]>(dataDir, ['audit', 'list', '--entity', shop.id, '--limit', '1']);
    expect(latest).toMatchObject({ action: 'merchant.set-kyc', actor: os.userInfo().username });
    expect((await admin(dataDir, ['audit', 'list', '--since', 'yesterday'])).code).toBe(1);
    expect((await admin(dataDir, ['audit', 'list', '--limit'])).code).toBe(2);
  }, 300_000); // some 40 CLI runs: minutes on a loaded 2-core machine

  it('runs built (dist/admin.mjs under plain node, as npm run admin and the package bin do), rebuilt when a source is newer', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
    expect(pkg.scripts.admin).toBe('node bin/payment-gateway-admin.mjs');
    expect(pkg.bin['payment-gateway-admin']).toBe('bin/payment-gateway-admin.mjs');
    const launcher = fs.readFileSync(path.join(ROOT, 'bin/payment-gateway-admin.mjs'), 'utf8');
    expect(launcher).not.toMatch(/tsx/);
    const bundle = path.join(ROOT, 'dist/admin.mjs');
    expect((await admin(dataDir, ['merchant', 'list'])).code).toBe(0);
    // A bundle older than the sources (as after a git pull) is rebuilt before the command runs.
    fs.utimesSync(bundle, new Date(1_000_000), new Date(1_000_000));
    const stale = await admin(dataDir, ['merchant', 'list', '--json']);
    expect(stale.code, stale.stderr).toBe(0);
    expect(JSON.parse(stale.stdout).length).toBeGreaterThan(0); // stdout is the command's alone
    expect(fs.statSync(bundle).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
  }, 60_000);

  it('operator output: seeded flat rules effective from the seed instant; audit list shows what changed, field by field, wrapped; --json the whole record', async () => {
    const fresh = makeTempDir('pgw-cli-seed-');
    try {
      const before = Date.now();
      expect((await admin(fresh, ['init'])).code).toBe(0);
      const rules = await adminJson<{ id: string; effectiveFrom: string }[]>(fresh, ['fee', 'list', 'qris']);
      const flat = rules.find((r) => r.id === 'flat:qris')!;
      expect(Date.parse(flat.effectiveFrom)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(flat.effectiveFrom)).toBeLessThanOrEqual(Date.now());
      expect((await admin(fresh, ['fee', 'list', 'qris'])).stdout).not.toContain('1970');
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }

    // A new rule (AFTER only, with a band list far longer than 80 characters): each field as added, wrapped.
    await adminJson(dataDir, ['fee', 'set', 'qris', '--bands', '100000:0:0,500000:0.3:0,1000000:0.25:0,*:0.2:0', '--min-fee', '500', '--max-fee', '5000', '--tax', '11', '--actor', 'dora']);
    const [record] = await adminJson<{ after: { bands: unknown; minFee: string } }[]>(dataDir, ['audit', 'list', '--entity', 'qris', '--limit', '1']);
    const bands = JSON.stringify(record!.after.bands);
    expect(bands.length).toBeGreaterThan(160);
    const out = await admin(dataDir, ['audit', 'list', '--entity', 'qris', '--limit', '1'], { COLUMNS: '80' });
    expect(out.code, out.stderr).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+ENTITY\s+NAME$/);
    expect(lines).toContain('    + minFee: "500"');
    const start = lines.findIndex((l) => l.startsWith('    + bands: '));
    const bandLines = [lines[start]!.slice('    + bands: '.length)];
    for (let i = start + 1; lines[i]?.startsWith(' '.repeat(6)); i += 1) bandLines.push(lines[i]!.slice(6));
    expect(bandLines.length).toBeGreaterThan(1); // wrapped
    expect(bandLines.join('')).toBe(bands); // and whole
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);

    // A change: only the fields that changed, each as before → after; the unchanged ones are not shown.
    await adminJson(dataDir, ['channel', 'update', 'qris', '--status', 'maintenance', '--actor', 'dora']);
    const changed = await admin(dataDir, ['audit', 'list', '--entity', 'qris', '--limit', '1']);
    expect(changed.stdout).toMatch(/^ {4}status: "\w+" → "maintenance"$/m);
    expect(changed.stdout).not.toMatch(/^ {4}(\+ )?name: /m);
    await adminJson(dataDir, ['channel', 'update', 'qris', '--status', 'active', '--actor', 'dora']);
    // --json keeps the whole record.
    const [whole] = await adminJson<{ before: Record<string, unknown>; after: Record<string, unknown> }[]>(dataDir, ['audit', 'list', '--entity', 'qris', '--limit', '1']);
    expect(whole!.before).toMatchObject({ status: 'maintenance', name: expect.any(String) });
    expect(whole!.after).toMatchObject({ status: 'active', name: whole!.before.name });
  }, 120_000);

  it('a misspelled option: a short error naming the command\'s options, with "did you mean" when one is close', async () => {
    const typo = await admin(dataDir, ['channel', 'update', 'qris', '--stauts', 'offline']);
    expect(typo.code).toBe(2);
    const [first, second, third] = typo.stderr.trim().split('\n').filter((l) => !l.startsWith('database:'));
    expect(first).toBe('error: unknown option --stauts for "channel update"; did you mean --status?');
    expect(second).toMatch(/^"channel update" takes: --fee-percentage, .*--status, .*--json, --tz, --wide$/);
    expect(third).toBe('run "npm run admin -- help channel update" for its options.');
    expect(typo.stderr).not.toContain("'");
    const far = await admin(dataDir, ['merchant', 'list', '--colour']);
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('error: unknown option --colour for "merchant list"\n"merchant list" takes: --limit, --after, --all, --json, --tz, --wide\n');
    const missing = await admin(dataDir, ['merchant', 'create', '--name']);
    expect(missing.stderr).toContain('error: --name needs a value\n');
  }, 60_000);

  it('contract §12: channel groups and names, and the merchant channel order (refusals exit 1 naming the value; usage exits 2)', async () => {
    const badGroup = await admin(dataDir, ['channel', 'update', 'dana', '--group', 'wallet']);
    expect(badGroup.code).toBe(1);
    expect(badGroup.stderr).toContain('group: must be one of qris, virtual_account, ewallet, retail_outlet, card');
    const named = await adminJson(dataDir, ['channel', 'update', 'dana', '--group', 'retail_outlet', '--name-id', 'DANA Dompet', '--name-en', 'DANA Wallet']);
    expect(named).toMatchObject({ code: 'dana', channelGroup: 'retail_outlet', nameId: 'DANA Dompet', nameEn: 'DANA Wallet' });

    const approved = (await adminJson<{ id: string; name: string }[]>(dataDir, ['merchant', 'list'])).find((m) => m.name === 'Toko Kopi Nusantara')!;
    const ordered = await adminJson<{ order: string[]; channels: string[] }>(dataDir, ['merchant', 'channels', 'order', approved.id, 'ovo,BCA_VA', '--actor', 'eve']);
    expect(ordered.order).toEqual(['ovo', 'bca_va']);
    expect(ordered.channels.slice(0, 3)).toEqual(['ovo', 'bca_va', 'qris']);
    const unknown = await admin(dataDir, ['merchant', 'channels', 'order', approved.id, 'ovo,gopay']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`unknown channel gopay: not a channel of merchant ${approved.id}`);
    const both = await admin(dataDir, ['merchant', 'channels', 'order', approved.id, 'ovo', '--reset']);
    expect(both.code).toBe(2);
    const reset = await admin(dataDir, ['merchant', 'channels', 'order', approved.id, '--reset']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('default order');
    const [record] = await adminJson<{ action: string; actor: string; before: unknown; after: unknown }[]>(dataDir, ['audit', 'list', '--entity', approved.id, '--limit', '2']);
    expect(record).toMatchObject({ action: 'merchant.channel-order', before: { order: ['ovo', 'bca_va'] }, after: { order: null } });
    // The listing form still works.
    const listed = await admin(dataDir, ['merchant', 'channels', approved.id]);
    expect(listed.code, listed.stderr).toBe(0);
  }, 90_000);
});
