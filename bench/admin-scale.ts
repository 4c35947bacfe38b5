/**
 * `npm run bench:admin -- [--merchants 100000] [--engine sqlite|postgres]`: what operator commands cost at a
 * hundred thousand merchants (contract §15).
 *
 * 1. Builds the data as an operator does: a demo database (`admin init`), then `admin merchant import` of a
 *    generated CSV (10 % category micro, a third KYC pending, every channel), through the CLI process. Reports
 *    the import's wall time and rate, and the rate without the CLI's own start (a `currency list` timed alike).
 * 2. Gives 1 % of the merchants a fee override on one channel (overrides are what a channel change re-checks).
 * 3. Times each operator command in process (AdminService on the same database, the median of 5 runs), with the
 *    demo data alone and again with the merchants imported: a command about one merchant or one channel should
 *    cost about the same at both sizes. `channel list` counts every channel's merchants: it is about all of them.
 *
 * Prints a markdown table; nothing is timed against a threshold.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bootData } from '../src/app/boot.js';
import { AdminService } from '../src/modules/admin/service.js';
import { DEMO_APPROVED_MERCHANT_ID } from '../src/modules/admin/demo-seed.js';
import { startPostgres, type LocalService } from '../scripts/lib/local-services.js';

const { values } = parseArgs({ options: { merchants: { type: 'string', default: '100000' }, engine: { type: 'string', default: 'sqlite' }, runs: { type: 'string', default: '5' } } });
const merchants = Number(values.merchants);
const engine = values.engine;
const runs = Number(values.runs);
if (!Number.isInteger(merchants) || merchants < 1 || (engine !== 'sqlite' && engine !== 'postgres')) {
  process.stderr.write('usage: npm run bench:admin -- [--merchants N] [--engine sqlite|postgres] [--runs N]\n');
  process.exit(2);
}

const root = path.resolve(import.meta.dirname, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-admin-'));
const dataDir = path.join(tmp, 'data');
let postgres: LocalService | undefined;

/** Milliseconds of `fn`, the median of `runs`. */
async function median(fn: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** The operator commands timed, each as the CLI calls the service. */
async function timeCommands(service: AdminService, merchantId: string): Promise<Map<string, number>> {
  const t = new Map<string, number>();
  const cursor = (await service.merchantsPage({ limit: 1000 })).merchants.at(-1)!.id;
  t.set('merchant list (first page of 100)', await median(() => service.merchantsPage({})));
  t.set('merchant list --after (a later page)', await median(() => service.merchantsPage({ after: cursor })));
  t.set('merchant channels MERCHANT', await median(() => service.merchantChannels(merchantId)));
  t.set('merchant set-kyc MERCHANT', await median((i) => service.setKyc(merchantId, i % 2 === 0 ? 'pending' : 'approved')));
  t.set('merchant set-category MERCHANT', await median((i) => service.setCategory(merchantId, i % 2 === 0 ? 'micro' : 'regular')));
  t.set('merchant enable-channel MERCHANT ovo --fee-percentage', await median((i) => service.enableChannel(merchantId, 'ovo', { feePercentage: i % 2 === 0 ? '1.1' : '1.2' }, { replace: true })));
  t.set('key create --merchant MERCHANT', await median(() => service.createKey(merchantId)));
  t.set('fee set ovo --merchant MERCHANT', await median(() => service.setFee({ channel: 'ovo', merchantId, bands: '*:1.3:0', replace: true })));
  t.set('fee list ovo --merchant MERCHANT', await median(() => service.listFees('ovo', merchantId)));
  t.set('channel update dana --status', await median((i) => service.updateChannel('dana', { status: i % 2 === 0 ? 'maintenance' : 'active' })));
  t.set('channel update dana --fee-value', await median((i) => service.updateChannel('dana', { feeValue: i % 2 === 0 ? '1500' : '1000' }, { replace: true })));
  t.set('audit list (first page of 100)', await median(() => service.auditPage({})));
  t.set('channel list (counts every merchant: about all)', await median(() => service.listChannels()));
  return t;
}

async function openService() {
  const data = await bootData({ dataDir, masterKey: null, seedDemoData: true, databaseUrl: postgres?.url ?? null }, { watch: false });
  return { data, service: new AdminService(data.store.admin, data.secretBox, { actor: 'bench' }) };
}

/** GNU time, when installed, reports the CLI process's own CPU time (what a busy machine does not change). */
const GNU_TIME = '/usr/bin/time';

/** Run the admin CLI; its wall time, and its CPU time (user + system) when GNU time is there. */
function cli(args: string[]): { ms: number; cpuMs: number | null } {
  const env = { ...process.env, DATA_DIR: dataDir, ...(postgres ? { DATABASE_URL: postgres.url } : {}) };
  const command = [process.execPath, path.join(root, 'bin/payment-gateway-admin.mjs'), ...args];
  const cpuFile = path.join(tmp, 'cpu.txt');
  const timed = fs.existsSync(GNU_TIME) ? [GNU_TIME, '-f', '%U %S', '-o', cpuFile, ...command] : command;
  const start = performance.now();
  const r = spawnSync(timed[0]!, timed.slice(1), { env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`admin ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  if (!fs.existsSync(cpuFile)) return { ms, cpuMs: null };
  const [user, system] = fs.readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
  fs.rmSync(cpuFile);
  return { ms, cpuMs: (user! + system!) * 1000 };
}

try {
  if (engine === 'postgres') postgres = await startPostgres();
  // Build the CLI bundle first so no timed call pays for it.
  execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), 'src/cli/admin.ts', 'dist/admin.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  cli(['init']);

  let s = await openService();
  const before = await timeCommands(s.service, DEMO_APPROVED_MERCHANT_ID);
  await s.data.store.close();

  const csv = path.join(tmp, 'merchants.csv');
  const lines = ['name,category,kyc,channels'];
  for (let i = 1; i <= merchants; i++) lines.push(`Merchant ${String(i).padStart(7, '0')},${i % 10 === 0 ? 'micro' : 'regular'},${i % 3 === 0 ? 'pending' : 'approved'},all`);
  fs.writeFileSync(csv, `${lines.join('\n')}\n`);
  const start = cli(['currency', 'list']);
  const imported = cli(['merchant', 'import', csv]);

  s = await openService();
  // 1 % of the merchants override a channel setting: what a channel change has to re-check.
  const page = await s.service.merchantsPage({ limit: 1000 });
  const overriding = page.merchants.slice(0, Math.max(1, Math.floor(merchants / 100)));
  for (const m of overriding) await s.service.enableChannel(m.id, 'dana', { feeValue: '2000' });
  const after = await timeCommands(s.service, DEMO_APPROVED_MERCHANT_ID);
  const updateCsv = path.join(tmp, 'update.csv');
  const ids = (await s.service.merchantsPage({ limit: 1000 })).merchants.map((m) => m.id);
  fs.writeFileSync(updateCsv, `merchantId,category\n${ids.map((id) => `${id},promo`).join('\n')}\n`);
  await s.data.store.close();
  const updated = cli(['merchant', 'import', '--update', updateCsv]);

  const rate = (ms: number) => Math.round(merchants / (ms / 1000)).toLocaleString('en');
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const out = [
    `## Operator commands at ${merchants.toLocaleString('en')} merchants, ${engine} (${new Date().toISOString().slice(0, 16)}Z, load ${load}, ${os.cpus().length} cores)`,
    '',
    `- import of ${merchants.toLocaleString('en')} merchants (12 channels each) by the CLI: ${(imported.ms / 1000).toFixed(2)} s wall, ${rate(imported.ms)} merchants/s;`,
    `  without the CLI's start (${Math.round(start.ms)} ms for currency list): ${rate(imported.ms - start.ms)} merchants/s`,
    ...(imported.cpuMs === null ? [] : [`  CPU of the CLI process (user + system): ${(imported.cpuMs / 1000).toFixed(2)} s, ${rate(imported.cpuMs)} merchants per CPU second`]),
    `- import --update of the category of ${ids.length.toLocaleString('en')} merchants: ${Math.round(updated.ms)} ms wall (CLI start included)`,
    `- ${overriding.length.toLocaleString('en')} merchants override a setting of dana`,
    '',
    `| command (in process, median of ${runs}) | demo data (ms) | ${merchants.toLocaleString('en')} merchants (ms) |`,
    '|---|---:|---:|',
    ...[...before.keys()].map((k) => `| ${k} | ${before.get(k)!.toFixed(1)} | ${after.get(k)!.toFixed(1)} |`),
    '',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  await postgres?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
