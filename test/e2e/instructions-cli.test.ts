/**
 * Contract §14, operators: `channel instructions set|show` spawned as an operator runs it, against the data
 * of a running app: validated (refusals exit 1 and write nothing), audited, and live within 1 s on the REST
 * route and on an open page whose stream selects the instructions; a page whose stream does not select them
 * gets no event (a stream whose answer did not change gets none, contract §8b).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { admin as adminIn, type RunResult } from '../helpers/ops.js';
import { openEventStream } from '../helpers/sse.js';

const masterKey = randomBytes(32);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ transport: 'node', masterKey });
}, 60_000);

/** The admin CLI on the app's own database (its file, or its Postgres URL) with the app's master key. */
function admin(dataDir: string, args: string[]): Promise<RunResult> {
  const env: Record<string, string> = { MASTER_KEY: masterKey.toString('hex') };
  if (t.sqlTarget.engine === 'postgres') env.DATABASE_URL = t.sqlTarget.url;
  return adminIn(dataDir, args, env);
}

async function adminJson<T = any>(dataDir: string, args: string[]): Promise<T> {
  const r = await admin(dataDir, [...args, '--json']);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
afterAll(() => t.close());

function file(name: string, content: unknown): string {
  const p = path.join(t.dataDir, name);
  fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

async function restSteps(target: string): Promise<string[]> {
  const res = await t.signedFetch(target);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { steps: string[] }[] }).data.flatMap((s) => s.steps);
}

const CORRECTED = [
  { key: 'atm', title: 'ATM BCA', steps: ['Masukkan kartu ATM BCA dan PIN.', 'Pilih Transfer, lalu ke Rekening BCA Virtual Account.', 'Masukkan nomor {{pay_code}} dan bayar {{amount}}.'] },
];

describe('channel instructions set / show', () => {
  it('show prints the demo instructions per language as text and JSON', async () => {
    const text = await admin(t.dataDir, ['channel', 'instructions', 'show', 'bca_va', '--locale', 'id']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('bca_va (id)');
    expect(text.stdout).toContain('[mobile_banking] m-BCA (BCA mobile)');
    expect(text.stdout).toMatch(/ {4}1\. Masukkan kartu ATM BCA dan PIN Anda\./);
    const both = await adminJson(t.dataDir, ['channel', 'instructions', 'show', 'ovo']);
    expect(Object.keys(both.instructions)).toEqual(['id', 'en']);
    expect(both.instructions.en[0].title).toBe('OVO app');
  }, 60_000);

  it('refuses what breaks the rules, naming every problem, exit 1, nothing written', async () => {
    const bad = file('bad.json', [{ key: 'atm', title: 'ATM', steps: ['<script>x</script>', 'Kode {{voucher}}', 'x'.repeat(301)] }]);
    const r = await admin(t.dataDir, ['channel', 'instructions', 'set', 'bca_va', '--locale', 'id', '--file', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('steps[0] holds markup');
    expect(r.stderr).toContain('unknown placeholder {{voucher}}');
    expect(r.stderr).toContain('steps[2] must be 1–300 characters');
    const tooMany = await admin(t.dataDir, ['channel', 'instructions', 'set', 'bca_va', '--locale', 'id', '--file', file('many.json', Array.from({ length: 9 }, (_, i) => ({ key: `k${i}`, title: 'T', steps: ['x'] })))]);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain('at most 8 sections');
    const badLocale = await admin(t.dataDir, ['channel', 'instructions', 'set', 'bca_va', '--locale', 'fr', '--file', file('ok.json', CORRECTED)]);
    expect(badLocale.code).toBe(1);
    expect(badLocale.stderr).toContain('--locale must be id or en');
    const notJson = await admin(t.dataDir, ['channel', 'instructions', 'set', 'bca_va', '--locale', 'id', '--file', file('x.json', '{ nope')]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('not UTF-8 JSON');
    const unknown = await admin(t.dataDir, ['channel', 'instructions', 'set', 'nope', '--locale', 'id', '--file', file('ok.json', CORRECTED)]);
    expect(unknown.code).toBe(1);
    const usage = await admin(t.dataDir, ['channel', 'instructions', 'set', 'bca_va', '--file', file('ok.json', CORRECTED)]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--locale is required');
    expect((await restSteps('/v1/payments/instruction?code=bca_va')).join('\n')).toContain('Pilih menu Transaksi Lainnya');
  }, 60_000);

  it('set is audited and live within 1 s on REST and on an open page that shows the instructions; a page without them gets no event', async () => {
    const session = (await (await t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', locale: 'id' }) })).json()) as { clientSecret: string };
    const headers = { authorization: `Bearer ${session.clientSecret}` };
    const withInstructions = await openEventStream('subscription { paymentChannelsChanged(filter: { codes: ["bca_va"] }) { code instructions { sections { key steps } } } }', { as: t.approved, fetch: t.streamFetch, headers });
    const without = await openEventStream('subscription { paymentChannelsChanged(filter: { codes: ["bca_va"] }) { code status } }', { as: t.approved, fetch: t.streamFetch, headers });
    await withInstructions.waitFor((s) => s.results().length === 1, 5000, 'first event');
    await without.waitFor((s) => s.results().length === 1, 5000, 'first event');
    expect(withInstructions.results()[0].data.paymentChannelsChanged[0].instructions.sections[0].steps.join('\n')).toContain('Rp 154.000');

    const before = (await restSteps('/v1/payments/instruction?code=bca_va&pay_code=77&amount=150000')).join('\n');
    expect(before).toContain('Pilih menu Transaksi Lainnya');
    const started = performance.now();
    const set = await admin(t.dataDir, ['channel', 'instructions', 'set', 'bca_va', '--locale', 'id', '--file', file('ok.json', CORRECTED), '--actor', 'ops-ani']);
    expect(set.code, set.stderr).toBe(0);
    await withInstructions.waitFor((s) => s.results().length === 2, 1000, 'the changed instructions within 1 s');
    const event = withInstructions.results()[1].data.paymentChannelsChanged[0].instructions.sections;
    expect(event).toEqual([{ key: 'atm', steps: ['Masukkan kartu ATM BCA dan PIN.', 'Pilih Transfer, lalu ke Rekening BCA Virtual Account.', 'Masukkan nomor {{pay_code}} dan bayar Rp 154.000.'] }]);
    expect(await restSteps('/v1/payments/instruction?code=bca_va&pay_code=77&amount=150000')).toEqual(CORRECTED[0]!.steps.map((s) => s.replace('{{pay_code}}', '77').replace('{{amount}}', 'Rp 150.000')));
    expect(performance.now() - started).toBeLessThan(15_000);
    // The English text is unchanged.
    expect((await restSteps('/v1/payments/instruction?code=bca_va&locale=en')).join('\n')).toContain('Choose Other Transactions');
    await new Promise((r) => setTimeout(r, 300));
    expect(without.results()).toHaveLength(1);
    await withInstructions.close();
    await without.close();

    const audit = await adminJson<{ action: string; actor: string; entity: string; before: any; after: any }[]>(t.dataDir, ['audit', 'list', '--entity', 'bca_va', '--limit', '1']);
    expect(audit[0]).toMatchObject({ action: 'channel.instructions.set', actor: 'ops-ani', entity: 'bca_va' });
    expect(audit[0]!.after).toEqual({ locale: 'id', sections: CORRECTED });
    expect(audit[0]!.before.sections[0].title).toBe('ATM BCA');
  }, 60_000);
});
