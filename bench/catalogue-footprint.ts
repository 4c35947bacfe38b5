/**
 * `node --expose-gc --import tsx bench/catalogue-footprint.ts [N]`: the in-memory catalogue's heap per
 * merchant (contract §15), measured in one process without a server: N merchants with one key each, the 12
 * demo channels enabled, 5 % with a fee override and 5 % with a merchant fee rule, loaded in batches as the
 * stores load them; heap after a full GC, before and after. Prints JSON (bench/merchants.ts runs it).
 */
import { Catalog } from '../src/modules/catalogue/catalog.js';
import { DEMO_CHANNELS } from '../src/modules/admin/demo-seed.js';
import type { ChannelRow, MerchantChannelRow, MerchantRow } from '../src/storage/model/catalogue-rows.js';

const n = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const at = new Date().toISOString();
const channels: ChannelRow[] = DEMO_CHANNELS.map((c, i) => ({
  ...{ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, code: c.code, name: c.name, imagePath: `/images/channels/${c.code}.svg`, status: c.status, currency: 'IDR' },
  ...{ feePercentage: c.feePercentage, feeValue: c.feeValue, additionalFeePercentage: '0', additionalFeeValue: '0', minAmount: c.minAmount, maxAmount: c.maxAmount },
  ...{ feeChargedToCustomer: c.feeChargedToCustomer, requiresKyc: c.requiresKyc ?? false, sortOrder: i, createdAt: at, updatedAt: at, feeSetAt: at, channelGroup: c.group },
  ...{ nameId: null, nameEn: null, instructionsId: null, instructionsEn: null },
}));
const uuid = (i: number) => `${(0x10000000 + i).toString(16)}-0000-4000-8000-${String(i).padStart(12, '0')}`;

function measure(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const catalog = new Catalog();
const before = measure();
const load = catalog.beginLoad();
load.add({ currencies: [{ code: 'IDR', minorUnits: 0 }], channels, feeRules: [] });
for (let start = 0; start < n; start += 5000) {
  const merchants: MerchantRow[] = [];
  const enable: MerchantChannelRow[] = [];
  for (let i = start; i < Math.min(n, start + 5000); i++) {
    const id = uuid(i);
    merchants.push({ id, name: `Bench Merchant ${i}`, kycStatus: 'approved', createdAt: at, category: 'regular', channelOrder: null });
    for (const [j, c] of channels.entries()) {
      enable.push({ merchantId: id, channelId: c.id, feePercentage: i % 20 === 1 && j === 1 ? '1.1' : null, feeValue: null, additionalFeePercentage: null, additionalFeeValue: null, minAmount: null, maxAmount: null, feeChargedToCustomer: null, createdAt: at, feeSetAt: at });
    }
  }
  const rules = merchants
    .filter((_, k) => (start + k) % 20 === 2)
    .map((m) => ({ id: `r-${m.id}`, channelId: channels[0]!.id, scope: 'MERCHANT' as const, merchantId: m.id, category: null, bands: '[{"upTo":null,"percentage":"0.5","fixed":"0"}]', effectiveFrom: at, cancelledAt: null, createdAt: at, minFee: null, maxFee: null, taxPercentage: null, customerShare: null }));
  // A key's ciphertext is ~120 characters of base64url (AES-GCM of a 48-character secret, with its IV and tag).
  const apiKeys = merchants.map((m, k) => ({ id: `pk_test_${(start + k).toString(16).padStart(32, '0')}`, merchantId: m.id, mode: 'test' as const, secretCiphertext: `v1.${'A'.repeat(116)}${k}`, createdAt: at, revokedAt: null }));
  load.add({ merchants, apiKeys, merchantChannels: enable, feeRules: rules });
}
load.commit(1);
const after = measure();
// Derived lists: built on first use and bounded (CATALOGUE_LIST_CACHE_ENTRIES); a list of shared records costs its array.
for (let i = 0; i < Math.min(n, 10_000); i++) catalog.listForMerchant(uuid(i));
const withLists = measure();
console.log(JSON.stringify({ merchants: n, bytesPerMerchant: Math.round((after - before) / n), listBytes: Math.round((withLists - after) / Math.min(n, 10_000)), heapMb: Math.round(after / 2 ** 20) }));
catalog.close();
