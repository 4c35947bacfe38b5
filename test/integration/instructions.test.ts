/**
 * Contract §14: the channels of one order (REST `?code`, `?exclude`, `?group`; GraphQL `codes`, `excludeCodes`,
 * `groups`; sessions with `groups`) and payment instructions (REST `GET /v1/payments/instruction`, GraphQL
 * `PaymentChannel.instructions`), over HTTP through the one pipeline, on the demo data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function restList(query: string, as = t.approved): Promise<{ status: number; body: any }> {
  const res = await t.signedFetch(`/v1/payments/channel${query}`, { as });
  return { status: res.status, body: await res.json() };
}

async function gqlData<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const body = (await (await gql(t, query, variables)).json()) as { data: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

async function createSession(body: Record<string, unknown>): Promise<Response> {
  return t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', ...body }) });
}

const bearer = (secret: string) => ({ Authorization: `Bearer ${secret}` });

describe('the channels of one order', () => {
  it('REST ?code, ?exclude and ?group narrow the list (codes case-insensitive, order kept)', async () => {
    const only = await restList('?code=BNI_VA,bca_va');
    expect(only.status).toBe(200);
    expect(only.body.data.map((c: any) => c.code)).toEqual(['bca_va', 'bni_va']);
    const groups = await restList('?group=virtual_account,ewallet&exclude=ovo,permata_va');
    expect(groups.body.data.map((c: any) => c.code)).toEqual(['bca_va', 'bni_va', 'bri_va', 'mandiri_va', 'dana', 'shopeepay']);
    const all = await restList('');
    expect(all.body.data).toHaveLength(DEMO_CHANNELS.length);
  });

  it('GraphQL codes, excludeCodes and groups give the same channels as REST', async () => {
    const data = await gqlData('{ paymentChannels(filter: { groups: [VIRTUAL_ACCOUNT, EWALLET], excludeCodes: ["OVO", "permata_va"] }) { code } }');
    expect(data.paymentChannels.map((c: any) => c.code)).toEqual(['bca_va', 'bni_va', 'bri_va', 'mandiri_va', 'dana', 'shopeepay']);
    const codes = await gqlData('{ paymentChannels(filter: { codes: ["bni_va", "BCA_VA"] }) { code } }');
    expect(codes.paymentChannels.map((c: any) => c.code)).toEqual(['bca_va', 'bni_va']);
  });

  it('an unknown code or group is 400 INVALID_REQUEST naming the field and the value, on both surfaces', async () => {
    const code = await restList('?code=bca_va,nope_va');
    expect(code.status).toBe(400);
    expect(code.body).toMatchObject({ code: 'INVALID_REQUEST', field: 'code', value: 'nope_va' });
    const exclude = await restList('?exclude=gopay');
    expect(exclude.body).toMatchObject({ code: 'INVALID_REQUEST', field: 'exclude', value: 'gopay' });
    const group = await restList('?group=crypto');
    expect(group.status).toBe(400);
    expect(group.body).toMatchObject({ code: 'INVALID_REQUEST', field: 'group', value: 'crypto' });
    const graph = (await (await gql(t, '{ paymentChannels(filter: { codes: ["nope_va"] }) { code } }')).json());
    expect(graph.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'filter.codes', value: 'nope_va' });
  });

  it('more than 50 codes is 400 on both surfaces, before any code is looked at', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `c${i}`);
    const rest = await restList(`?code=${many.join(',')}`);
    expect(rest.status).toBe(400);
    expect(rest.body).toMatchObject({ code: 'INVALID_REQUEST', field: 'code', max: 50 });
    const graph = (await (await gql(t, 'query($c: [String!]) { paymentChannels(filter: { excludeCodes: $c }) { code } }', { c: many })).json());
    expect(graph.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'filter.excludeCodes', max: 50 });
    const fifty = await restList(`?exclude=${Array(50).fill('ovo').join(',')}`);
    expect(fifty.status).toBe(200);
  });

  it('a narrowed list is not the cached full list (and the full list not the narrowed one)', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await restList('?code=qris')).body.data).toHaveLength(1);
      expect((await restList('')).body.data).toHaveLength(DEMO_CHANNELS.length);
      expect((await restList('?code=ovo')).body.data.map((c: any) => c.code)).toEqual(['ovo']);
    }
  });

  it('a checkout session with groups holds the intersection with methods; an empty one is refused', async () => {
    const res = await createSession({ methods: ['bca_va', 'ovo', 'qris'], groups: ['virtual_account', 'ewallet'] });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { methods: string[]; clientSecret: string };
    expect(created.methods).toEqual(['bca_va', 'ovo']);
    const list = (await (await t.fetch('/v1/payments/channel', { headers: bearer(created.clientSecret) })).json());
    expect(list.data.map((c: any) => c.code)).toEqual(['bca_va', 'ovo']);
    const onlyGroups = (await (await createSession({ groups: ['retail_outlet'] })).json()) as { methods: string[] };
    expect(onlyGroups.methods).toEqual(['alfamart', 'indomaret']);
    const empty = await createSession({ methods: ['qris'], groups: ['card'] });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ code: 'INVALID_REQUEST', field: 'groups' });
    const unknown = await createSession({ groups: ['crypto'] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json())).field).toMatch(/^groups/);
  });
});

const INSTRUCTIONS = `query($l: String, $p: String, $a: Decimal, $e: String, $z: String) {
  paymentChannels(filter: { codes: ["bca_va"] }) { instructions(locale: $l, payCode: $p, amount: $a, expiresAt: $e, timeZone: $z) { locale sections { key title steps } unfilled } }
}`;

describe('payment instructions', () => {
  it('the demo catalogue has instructions for every channel in both languages; VA, outlet and QRIS sets show the code (or QR) and the amount', async () => {
    for (const locale of ['id', 'en']) {
      const data = await gqlData(`{ paymentChannels { code group instructions(locale: "${locale}") { sections { key title steps } unfilled } } }`);
      expect(data.paymentChannels).toHaveLength(DEMO_CHANNELS.length);
      for (const c of data.paymentChannels) {
        expect(c.instructions.sections.length, c.code).toBeGreaterThan(0);
        const text = c.instructions.sections.flatMap((s: any) => s.steps).join('\n');
        if (['VIRTUAL_ACCOUNT', 'RETAIL_OUTLET'].includes(c.group)) expect(text, c.code).toContain('{{pay_code}}');
        if (c.group === 'QRIS') expect(text).toMatch(/QR/);
        if (c.group !== 'CARD' && c.group !== 'EWALLET') expect(text, c.code).toContain('{{amount}}');
        // The merchant's name is always known, so never unfilled.
        expect(c.instructions.unfilled).not.toContain('merchant_name');
        expect(text).not.toMatch(/[<>]|https?:|\+62|\b08\d{6,}/);
      }
      const va = data.paymentChannels.find((c: any) => c.code === 'bca_va');
      expect(va.instructions.sections.map((s: any) => s.key)).toEqual(['atm', 'mobile_banking', 'internet_banking']);
    }
  });

  it('GraphQL fills the placeholders: amount and time in the language, Asia/Jakarta by default, another IANA zone on request', async () => {
    const id = (await gqlData(INSTRUCTIONS, { l: 'id', p: '3901081234567890', a: 150000, e: '2026-11-27T11:41:58Z' })).paymentChannels[0].instructions;
    expect(id.locale).toBe('id');
    expect(id.unfilled).toEqual([]);
    const steps = id.sections.flatMap((s: any) => s.steps).join('\n');
    expect(steps).toContain('3901081234567890');
    expect(steps).toContain('Rp 150.000');
    expect(steps).toContain('Toko Kopi Nusantara');
    expect(steps).toContain('27 November 2026 pukul 18.41 WIB');
    expect(steps).not.toMatch(/\{\{/);
    const en = (await gqlData(INSTRUCTIONS, { l: 'en', a: 1500000, e: '2026-11-27T11:41:58Z', z: 'Asia/Makassar' })).paymentChannels[0].instructions;
    const enSteps = en.sections.flatMap((s: any) => s.steps).join('\n');
    expect(enSteps).toContain('Rp 1.500.000');
    expect(enSteps).toContain('7:41 PM GMT+8');
    expect(en.unfilled).toEqual(['pay_code']);
    expect(enSteps).toContain('{{pay_code}}');
  });

  it('REST GET /v1/payments/instruction answers the same sections as GraphQL, with unfilled beside them', async () => {
    const res = await t.signedFetch('/v1/payments/instruction?code=BCA_VA&locale=id&pay_code=3901081234567890&amount=150000');
    expect(res.status).toBe(200);
    const body = (await res.json());
    const graph = (await gqlData(INSTRUCTIONS, { l: 'id', p: '3901081234567890', a: 150000 })).paymentChannels[0].instructions;
    expect(body).toEqual({ status: 200, data: graph.sections, unfilled: graph.unfilled });
    expect(body.unfilled).toEqual(['expires_at']);
    // Default locale: Indonesian.
    const byDefault = (await (await t.signedFetch('/v1/payments/instruction?code=ovo')).json());
    expect(byDefault.data[0].title).toBe('Aplikasi OVO');
    expect(byDefault.unfilled).toEqual(['amount', 'expires_at']);
  });

  it.each([
    ['pay_code with markup', 'pay_code=%3Cscript%3E', 'pay_code'],
    ['pay_code too long', `pay_code=${'1'.repeat(65)}`, 'pay_code'],
    ['locale', 'locale=fr', 'locale'],
    ['time zone offset', 'time_zone=%2B07:00', 'time_zone'],
    ['time zone unknown', 'time_zone=Mars/Olympus', 'time_zone'],
    ['amount', 'amount=1e5', 'amount'],
    ['amount zero', 'amount=0', 'amount'],
    ['amount precision', 'amount=10.5', 'amount'],
    ['expires_at', 'expires_at=tomorrow', 'expires_at'],
    ['code missing', '', 'code'],
    ['code unknown', 'code=nope', 'code'],
  ])('REST: a bad %s is 400 INVALID_REQUEST naming its field', async (_name, query, field) => {
    const target = query === '' ? '/v1/payments/instruction' : query.startsWith('code') ? `/v1/payments/instruction?${query}` : `/v1/payments/instruction?code=bca_va&${query}`;
    const res = await t.signedFetch(target);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST', field });
  });

  it('a KYC-gated channel the merchant cannot see is CHANNEL_NOT_FOUND', async () => {
    const res = await t.signedFetch('/v1/payments/instruction?code=qris', { as: t.pending });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'CHANNEL_NOT_FOUND', field: 'code' });
  });

  it('a session reads its own channels only, with its own amount (what the customer pays) and locale', async () => {
    const created = (await (await createSession({ methods: ['bca_va', 'bni_va'], locale: 'en' })).json()) as { clientSecret: string; expiresAt: string };
    // bca_va: the customer pays the 4,000 fee on top; bni_va: the merchant bears it.
    const bca = (await (await t.fetch('/v1/payments/instruction?code=bca_va&pay_code=123', { headers: bearer(created.clientSecret) })).json());
    expect(bca.unfilled).toEqual([]);
    const bcaText = bca.data.flatMap((s: any) => s.steps).join('\n');
    expect(bcaText).toContain('Rp 154.000');
    expect(bca.data[0].title).toBe('BCA ATM');
    const bni = (await (await t.fetch('/v1/payments/instruction?code=bni_va', { headers: bearer(created.clientSecret) })).json());
    expect(bni.data.flatMap((s: any) => s.steps).join('\n')).toContain('Rp 150.000');
    const outside = await t.fetch('/v1/payments/instruction?code=ovo', { headers: bearer(created.clientSecret) });
    expect(outside.status).toBe(404);
    const other = await t.fetch('/v1/payments/instruction?code=bca_va&amount=999999', { headers: bearer(created.clientSecret) });
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ code: 'SESSION_SCOPE', field: 'amount' });
    const own = await t.fetch('/v1/payments/instruction?code=bca_va&amount=154000', { headers: bearer(created.clientSecret) });
    expect(own.status).toBe(200);
  });

  it('an operator SQL change to a channel’s instructions is served at once (the catalogue reloads the channel)', async () => {
    const sections = JSON.stringify([{ key: 'atm', title: 'ATM BCA', steps: ['Langkah baru dengan kode {{pay_code}}.'] }]);
    await t.execute(`UPDATE channels SET instructions_id = '${sections}' WHERE code = 'bca_va'`);
    const body = (await (await t.signedFetch('/v1/payments/instruction?code=bca_va&pay_code=77')).json());
    expect(body.data).toEqual([{ key: 'atm', title: 'ATM BCA', steps: ['Langkah baru dengan kode 77.'] }]);
    // Text that breaks the rules (markup) is served as none, never as unchecked text.
    await t.execute(`UPDATE channels SET instructions_id = '[{"key":"atm","title":"x","steps":["<b>x</b>"]}]' WHERE code = 'bca_va'`);
    expect(((await (await t.signedFetch('/v1/payments/instruction?code=bca_va')).json())).data).toEqual([]);
  });
});
