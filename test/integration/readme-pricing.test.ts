/**
 * The README's "Pricing" worked examples, run in order against the service on
 * the demo data (engine per TEST_DB): each command through AdminService (as
 * the admin CLI runs it), then the documented fee from
 * `POST /v1/payments/calculate`. A number in the README that the service
 * does not compute fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/ops.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const table = /<!-- readme-test:pricing-examples -->\n([\s\S]*?)<!-- \/readme-test:pricing-examples -->/.exec(readme)?.[1] ?? '';
/** Data rows: [kind, command, merchant, amount, fee]. */
const rows = table
  .split('\n')
  .filter((l) => l.startsWith('|') && !l.startsWith('|---') && !l.startsWith('| Rule kind'))
  .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));

let t: TestApp;
let admin: AdminService;

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'readme' });
});
afterAll(() => t.close());

function merchant(label: string): DemoMerchantCredentials {
  const m = t.data.seeded!.find((x) => (label === 'micro' ? x.category === 'micro' : x.name === 'Toko Kopi Nusantara'));
  if (!m || !['micro', 'regular'].includes(label)) throw new Error(`README merchant ${label} is not a demo merchant`);
  return m;
}

/** Run one documented admin command in-process (the CLI's flags, mapped to the service call it makes). */
async function runCommand(command: string): Promise<void> {
  const micro = merchant('micro').merchantId;
  const fee = /^fee set (\S+)(?: --category (\S+))?(?: --merchant (\S+))? --bands "([^"]+)"(?: --max-fee (\S+))?(?: --effective-from (\S+))?$/.exec(command);
  if (fee) {
    await admin.setFee({ channel: fee[1]!, category: fee[2], merchantId: fee[3]?.replace('$MICRO', micro), bands: fee[4]!, maxFee: fee[5], effectiveFrom: fee[6] });
    return;
  }
  const update = /^channel update (\S+) --fee-percentage (\S+)$/.exec(command);
  if (update) {
    await admin.updateChannel(update[1]!, { feePercentage: update[2]! });
    return;
  }
  throw new Error(`README command not understood by this test: ${command}`);
}

describe('README Pricing worked examples', () => {
  it('the table is there and has an example of every rule kind', () => {
    expect(rows.length).toBeGreaterThanOrEqual(8);
    const kinds = rows.map((r) => r[0]).filter(Boolean);
    for (const k of ['channel default (flat)', 'channel default (banded)', 'category (demo)', 'merchant', 'flat setting', 'scheduled']) expect(kinds).toContain(k);
  });

  it('every documented fee is what the service computes, in order', async () => {
    expect(rows.length).toBeGreaterThan(0);
    let lastChannel = '';
    for (const [, cell, who, amount, fee] of rows) {
      const command = cell!.replace(/^`|`$/g, '');
      if (command !== '') {
        await runCommand(command);
        await t.sync();
        lastChannel = /^(?:fee set|channel update) (\S+)/.exec(command)![1]!;
      }
      const as = merchant(who!);
      const body = JSON.stringify({ amount: Number(amount), currency: 'IDR', method: lastChannel, merchantId: as.merchantId });
      const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body, as });
      const json = (await res.json()) as { fee: number };
      expect(res.status, `${command || '(same rule)'} → ${JSON.stringify(json)}`).toBe(200);
      expect(json.fee, `${lastChannel} ${amount} for ${who}`).toBe(Number(fee));
    }
  });
});
