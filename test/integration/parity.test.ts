/**
 * Parity (contract §2b): `paymentChannels` and REST list the same channels
 * with the same values; `calculateFee` and REST compute the same result or
 * fail with the same code, for any input.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';
import { Big, scaleOf } from '../../src/shared/money.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const LIST = '{ paymentChannels { id name code imageUrl status group isFeeChargedToCustomer feeInfo { feePercentage feeValue minTransactions maxTransactions } feeRule { minFee maxFee taxPercentage customerShare } } }';
const CALC = 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { amount fee additionalFee totalAmount getBalance currency feeTax customerFee merchantFee } }';

describe('channel list parity', () => {
  it.each(['approved', 'pending'] as const)('REST and GraphQL list the same channels for the %s merchant', async (who) => {
    const as = t[who];
    const rest = (await (await t.signedFetch('/v1/payments/channel', { as })).json()) as { status: number; data: Record<string, unknown>[] };
    const graph = (await (await gql(t, LIST, undefined, as)).json()) as { data: { paymentChannels: Record<string, any>[] } };
    expect(rest.status).toBe(200);
    const fromGraph = graph.data.paymentChannels.map((c) => ({
      id: c.id,
      name: c.name,
      code: c.code,
      image_url: c.imageUrl,
      status: String(c.status).toLowerCase(),
      group: String(c.group).toLowerCase(),
      is_fee_charged_to_customer: c.isFeeChargedToCustomer,
      fee_info: {
        fee_percentage: c.feeInfo.feePercentage,
        fee_value: c.feeInfo.feeValue,
        min_transactions: c.feeInfo.minTransactions,
        max_transactions: c.feeInfo.maxTransactions,
        minimum_fee: c.feeRule.minFee,
        maximum_fee: c.feeRule.maxFee,
        tax_percentage: c.feeRule.taxPercentage ?? 0,
        customer_share: c.feeRule.customerShare ?? (c.isFeeChargedToCustomer ? 100 : 0),
      },
    }));
    expect(rest.data.map(({ currency: _c, ...seedFields }) => seedFields)).toEqual(fromGraph);
  });

  it('has the seed shape exactly: field names, types, lower-case statuses, relative image paths', async () => {
    const rest = (await (await t.signedFetch('/v1/payments/channel')).json()) as { data: Record<string, any>[] };
    expect(rest.data.length).toBe(DEMO_CHANNELS.length);
    for (const c of rest.data) {
      expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof c.name).toBe('string');
      expect(c.code).toMatch(/^[a-z0-9_]+$/);
      expect(c.image_url).toMatch(/^\/images\/channels\/[a-z0-9_]+\.svg$/);
      expect(['active', 'offline', 'maintenance']).toContain(c.status);
      expect(typeof c.is_fee_charged_to_customer).toBe('boolean');
      for (const k of ['fee_percentage', 'fee_value', 'min_transactions', 'max_transactions']) expect(typeof c.fee_info[k]).toBe('number');
    }
    expect(rest.data.find((c) => c.code === 'qris')).toMatchObject({
      name: 'QRIS',
      status: 'active',
      is_fee_charged_to_customer: true,
      fee_info: { fee_percentage: 0.7, fee_value: 0, min_transactions: 1000, max_transactions: 10000000 },
    });
    const statuses = new Set(rest.data.map((c) => c.status));
    expect(statuses).toEqual(new Set(['active', 'offline', 'maintenance']));
    const bearers = new Set(rest.data.map((c) => c.is_fee_charged_to_customer));
    expect(bearers).toEqual(new Set([true, false]));
  });

  it('per-merchant overrides show on both surfaces (pending merchant has a negotiated OVO rate)', async () => {
    const a = (await (await t.signedFetch('/v1/payments/channel')).json()) as { data: any[] };
    const p = (await (await t.signedFetch('/v1/payments/channel', { as: t.pending })).json()) as { data: any[] };
    expect(a.data.find((c) => c.code === 'ovo').fee_info.fee_percentage).toBe(1.5);
    expect(p.data.find((c) => c.code === 'ovo').fee_info.fee_percentage).toBe(1.2);
  });

  it('channel images are served, public and cacheable, for every image_url', async () => {
    const rest = (await (await t.signedFetch('/v1/payments/channel')).json()) as { data: { image_url: string; name: string }[] };
    for (const c of rest.data) {
      const img = await t.fetch(c.image_url);
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(img.headers.get('cache-control')).toMatch(/public/);
      expect(await img.text()).toContain('<svg');
    }
  });
});

describe('calculation parity', () => {
  const methods = [...DEMO_CHANNELS.map((c) => c.code), 'QRIS', 'Bca_Va', 'bitcoin'];
  /**
   * Amounts as JSON number text (contract §5: exact whatever JSON carries them): integers, the limits, any
   * double's shortest text, and texts a double cannot keep (up to 30 digits, up to 25 decimals, exponents).
   */
  const amountText = fc.oneof(
    fc.integer({ min: -10, max: 120_000_000 }).map(String),
    fc.constantFrom('999', '1000', '10000', '2000000', '10000000', '10000001', '149999.99999999999999999999', '150000.0', '1.5e5', '1e400', '1e-400'),
    fc.double({ min: 0, max: 1e6, noNaN: true }).map((d) => JSON.stringify(d)),
    fc
      .tuple(fc.stringMatching(/^(0|[1-9]\d{0,29})$/), fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }), fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }))
      .map(([int, frac, exp]) => `${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `e${exp}`}`),
  );
  const input = fc.record({
    amount: amountText,
    currency: fc.constantFrom('IDR', 'USD', 'idr'),
    method: fc.constantFrom(...methods),
    chargeFeeToCustomer: fc.option(fc.boolean(), { nil: undefined }),
    who: fc.constantFrom('approved' as const, 'pending' as const),
  });

  it('REST and GraphQL agree on result or error code for random inputs, amounts sent as JSON text', async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ who, amount, ...i }) => {
        const as = t[who];
        // The amount spliced in as its text: JSON.stringify of a JS number could only send a double's text.
        const fields = JSON.stringify({ ...i, merchantId: as.merchantId }).slice(1, -1);
        const bodyText = `{"amount":${amount},${fields}}`;
        const restRes = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: bodyText, as });
        const rest = (await restRes.json()) as Record<string, unknown>;
        const graphRes = await t.signedFetch('/graphql', { method: 'POST', body: `{"query":${JSON.stringify(CALC)},"variables":{"i":${bodyText}}}`, as });
        const graph = (await graphRes.json()) as { data: { calculateFee: unknown } | null; errors?: { extensions: { code: string; field?: string } }[] };
        if (restRes.status === 200) {
          expect(graph.errors).toBeUndefined();
          expect(graph.data?.calculateFee).toEqual(rest);
          // Priced at exactly the amount sent (every demo channel is IDR: no decimals).
          expect(new Big(String(rest.amount)).eq(new Big(amount))).toBe(true);
        } else {
          expect(graph.errors?.[0]?.extensions.code).toBe(rest.code);
          if (rest.code === 'INVALID_REQUEST') expect(graph.errors?.[0]?.extensions.field).toBe(rest.field);
        }
        // An amount with decimals is never priced in IDR, however close a double would bring it to an integer.
        if (scaleOf(new Big(amount)) > 0) expect(restRes.status).not.toBe(200);
      }),
      { numRuns: 150 },
    );
  });

  it('fee bearer: both surfaces apply the contract rule and the channel default', async () => {
    const base = { amount: 100000, currency: 'IDR', merchantId: t.approved.merchantId };
    const cases: [string, boolean | undefined, Record<string, number>][] = [
      ['bni_va', undefined, { fee: 4000, totalAmount: 100000, getBalance: 96000 }], // channel default: merchant bears
      ['bni_va', true, { fee: 4000, totalAmount: 104000, getBalance: 100000 }],
      ['bca_va', undefined, { fee: 4000, totalAmount: 104000, getBalance: 100000 }], // channel default: customer bears
      ['bca_va', false, { fee: 4000, totalAmount: 100000, getBalance: 96000 }],
      ['credit_card', true, { fee: 4900, additionalFee: 1000, totalAmount: 105900, getBalance: 100000 }],
      ['credit_card', false, { fee: 4900, additionalFee: 1000, totalAmount: 100000, getBalance: 94100 }],
    ];
    for (const [method, chargeFeeToCustomer, expected] of cases) {
      const body = { ...base, method, ...(chargeFeeToCustomer === undefined ? {} : { chargeFeeToCustomer }) };
      const rest = await (await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: JSON.stringify(body) })).json();
      expect(rest).toMatchObject({ amount: 100000, currency: 'IDR', ...expected });
      const graph = (await (await gql(t, CALC, { i: body })).json()) as { data: { calculateFee: unknown } };
      expect(graph.data.calculateFee).toEqual(rest);
    }
  });

  it('GraphQL merchantId is optional; REST requires it', async () => {
    const graph = (await (await gql(t, CALC, { i: { amount: 150000, currency: 'IDR', method: 'qris' } })).json()) as { data: { calculateFee: { fee: number } } };
    expect(graph.data.calculateFee.fee).toBe(1050);
  });
});

describe('the channels of one order and instructions: parity (contract §14)', () => {
  const codes = [...DEMO_CHANNELS.map((c) => c.code), 'QRIS', 'Bca_Va', 'bitcoin'];
  const groups = ['qris', 'virtual_account', 'ewallet', 'retail_outlet', 'card', 'crypto'];
  const REST_FIELD: Record<string, string> = { 'filter.codes': 'code', 'filter.excludeCodes': 'exclude', 'filter.groups': 'group' };

  it('REST ?code/?exclude/?group and GraphQL codes/excludeCodes/groups list the same channels or fail with the same code and field', async () => {
    const sub = (values: string[]) => fc.option(fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 4 }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(fc.record({ code: sub(codes), exclude: sub(codes), group: sub(groups), who: fc.constantFrom('approved' as const, 'pending' as const) }), async ({ who, code, exclude, group }) => {
        const as = t[who];
        const query = new URLSearchParams();
        if (code) query.set('code', code.join(','));
        if (exclude) query.set('exclude', exclude.join(','));
        if (group) query.set('group', group.join(','));
        const target = query.size > 0 ? `/v1/payments/channel?${query.toString()}` : '/v1/payments/channel';
        const restRes = await t.signedFetch(target, { as });
        const rest = (await restRes.json());
        const filter: Record<string, unknown> = {};
        if (code) filter.codes = code;
        if (exclude) filter.excludeCodes = exclude;
        // An unknown group is refused by GraphQL's enum (variable coercion); REST names `group` and the value itself.
        const unknownGroup = group?.some((g) => g === 'crypto');
        if (group && !unknownGroup) filter.groups = group.map((g) => g.toUpperCase());
        const graph = (await (await gql(t, 'query($f: PaymentChannelFilter) { paymentChannels(filter: $f) { id code status group } }', { f: filter }, as)).json());
        if (restRes.status === 200) {
          expect(unknownGroup).toBeFalsy();
          expect(graph.errors).toBeUndefined();
          expect(rest.data.map((c: any) => [c.id, c.code, c.status, c.group])).toEqual(graph.data.paymentChannels.map((c: any) => [c.id, c.code, c.status.toLowerCase(), c.group.toLowerCase()]));
        } else {
          expect(restRes.status).toBe(400);
          expect(rest.code).toBe('INVALID_REQUEST');
          if (unknownGroup && rest.field === 'group') return;
          expect(graph.errors[0].extensions.code).toBe('INVALID_REQUEST');
          expect(rest.field).toBe(REST_FIELD[graph.errors[0].extensions.field]);
          expect(rest.value).toBe(graph.errors[0].extensions.value);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('REST instructions and GraphQL instructions agree for every channel, language and value', async () => {
    const INSTR = 'query($c: [String!], $l: String, $p: String, $a: Decimal) { paymentChannels(filter: { codes: $c }) { instructions(locale: $l, payCode: $p, amount: $a) { sections { key title steps } unfilled } } }';
    for (const c of DEMO_CHANNELS) {
      for (const [l, p, a] of [['id', '1234-5678', 150000], ['en', undefined, undefined]] as const) {
        const query = new URLSearchParams({ code: c.code, locale: l });
        if (p) query.set('pay_code', p);
        if (a) query.set('amount', String(a));
        const rest = (await (await t.signedFetch(`/v1/payments/instruction?${query.toString()}`)).json());
        const graph = (await (await gql(t, INSTR, { c: [c.code], l, p, a })).json());
        const g = graph.data.paymentChannels[0].instructions;
        expect(rest, `${c.code} ${l}`).toEqual({ status: 200, data: g.sections, unfilled: g.unfilled });
      }
    }
  });
});
