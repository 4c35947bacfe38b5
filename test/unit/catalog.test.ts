/**
 * The in-memory catalogue (src/modules/catalogue/catalog.ts): effective channel lists with
 * overrides, key lookups, and targeted invalidation — a change rebuilds what
 * it affects and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/modules/catalogue/catalog.js';
import type { CatalogRows, ChannelRow, MerchantChannelRow } from '../../src/storage/model/catalogue-rows.js';

const at = '2026-01-01T00:00:00.000Z';

function channel(id: string, code: string, sortOrder: number, extra: Partial<ChannelRow> = {}): ChannelRow {
  return {
    id,
    code,
    name: code.toUpperCase(),
    imagePath: `/images/channels/${code}.svg`,
    status: 'active',
    currency: 'IDR',
    feePercentage: '0.7',
    feeValue: '0',
    additionalFeePercentage: '0',
    additionalFeeValue: '0',
    minAmount: '1000',
    maxAmount: '10000000',
    feeChargedToCustomer: true,
    requiresKyc: false,
    sortOrder,
    createdAt: at,
    updatedAt: at,
    feeSetAt: at,
    channelGroup: code === 'qris' ? 'qris' : code.endsWith('_va') ? 'virtual_account' : 'ewallet',
    nameId: null,
    nameEn: null,
    instructionsId: null,
    instructionsEn: null,
    ...extra,
  };
}

function enablement(merchantId: string, channelId: string, extra: Partial<MerchantChannelRow> = {}): MerchantChannelRow {
  return {
    merchantId,
    channelId,
    feePercentage: null,
    feeValue: null,
    additionalFeePercentage: null,
    additionalFeeValue: null,
    minAmount: null,
    maxAmount: null,
    feeChargedToCustomer: null,
    createdAt: at,
    feeSetAt: at,
    ...extra,
  };
}

function rows(): CatalogRows {
  return {
    currencies: [{ code: 'IDR', minorUnits: 0 }],
    merchantOrigins: [{ merchantId: 'm1', origin: 'https://shop.example', createdAt: at }],
    merchants: [
      { id: 'm1', name: 'One', kycStatus: 'approved', createdAt: at, category: 'regular', channelOrder: null },
      { id: 'm2', name: 'Two', kycStatus: 'pending', createdAt: at, category: 'regular', channelOrder: null },
    ],
    apiKeys: [
      { id: 'pk_test_1', merchantId: 'm1', mode: 'test', secretCiphertext: 'c1', createdAt: at, revokedAt: null },
      { id: 'pk_test_2', merchantId: 'm2', mode: 'test', secretCiphertext: 'c2', createdAt: at, revokedAt: null },
    ],
    // Inserted out of display order on purpose.
    channels: [channel('c-ovo', 'ovo', 20), channel('c-qris', 'qris', 10, { requiresKyc: true }), channel('c-bca', 'bca_va', 30)],
    merchantChannels: [
      enablement('m1', 'c-ovo'),
      enablement('m1', 'c-qris'),
      enablement('m2', 'c-ovo', { feePercentage: '1.2' }),
      enablement('m2', 'c-bca'),
    ],
    feeRules: [],
  };
}

function loaded(): Catalog {
  const c = new Catalog();
  c.replaceAll(rows(), 7);
  return c;
}

describe('catalogue reads', () => {
  it('lists a merchant’s enabled channels in display order with its overrides applied', () => {
    const c = loaded();
    expect(c.listForMerchant('m1').map((r) => r.code)).toEqual(['qris', 'ovo']);
    expect(c.listForMerchant('m2').map((r) => [r.code, r.feeInfo.feePercentage])).toEqual([
      ['ovo', '1.2'],
      ['bca_va', '0.7'],
    ]);
    expect(c.listForMerchant('nobody')).toEqual([]);
    expect(c.findForMerchant('m2', 'qris')).toBeUndefined();
    expect(c.findForMerchant('m1', 'qris')?.requiresKyc).toBe(true);
    expect(c.nameByCode('bca_va')).toBe('BCA_VA');
    expect(c.lastSeq).toBe(7);
  });

  it('finds active keys only, with the merchant’s KYC', () => {
    const c = loaded();
    const { merchantStamp, ...key } = c.findActiveKey('pk_test_2')!;
    expect(key).toEqual({ keyId: 'pk_test_2', mode: 'test', secretCiphertext: 'c2', merchantId: 'm2', merchantKyc: 'pending' });
    expect(merchantStamp.superseded).toBeUndefined();
    const r = rows();
    r.apiKeys[0]!.revokedAt = at;
    c.replaceAll(r, 8);
    expect(c.findActiveKey('pk_test_1')).toBeUndefined();
    expect(c.findActiveKey('pk_unknown')).toBeUndefined();
  });
});

describe('targeted invalidation', () => {
  it('a merchant change rebuilds that merchant’s list and version only', () => {
    const c = loaded();
    const m1List = c.listForMerchant('m1');
    const m2List = c.listForMerchant('m2');
    const [v1, v2, global] = [c.merchantVersion('m1'), c.merchantVersion('m2'), c.version];
    c.apply(
      {
        merchants: new Map([['m2', { merchant: rows().merchants[1]!, keys: rows().apiKeys.slice(1), enablements: [enablement('m2', 'c-bca')], origins: [] }]]),
        channels: new Map(),
        currencies: new Map(),
      },
      9,
    );
    expect(c.version).not.toBe(global);
    expect(c.merchantVersion('m2')).not.toBe(v2);
    expect(c.merchantVersion('m1')).toBe(v1);
    expect(c.listForMerchant('m1')).toBe(m1List); // same array: not rebuilt
    expect(c.listForMerchant('m2')).not.toBe(m2List);
    expect(c.listForMerchant('m2').map((r) => r.code)).toEqual(['bca_va']);
    expect(c.lastSeq).toBe(9);
  });

  it('a channel change reaches exactly the merchants that enable it', () => {
    const c = loaded();
    const [v1, v2] = [c.merchantVersion('m1'), c.merchantVersion('m2')];
    c.apply({ merchants: new Map(), channels: new Map([['c-bca', { channel: channel('c-bca', 'bca_va', 30, { status: 'maintenance' }), feeRules: [] }]]), currencies: new Map() }, 10);
    expect(c.merchantVersion('m1')).toBe(v1);
    expect(c.merchantVersion('m2')).not.toBe(v2);
    expect(c.findForMerchant('m2', 'bca_va')?.status).toBe('maintenance');
  });

  it("knows each merchant's allowed origins, replaced with the merchant's rows (contract §9)", () => {
    const c = loaded();
    expect(c.originAllowed('m1', 'https://shop.example')).toBe(true);
    expect(c.originAllowed('m2', 'https://shop.example')).toBe(false);
    expect(c.isKnownOrigin('https://shop.example')).toBe(true);
    expect(c.isKnownOrigin('https://evil.example')).toBe(false);
    const m1 = rows().merchants[0]!;
    c.apply({ merchants: new Map([['m1', { merchant: m1, keys: rows().apiKeys.slice(0, 1), enablements: [], origins: [{ merchantId: 'm1', origin: 'http://localhost:4100', createdAt: at }] }]]), channels: new Map(), currencies: new Map() }, 12);
    expect(c.originAllowed('m1', 'https://shop.example')).toBe(false);
    expect(c.originAllowed('m1', 'http://localhost:4100')).toBe(true);
  });

  it('a deleted merchant loses its keys and lists; a renamed channel code is found by its new code only', () => {
    const c = loaded();
    c.apply({ merchants: new Map([['m1', { merchant: undefined, keys: [], enablements: [], origins: [] }]]), channels: new Map(), currencies: new Map() }, 11);
    expect(c.findActiveKey('pk_test_1')).toBeUndefined();
    expect(c.listForMerchant('m1')).toEqual([]);
    c.apply({ merchants: new Map(), channels: new Map([['c-ovo', { channel: channel('c-ovo', 'ovo_wallet', 20), feeRules: [] }]]), currencies: new Map() }, 12);
    expect(c.nameByCode('ovo')).toBeUndefined();
    expect(c.findForMerchant('m2', 'ovo_wallet')?.feeInfo.feePercentage).toBe('1.2');
  });

  it('a currency change reaches the merchants of its channels', () => {
    const c = loaded();
    const v2 = c.merchantVersion('m2');
    c.apply({ merchants: new Map(), channels: new Map(), currencies: new Map([['IDR', { code: 'IDR', minorUnits: 2 }]]) }, 13);
    expect(c.merchantVersion('m2')).not.toBe(v2);
    expect(c.listForMerchant('m2')[0]!.minorUnits).toBe(2);
  });
});
