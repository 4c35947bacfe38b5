/**
 * The in-memory catalogue at scale (contract §15), counted rather than timed: a change's work is the number of
 * entities it names (`counters.work`), never the number of merchants loaded; a fee dated "now" arms no
 * transition; a full load is built beside the live catalogue and swapped in; merchants without overrides
 * share one enablement list; the derived-list cache keeps its bound.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Catalog, SETTLE_STEP } from '../../src/modules/catalogue/catalog.js';
import type { CatalogRows, ChangedEntities, ChannelRow, FeeRuleRow, MerchantChannelRow, MerchantRow } from '../../src/storage/model/catalogue-rows.js';
import { assembleChanged, behindHorizon, chunked } from '../../src/storage/model/catalogue-rows.js';

const at = '2026-01-01T00:00:00.000Z';

function channel(id: string, code: string, sortOrder: number, extra: Partial<ChannelRow> = {}): ChannelRow {
  return {
    ...{ id, code, name: code, imagePath: `/images/channels/${code}.svg`, status: 'active', currency: 'IDR', feePercentage: '0.7', feeValue: '0' },
    ...{ additionalFeePercentage: '0', additionalFeeValue: '0', minAmount: '1000', maxAmount: '10000000', feeChargedToCustomer: true, requiresKyc: false },
    ...{ sortOrder, createdAt: at, updatedAt: at, feeSetAt: at, channelGroup: 'ewallet', nameId: null, nameEn: null, instructionsId: null, instructionsEn: null },
    ...extra,
  };
}

const enablement = (merchantId: string, channelId: string, extra: Partial<MerchantChannelRow> = {}): MerchantChannelRow => ({
  ...{ merchantId, channelId, feePercentage: null, feeValue: null, additionalFeePercentage: null, additionalFeeValue: null },
  ...{ minAmount: null, maxAmount: null, feeChargedToCustomer: null, createdAt: at, feeSetAt: at },
  ...extra,
});

const merchant = (id: string, extra: Partial<MerchantRow> = {}): MerchantRow => ({ id, name: id, kycStatus: 'approved', createdAt: at, category: 'regular', channelOrder: null, ...extra });

const merchantRule = (merchantId: string, channelId: string, percentage: string, effectiveFrom = at): FeeRuleRow => ({
  ...{ id: `r-${merchantId}-${channelId}-${effectiveFrom}`, channelId, scope: 'MERCHANT', merchantId, category: null },
  ...{ bands: JSON.stringify([{ upTo: null, percentage, fixed: '0' }]), effectiveFrom, cancelledAt: null, createdAt: at },
  ...{ minFee: null, maxFee: null, taxPercentage: null, customerShare: null },
});

const CHANNELS = [channel('c-a', 'a_pay', 10), channel('c-b', 'b_pay', 20), channel('c-c', 'c_pay', 30)];

function rows(n: number): CatalogRows {
  const merchants = Array.from({ length: n }, (_, i) => merchant(`m${i}`));
  return {
    currencies: [{ code: 'IDR', minorUnits: 0 }],
    channels: CHANNELS,
    merchants,
    apiKeys: merchants.map((m) => ({ id: `pk_test_${m.id}`, merchantId: m.id, mode: 'test' as const, secretCiphertext: 'c', createdAt: at, revokedAt: null })),
    merchantChannels: merchants.flatMap((m) => CHANNELS.map((c) => enablement(m.id, c.id))),
    merchantOrigins: [],
    feeRules: [],
  };
}

function changedMerchants(ids: string[], extra: (id: string) => Partial<ChangedEntities['merchants'] extends Map<string, infer E> ? E : never> = () => ({})): ChangedEntities {
  return {
    merchants: new Map(ids.map((id) => [id, { merchant: merchant(id, { kycStatus: 'rejected' }), keys: [], enablements: CHANNELS.map((c) => enablement(id, c.id)), origins: [], ...extra(id) }])),
    channels: new Map(),
    currencies: new Map(),
  };
}

describe('a change costs what it touches', () => {
  it('k merchants changed: k units of work, whatever the number loaded', () => {
    for (const n of [100, 5_000]) {
      const c = new Catalog();
      c.replaceAll(rows(n), 1);
      const before = c.counters.work;
      c.apply(changedMerchants(['m1', 'm2', 'm3']), 2);
      expect(c.counters.work - before).toBe(3);
      expect(c.kycOf('m2')).toBe('rejected');
      expect(c.kycOf('m4')).toBe('approved');
      c.close();
    }
  });

  it('a channel change for everyone: one unit of work, and every merchant enabling it sees a new version', () => {
    const c = new Catalog();
    c.replaceAll(rows(2_000), 1);
    const versions = ['m0', 'm1999'].map((m) => c.merchantVersion(m));
    const before = c.counters.work;
    c.apply({ merchants: new Map(), channels: new Map([['c-b', { channel: channel('c-b', 'b_pay', 20, { feePercentage: '1.9' }), feeRules: [] }]]), currencies: new Map() }, 2);
    expect(c.counters.work - before).toBe(1);
    expect(['m0', 'm1999'].map((m) => c.merchantVersion(m))).not.toEqual(versions);
    expect(c.listForMerchant('m1999').find((r) => r.code === 'b_pay')?.feeInfo.feePercentage).toBe('1.9');
    c.close();
  });

  it('an override dated "now" arms no transition (nothing left to announce), a future one arms exactly one', () => {
    let now = Date.parse('2026-06-01T00:00:00.000Z');
    const c = new Catalog({ now: () => now });
    c.replaceAll(rows(1_000), 1);
    expect(c.nextTransitionAt).toBeNull();
    const dated = (feeSetAt: string) => changedMerchants(['m7'], (id) => ({ enablements: [enablement(id, 'c-a', { feePercentage: '2.5', feeSetAt })] }));
    c.apply(dated(new Date(now).toISOString()), 2);
    expect(c.nextTransitionAt).toBeNull();
    expect(c.listForMerchant('m7')[0]!.feeInfo.feePercentage).toBe('2.5');
    const later = now + 60_000;
    c.apply(dated(new Date(later).toISOString()), 3);
    expect(c.nextTransitionAt).toBe(later);
    // Replaced before it started: the merchant's pending instant goes with its old rows.
    c.apply(dated(new Date(now).toISOString()), 4);
    expect(c.nextTransitionAt).toBeNull();
    now += 1;
    c.close();
  });

  it("a merchant's own rule is that merchant's: its price only, its version only", () => {
    const c = new Catalog();
    c.replaceAll(rows(50), 1);
    const v9 = c.merchantVersion('m9');
    const before = c.counters.work;
    c.apply(changedMerchants(['m8'], (id) => ({ merchant: merchant(id), feeRules: [merchantRule(id, 'c-a', '0.1')] })), 2);
    expect(c.counters.work - before).toBe(1);
    expect(c.listForMerchant('m8').find((r) => r.code === 'a_pay')?.feeInfo.feePercentage).toBe('0.1');
    expect(c.listForMerchant('m9').find((r) => r.code === 'a_pay')?.feeInfo.feePercentage).toBe('0.7');
    expect(c.merchantVersion('m9')).toBe(v9);
    c.close();
  });
});

/** The stamp the caches keep a merchant's entries under (its key's, as authentication hands it out). */
const stampOf = (c: Catalog, merchantId: string) => c.findActiveKey(`pk_test_${merchantId}`)!.merchantStamp;
const keysOf = (merchantId: string) => ({ keys: [{ id: `pk_test_${merchantId}`, merchantId, mode: 'test' as const, secretCiphertext: 'c', createdAt: at, revokedAt: null }] });

describe("the caches' tokens: one merchant's change supersedes that merchant's stamp, anything else the shared version", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a change to merchants supersedes exactly their stamps (keys, KYC, overrides, deletion), never the shared version", () => {
    const c = new Catalog();
    c.replaceAll(rows(100), 1);
    const shared = c.sharedVersion;
    const [s1, s2, s3, s50] = ['m1', 'm2', 'm3', 'm50'].map((m) => stampOf(c, m));
    // m1: KYC; m2: an override; m3: deleted.
    c.apply(changedMerchants(['m1'], keysOf), 2);
    c.apply(changedMerchants(['m2'], (id) => ({ ...keysOf(id), merchant: merchant(id), enablements: [enablement(id, 'c-a', { feePercentage: '2.5' })] })), 3);
    c.apply({ merchants: new Map([['m3', { merchant: undefined, keys: [], enablements: [], origins: [] }]]), channels: new Map(), currencies: new Map() }, 4);
    expect([s1, s2, s3].map((s) => s!.superseded)).toEqual([true, true, true]);
    expect(s50!.superseded).toBeUndefined();
    expect(c.sharedVersion).toBe(shared);
    // A changed merchant's key carries its new, current stamp; a revoked key is no longer found at all.
    expect(stampOf(c, 'm1').superseded).toBeUndefined();
    c.apply(changedMerchants(['m1'], () => ({ keys: [] })), 5);
    expect(c.findActiveKey('pk_test_m1')).toBeUndefined();
    c.close();
  });

  it('a channel, a currency, a quote key and a full load move the shared version', () => {
    const c = new Catalog();
    c.replaceAll(rows(10), 1);
    const steps: [string, () => void][] = [
      ['channel', () => c.apply({ merchants: new Map(), channels: new Map([['c-b', { channel: channel('c-b', 'b_pay', 20, { feePercentage: '1.9' }), feeRules: [] }]]), currencies: new Map() }, 2)],
      ['currency', () => c.apply({ merchants: new Map(), channels: new Map(), currencies: new Map([['USD', { code: 'USD', minorUnits: 2 }]]) }, 3)],
      ['quote key', () => c.apply({ merchants: new Map(), channels: new Map(), currencies: new Map(), quoteKeys: [] }, 4)],
      ['full load', () => c.replaceAll(rows(10), 5)],
    ];
    for (const [what, step] of steps) {
      const before = c.sharedVersion;
      step();
      expect(c.sharedVersion, what).not.toBe(before);
    }
    c.close();
  });

  it("a merchant's own scheduled rule taking effect supersedes that merchant's stamp; a channel's moves the shared version", () => {
    vi.useFakeTimers({ now: Date.parse('2026-06-01T00:00:00.000Z') });
    const c = new Catalog();
    c.replaceAll(rows(20), 1);
    const soon = new Date(Date.now() + 60_000).toISOString();
    c.apply(changedMerchants(['m4'], (id) => ({ ...keysOf(id), merchant: merchant(id), feeRules: [merchantRule(id, 'c-a', '0.1', soon)] })), 2);
    const [s4, s5, shared] = [stampOf(c, 'm4'), stampOf(c, 'm5'), c.sharedVersion];
    vi.advanceTimersByTime(60_000);
    expect(s4.superseded).toBe(true);
    expect(s5.superseded).toBeUndefined();
    expect(c.sharedVersion).toBe(shared);
    expect(c.listForMerchant('m4').find((r) => r.code === 'a_pay')?.feeInfo.feePercentage).toBe('0.1');
    // A channel rule for everyone, later.
    const later = new Date(Date.now() + 60_000).toISOString();
    const channelRule: FeeRuleRow = { ...merchantRule('', 'c-b', '0.2', later), scope: 'CHANNEL', merchantId: null };
    c.apply({ merchants: new Map(), channels: new Map([['c-b', { channel: CHANNELS[1]!, feeRules: [channelRule] }]]), currencies: new Map() }, 3);
    const [s6, afterApply] = [stampOf(c, 'm6'), c.sharedVersion];
    vi.advanceTimersByTime(60_000);
    expect(c.sharedVersion).not.toBe(afterApply);
    expect(s6.superseded).toBeUndefined();
    expect(c.listForMerchant('m6').find((r) => r.code === 'b_pay')?.feeInfo.feePercentage).toBe('0.2');
    c.close();
  });
});

describe('full loads and memory', () => {
  it('a load in batches is invisible until committed, then swapped in whole', () => {
    const c = new Catalog();
    c.replaceAll(rows(10), 5);
    const all = rows(30);
    const load = c.beginLoad();
    load.add({ currencies: all.currencies, channels: all.channels, feeRules: [] });
    for (const part of chunked(all.merchants, 7)) load.add({ merchants: part });
    load.add({ apiKeys: all.apiKeys });
    for (const part of chunked(all.merchantChannels, 11)) load.add({ merchantChannels: part });
    expect(c.kycOf('m29')).toBeUndefined(); // still the live catalogue
    expect(c.lastSeq).toBe(5);
    load.commit(9);
    expect(c.kycOf('m29')).toBe('approved');
    expect(c.listForMerchant('m29').map((r) => r.code)).toEqual(['a_pay', 'b_pay', 'c_pay']);
    expect(c.lastSeq).toBe(9);
    expect(c.counters.reloads).toBe(2);
    expect(() => load.commit(10)).toThrow(/already committed/);
    c.close();
  });

  it('a load settles in steps of SETTLE_STEP merchants (a reload yields between them), and the swap looks at no merchant', () => {
    let now = Date.parse('2026-06-01T00:00:00.000Z');
    const c = new Catalog({ now: () => now });
    c.replaceAll(rows(10), 1);
    const all = rows(2 * SETTLE_STEP + 1);
    // One merchant's override takes effect later: its instant is found while settling, armed at the swap.
    all.merchantChannels[0] = enablement('m0', 'c-a', { feePercentage: '2.5', feeSetAt: new Date(now + 60_000).toISOString() });
    const load = c.beginLoad();
    load.add(all);
    let steps = 0;
    for (const settling = load.settle(); !settling.next().done; ) steps += 1;
    expect(steps).toBe(2);
    expect(c.kycOf('m10')).toBeUndefined(); // settled, not committed: still the live catalogue
    expect(() => load.add({ merchants: [merchant('late')] })).toThrow(/settled/);
    now += 1;
    load.commit(2);
    expect(c.kycOf(`m${2 * SETTLE_STEP}`)).toBe('approved');
    expect(c.nextTransitionAt).toBe(now - 1 + 60_000);
    c.close();
  });

  it('the derived-list cache keeps its bound past it (the oldest go first)', () => {
    const c = new Catalog({ listCacheEntries: 100 });
    c.replaceAll(rows(1_000), 1);
    for (let i = 0; i < 1_000; i += 1) c.listForMerchant(`m${i}`);
    expect(c.cachedLists).toBe(100);
    expect(c.listForMerchant('m3').map((r) => r.code)).toEqual(['a_pay', 'b_pay', 'c_pay']);
    c.close();
  });
});

describe('storage helpers', () => {
  it('assembles changed rows by id in one pass; an id without a row is a deletion', () => {
    const ids = { merchant: ['a', 'b'], channel: ['c-a', 'gone'], currency: [], quote_key: [] };
    const out = assembleChanged(ids, {
      merchants: [merchant('a')],
      apiKeys: [{ id: 'k', merchantId: 'a', mode: 'test', secretCiphertext: 'c', createdAt: at, revokedAt: null }],
      merchantChannels: [enablement('a', 'c-a'), enablement('b', 'c-a')],
      merchantOrigins: [],
      merchantFeeRules: [merchantRule('b', 'c-a', '0.2')],
      channels: [CHANNELS[0]!],
      feeRules: [],
      currencies: [],
      quoteKeys: [],
    });
    expect(out.merchants.get('a')?.keys.map((k) => k.id)).toEqual(['k']);
    expect(out.merchants.get('b')?.merchant).toBeUndefined();
    expect(out.merchants.get('b')?.feeRules?.length).toBe(1);
    expect(out.channels.get('gone')?.channel).toBeUndefined();
  });

  it('chunks ids under any engine bound, and tells a replica behind the pruned horizon', () => {
    expect(chunked(Array.from({ length: 25_001 }, (_, i) => i), 10_000).map((c) => c.length)).toEqual([10_000, 10_000, 5_001]);
    expect(chunked([])).toEqual([]);
    expect(behindHorizon(10, 11, () => ({ lastSeq: 20, firstSeq: 11 }))).toBe(false); // the next row: nothing missed
    expect(behindHorizon(10, 15, () => ({ lastSeq: 20, firstSeq: 3 }))).toBe(false); // a gap, never pruned
    expect(behindHorizon(10, 15, () => ({ lastSeq: 20, firstSeq: 15 }))).toBe(true); // rows 11–14 may have been pruned
  });
});
