/**
 * Demo data (contract §2c, §7): a realistic Indonesian catalogue in IDR,
 * three merchants with one test key each — KYC approved (`regular`), KYC
 * pending (`regular`), and a KYC-approved `micro` merchant whose QRIS price
 * comes from the banded `micro` category rule (free up to 500,000 IDR, 0.3 %
 * above) — and one scheduled change a few days ahead (the ShopeePay default
 * rate). Seeded only into an empty database, in one transaction, on either
 * engine.
 */
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../auth/secret-box.js';
import { generateKey } from '../auth/keys.js';
import type { AdminRepository } from '../../storage/model/admin-repository.js';
import { formatInstant, parseBands } from '../pricing/domain/pricing.js';
import { NO_FEE_SETTINGS, type FeeSettings } from '../pricing/domain/fee.js';
import type { ChannelGroupValue, ChannelStatusValue, KycStatus, Locale } from '../../shared/vocabulary.js';
import { parseInstructionSet, serialiseInstructionSet } from '../channels/domain/instructions.js';
import { DEMO_INSTRUCTIONS } from './demo-instructions.js';

/** One merchant's credentials as written to demo-credentials.json. */
export interface DemoMerchantCredentials {
  name: string;
  merchantId: string;
  apiKey: string;
  apiSecret: string;
  kyc: KycStatus;
  /** Pricing category (contract §7). */
  category: string;
}

/** The approved demo merchant uses the contract's sample merchantId, so the seed's sample body works as is. */
export const DEMO_APPROVED_MERCHANT_ID = '3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13';

/** Allowed web origins of the approved demo merchant (contract §9): the reference merchant integration's local page. */
export const DEMO_CHECKOUT_ORIGINS: readonly string[] = ['http://localhost:4100', 'http://127.0.0.1:4100'];

interface DemoChannel {
  code: string;
  name: string;
  status: ChannelStatusValue;
  feePercentage: string;
  feeValue: string;
  additionalFeePercentage?: string;
  additionalFeeValue?: string;
  minAmount: string;
  maxAmount: string;
  feeChargedToCustomer: boolean;
  requiresKyc?: boolean;
  /** Contract §12: the group an Indonesian shopper looks under. */
  group: ChannelGroupValue;
  /** Indonesian name when it is not `name` (proper nouns stay as they are). */
  nameId?: string;
}

/** The demo micro-merchant category rule on QRIS (contract §7 example), with a cap (contract §10): at most 5,000. */
export const DEMO_MICRO_QRIS_BANDS = '500000:0:0,*:0.3:0';
export const DEMO_MICRO_QRIS_MAX_FEE = '5000';

/** The demo micro merchant's own OVO rule (contract §10): the channel's 1.5 %, 11 % tax on it, the customer pays half. */
export const DEMO_MICRO_OVO = { channel: 'ovo', bands: '*:1.5:0', taxPercentage: '11', customerShare: '50' } as const;

/** The demo scheduled change: ShopeePay's default rate from {@link demoScheduledInstant}. */
export const DEMO_SCHEDULED = { channel: 'shopeepay', bands: '*:1.6:0' } as const;

/** Three days after `nowMs`, at 00:00 Jakarta time (UTC+7): when the demo's scheduled rule starts. */
export function demoScheduledInstant(nowMs: number): number {
  const jakarta = new Date(nowMs + 7 * 3_600_000);
  return Date.UTC(jakarta.getUTCFullYear(), jakarta.getUTCMonth(), jakarta.getUTCDate() + 3) - 7 * 3_600_000;
}

function demoInstructions(code: string, locale: Locale): string {
  const parsed = parseInstructionSet(DEMO_INSTRUCTIONS[code]?.[locale]);
  if (!parsed.ok) throw new Error(`demo instructions ${code} (${locale}): ${parsed.problems.join('; ')}`);
  return serialiseInstructionSet(parsed.value);
}

function demoBands(text: string) {
  const parsed = parseBands(text, 0);
  if (!parsed.ok) throw new Error(`demo bands ${text}: ${parsed.problems.join('; ')}`);
  return JSON.stringify(parsed.value);
}

/** The demo catalogue, in display order. */
export const DEMO_CHANNELS: DemoChannel[] = [
  { code: 'qris', name: 'QRIS', group: 'qris', status: 'active', feePercentage: '0.7', feeValue: '0', minAmount: '1000', maxAmount: '10000000', feeChargedToCustomer: true, requiresKyc: true },
  { code: 'bca_va', name: 'BCA Virtual Account', group: 'virtual_account', status: 'active', feePercentage: '0', feeValue: '4000', minAmount: '10000', maxAmount: '50000000', feeChargedToCustomer: true },
  { code: 'bni_va', name: 'BNI Virtual Account', group: 'virtual_account', status: 'active', feePercentage: '0', feeValue: '4000', minAmount: '10000', maxAmount: '50000000', feeChargedToCustomer: false },
  { code: 'bri_va', name: 'BRI Virtual Account', group: 'virtual_account', status: 'active', feePercentage: '0', feeValue: '4000', minAmount: '10000', maxAmount: '50000000', feeChargedToCustomer: true },
  { code: 'mandiri_va', name: 'Mandiri Virtual Account', group: 'virtual_account', status: 'maintenance', feePercentage: '0', feeValue: '4000', minAmount: '10000', maxAmount: '50000000', feeChargedToCustomer: true },
  { code: 'permata_va', name: 'Permata Virtual Account', group: 'virtual_account', status: 'offline', feePercentage: '0', feeValue: '4000', minAmount: '10000', maxAmount: '50000000', feeChargedToCustomer: true },
  { code: 'ovo', name: 'OVO', group: 'ewallet', status: 'active', feePercentage: '1.5', feeValue: '0', minAmount: '10000', maxAmount: '2000000', feeChargedToCustomer: false },
  { code: 'dana', name: 'DANA', group: 'ewallet', status: 'active', feePercentage: '1.5', feeValue: '0', minAmount: '1000', maxAmount: '2000000', feeChargedToCustomer: false },
  { code: 'shopeepay', name: 'ShopeePay', group: 'ewallet', status: 'active', feePercentage: '1.8', feeValue: '0', minAmount: '1000', maxAmount: '2000000', feeChargedToCustomer: true },
  { code: 'alfamart', name: 'Alfamart', group: 'retail_outlet', status: 'active', feePercentage: '0', feeValue: '5000', minAmount: '10000', maxAmount: '5000000', feeChargedToCustomer: true },
  { code: 'indomaret', name: 'Indomaret', group: 'retail_outlet', status: 'active', feePercentage: '0', feeValue: '5000', minAmount: '10000', maxAmount: '5000000', feeChargedToCustomer: true },
  {
    code: 'credit_card', name: 'Credit Card', group: 'card', nameId: 'Kartu Kredit', status: 'active', feePercentage: '2.9', feeValue: '2000',
    additionalFeePercentage: '0', additionalFeeValue: '1000', minAmount: '10000', maxAmount: '100000000', feeChargedToCustomer: true,
  },
];

/**
 * Seed the demo data in one transaction (through the engine's
 * {@link AdminRepository}, so SQLite and Postgres get the same rows) and
 * return the plaintext credentials (the only time they exist outside the
 * database's ciphertext). Call only on an empty database ({@link AdminRepository.isEmpty}).
 */
export async function seedDemoData(repo: AdminRepository, box: SecretBox): Promise<DemoMerchantCredentials[]> {
  const demoMerchants: { id: string; name: string; kyc: KycStatus; category: string }[] = [
    { id: DEMO_APPROVED_MERCHANT_ID, name: 'Toko Kopi Nusantara', kyc: 'approved', category: 'regular' },
    { id: randomUUID(), name: 'Warung Digital Sejahtera', kyc: 'pending', category: 'regular' },
    { id: randomUUID(), name: 'Warung Mikro Berkah', kyc: 'approved', category: 'micro' },
  ];
  const now = Date.now();
  return repo.transaction(async (tx) => {
    const credentials: DemoMerchantCredentials[] = [];
    for (const c of [{ code: 'IDR', minorUnits: 0 }, { code: 'USD', minorUnits: 2 }]) await tx.upsertCurrency(c);
    const channelIds = new Map<string, string>();
    for (const [i, c] of DEMO_CHANNELS.entries()) {
      const id = randomUUID();
      channelIds.set(c.code, id);
      await tx.insertChannel({
        id,
        code: c.code,
        name: c.name,
        imagePath: `/images/channels/${c.code}.svg`,
        status: c.status,
        currency: 'IDR',
        feePercentage: c.feePercentage,
        feeValue: c.feeValue,
        additionalFeePercentage: c.additionalFeePercentage ?? '0',
        additionalFeeValue: c.additionalFeeValue ?? '0',
        minAmount: c.minAmount,
        maxAmount: c.maxAmount,
        feeChargedToCustomer: c.feeChargedToCustomer,
        requiresKyc: c.requiresKyc ?? false,
        sortOrder: (i + 1) * 10,
        channelGroup: c.group,
        nameId: c.nameId ?? c.name,
        nameEn: c.name,
        // Contract §14: validated like an operator's file (a demo text that breaks a rule fails the seed).
        instructionsId: demoInstructions(c.code, 'id'),
        instructionsEn: demoInstructions(c.code, 'en'),
        // The flat fee's implicit rule is in force from the seed, like the seeded rules (`fee list` shows it).
        feeSetAt: formatInstant(now),
      });
    }
    for (const m of demoMerchants) {
      await tx.insertMerchant({ id: m.id, name: m.name, kycStatus: m.kyc, category: m.category });
      const key = generateKey('test');
      await tx.insertKey({ id: key.apiKey, merchantId: m.id, mode: 'test', secretCiphertext: box.encrypt(key.apiKey, key.apiSecret) });
      for (const [code, channelId] of channelIds) {
        // One per-merchant override in the demo: a negotiated OVO rate for the second merchant.
        const override = m.kyc === 'pending' && code === 'ovo' ? { feePercentage: '1.2', feeSetAt: formatInstant(now) } : {};
        await tx.upsertEnablement(m.id, channelId, override);
      }
      credentials.push({ name: m.name, merchantId: m.id, apiKey: key.apiKey, apiSecret: key.apiSecret, kyc: m.kyc, category: m.category });
    }
    const rule = (channel: string, bands: string, from: number, target: { category?: string; merchantId?: string }, settings: Partial<FeeSettings> = {}) => ({
      id: randomUUID(),
      channelId: channelIds.get(channel)!,
      scope: target.merchantId !== undefined ? ('MERCHANT' as const) : target.category !== undefined ? ('CATEGORY' as const) : ('CHANNEL' as const),
      merchantId: target.merchantId ?? null,
      category: target.category ?? null,
      bands: demoBands(bands),
      effectiveFrom: formatInstant(from),
      cancelledAt: null,
      createdAt: formatInstant(now),
      ...NO_FEE_SETTINGS,
      ...settings,
    });
    for (const origin of DEMO_CHECKOUT_ORIGINS) await tx.addOrigin(DEMO_APPROVED_MERCHANT_ID, origin);
    const micro = demoMerchants.find((m) => m.category === 'micro')!;
    await tx.insertFeeRule(rule('qris', DEMO_MICRO_QRIS_BANDS, now, { category: 'micro' }, { maxFee: DEMO_MICRO_QRIS_MAX_FEE }));
    await tx.insertFeeRule(
      rule(DEMO_MICRO_OVO.channel, DEMO_MICRO_OVO.bands, now, { merchantId: micro.id }, { taxPercentage: DEMO_MICRO_OVO.taxPercentage, customerShare: DEMO_MICRO_OVO.customerShare }),
    );
    await tx.insertFeeRule(rule(DEMO_SCHEDULED.channel, DEMO_SCHEDULED.bands, demoScheduledInstant(now), {}));
    return credentials;
  });
}
