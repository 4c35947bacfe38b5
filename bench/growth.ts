/**
 * Data sets for the cost-growth runs: a bigger catalogue (enabled for the
 * approved demo merchant) and many merchants with one key each (enabled for
 * the demo channels). Written straight into a freshly seeded DATA_DIR, in one
 * transaction, before the server starts.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { generateKey } from '../src/modules/auth/keys.js';
import { loadOrCreateMasterKey, SecretBox } from '../src/modules/auth/secret-box.js';
import { DATABASE_FILE } from '../src/storage/index.js';
import Database from 'better-sqlite3';
import { DEMO_APPROVED_MERCHANT_ID } from '../src/modules/admin/demo-seed.js';

/** Credentials of a generated merchant (the bench signs with a sample of them). */
export interface GrowthCreds {
  merchantId: string;
  apiKey: string;
  apiSecret: string;
  kyc: string;
}

/**
 * Grow the catalogue to `channels` and the merchant count to `merchants`
 * (both including the demo rows). Returns up to `sample` of the new
 * merchants' credentials.
 */
export function seedGrowth(dataDir: string, size: { channels: number; merchants: number }, sample = 200): GrowthCreds[] {
  // Raw SQL on the seeded file, as an operator's bulk load would: the server is not running yet.
  const db = new Database(path.join(dataDir, DATABASE_FILE));
  const box = new SecretBox(loadOrCreateMasterKey(dataDir, null).key);
  const out: GrowthCreds[] = [];
  try {
    db.transaction(() => {
      const existingChannels = (db.prepare('select count(*) as n from channels').get() as { n: number }).n;
      const insChannel = db.prepare(
        `insert into channels (id, code, name, image_path, status, currency, fee_percentage, fee_value, min_amount, max_amount, fee_charged_to_customer, requires_kyc, sort_order)
         values (?, ?, ?, ?, 'active', 'IDR', ?, ?, '1000', '10000000', ?, 0, ?)`,
      );
      const enable = db.prepare('insert into merchant_channels (merchant_id, channel_id) values (?, ?)');
      for (let i = existingChannels; i < size.channels; i++) {
        const id = randomUUID();
        const code = `bench_ch_${i}`;
        insChannel.run(id, code, `Bench Channel ${i}`, `/images/channels/${code}.svg`, String((i % 30) / 10), String((i % 5) * 1000), i % 2, 1000 + i);
        enable.run(DEMO_APPROVED_MERCHANT_ID, id);
      }
      const demoChannelIds = (db.prepare("select id from channels where code not like 'bench_ch_%'").all() as { id: string }[]).map((r) => r.id);
      const existingMerchants = (db.prepare('select count(*) as n from merchants').get() as { n: number }).n;
      const insMerchant = db.prepare("insert into merchants (id, name, kyc_status) values (?, ?, 'approved')");
      const insKey = db.prepare("insert into api_keys (id, merchant_id, mode, secret_ciphertext) values (?, ?, 'test', ?)");
      const toAdd = size.merchants - existingMerchants;
      const every = Math.max(1, Math.floor(toAdd / sample));
      for (let i = 0; i < toAdd; i++) {
        const id = randomUUID();
        insMerchant.run(id, `Bench Merchant ${i}`);
        const key = generateKey('test');
        insKey.run(key.apiKey, id, box.encrypt(key.apiKey, key.apiSecret));
        for (const ch of demoChannelIds) enable.run(id, ch);
        if (i % every === 0 && out.length < sample) out.push({ merchantId: id, apiKey: key.apiKey, apiSecret: key.apiSecret, kyc: 'approved' });
      }
    })();
  } finally {
    db.close();
  }
  return out;
}
