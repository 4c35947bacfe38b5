/**
 * Contract §12 over HTTP: channel groups, the merchant's channel order, Indonesian and English names, and a
 * checkout session's locale. Every rule on REST and GraphQL; runs in-process on SQLite, and on Postgres
 * through a real server with TEST_DB=postgres TEST_TRANSPORT=node.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, openReplicaStore, type TestApp } from '../helpers/app.js';
import { openEventStream, type EventStreamReader } from '../helpers/sse.js';
import { AdminError, AdminService } from '../../src/modules/admin/service.js';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';
import { MAX_CHANNEL_ORDER } from '../../src/modules/channels/domain/channel-rules.js';

let t: TestApp;
let admin: AdminService;
const streams: EventStreamReader[] = [];

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'locale-test' });
});
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
  // Every test starts from the default order and the seeded names.
  await admin.setChannelOrder(t.approved.merchantId, null);
  await t.sync();
});
afterAll(() => t.close());

const DEFAULT_ORDER = DEMO_CHANNELS.map((c) => c.code);
const EXPECTED_GROUPS: Record<string, string> = {
  qris: 'qris',
  bca_va: 'virtual_account',
  bni_va: 'virtual_account',
  bri_va: 'virtual_account',
  mandiri_va: 'virtual_account',
  permata_va: 'virtual_account',
  ovo: 'ewallet',
  dana: 'ewallet',
  shopeepay: 'ewallet',
  alfamart: 'retail_outlet',
  indomaret: 'retail_outlet',
  credit_card: 'card',
};

interface RestChannel {
  code: string;
  name: string;
  group: string;
}

async function restList(headers: Record<string, string> = {}): Promise<RestChannel[]> {
  const res = await t.signedFetch('/v1/payments/channel', { headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: RestChannel[] }).data;
}

async function gqlData<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await gql(t, query, variables);
  const body = (await res.json()) as { data: T; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

async function gqlCodes(): Promise<string[]> {
  return (await gqlData<{ paymentChannels: { code: string }[] }>('{ paymentChannels { code } }')).paymentChannels.map((c) => c.code);
}

async function createSession(body: Record<string, unknown>): Promise<Response> {
  return t.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', ...body }),
  });
}

function sessionGql(secret: string, query: string, variables?: Record<string, unknown>): Promise<Response> {
  return t.fetch('/graphql', { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
}

async function problemsOf(p: Promise<unknown>): Promise<string[]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdminError);
  return (err as AdminError).problems;
}

describe('groups', () => {
  it('REST carries `group` (lower case) on every channel, the demo grouped as an Indonesian shopper expects; the seed fields are unchanged', async () => {
    const list = await restList();
    expect(Object.fromEntries(list.map((c) => [c.code, c.group]))).toEqual(EXPECTED_GROUPS);
    // The REST name is the stored name (credit_card stays "Credit Card").
    expect(list.find((c) => c.code === 'credit_card')!.name).toBe('Credit Card');
    expect(Object.keys(list[0]!)).toEqual(expect.arrayContaining(['id', 'name', 'code', 'image_url', 'status', 'is_fee_charged_to_customer', 'fee_info', 'group']));
  });

  it('GraphQL `group` is the ChannelGroup enum and `groupName(locale)` names it in Indonesian and English', async () => {
    const data = await gqlData<{ paymentChannels: { code: string; group: string; id: string; en: string; none: string }[] }>(
      '{ paymentChannels { code group id: groupName(locale: "id") en: groupName(locale: "en-US") none: groupName } }',
    );
    const byCode = Object.fromEntries(data.paymentChannels.map((c) => [c.code, c]));
    for (const [code, group] of Object.entries(EXPECTED_GROUPS)) expect(byCode[code]!.group).toBe(group.toUpperCase());
    expect(byCode.ovo).toMatchObject({ id: 'Dompet Digital', en: 'E-Wallet', none: 'E-Wallet' });
    expect(byCode.bca_va).toMatchObject({ id: 'Virtual Account', en: 'Virtual Account' });
    expect(byCode.alfamart).toMatchObject({ id: 'Gerai Retail', en: 'Retail Outlet' });
    expect(byCode.credit_card).toMatchObject({ id: 'Kartu Kredit/Debit', en: 'Credit/Debit Card' });
    expect(byCode.qris).toMatchObject({ id: 'QRIS', en: 'QRIS' });
  });

  it('`channel update CODE --group` moves a channel (REST and GraphQL); an unknown group is refused, naming the groups', async () => {
    expect(await problemsOf(admin.updateChannel('dana', { group: 'wallet' } as never))).toEqual([
      'group: must be one of qris, virtual_account, ewallet, retail_outlet, card',
    ]);
    await admin.updateChannel('dana', { group: 'retail_outlet' } as never);
    await t.sync();
    try {
      expect((await restList()).find((c) => c.code === 'dana')!.group).toBe('retail_outlet');
      const data = await gqlData<{ paymentChannels: { code: string; group: string }[] }>('{ paymentChannels { code group } }');
      expect(data.paymentChannels.find((c) => c.code === 'dana')!.group).toBe('RETAIL_OUTLET');
    } finally {
      await admin.updateChannel('dana', { group: 'ewallet' } as never);
      await t.sync();
    }
  });
});

describe('channel badges', () => {
  it('a channel named differently per language (credit_card) gets a symbol badge; a proper noun keeps its name', async () => {
    const card = await (await t.fetch('/images/channels/credit_card.svg')).text();
    expect(card).not.toContain('<text');
    const bca = await (await t.fetch('/images/channels/bca_va.svg')).text();
    expect(bca).toContain('>BCA VA</text>');
  });
});

describe("the merchant's order", () => {
  it('named channels first in that order, the others after in the default order, on REST and GraphQL; --reset returns to the default', async () => {
    expect((await restList()).map((c) => c.code)).toEqual(DEFAULT_ORDER);
    const r = await admin.setChannelOrder(t.approved.merchantId, ['ovo', ' BCA_VA', 'credit_card']);
    expect(r.order).toEqual(['ovo', 'bca_va', 'credit_card']);
    await t.sync();
    const expected = ['ovo', 'bca_va', 'credit_card', ...DEFAULT_ORDER.filter((c) => !['ovo', 'bca_va', 'credit_card'].includes(c))];
    expect(r.channels).toEqual(expected);
    expect((await restList()).map((c) => c.code)).toEqual(expected);
    expect(await gqlCodes()).toEqual(expected);
    // Another merchant's list is untouched.
    const pending = await t.signedFetch('/v1/payments/channel', { as: t.pending });
    expect(((await pending.json()) as { data: RestChannel[] }).data.map((c) => c.code)).toEqual(DEFAULT_ORDER.filter((c) => c !== 'qris'));
    await admin.setChannelOrder(t.approved.merchantId, null);
    await t.sync();
    expect((await restList()).map((c) => c.code)).toEqual(DEFAULT_ORDER);
    expect(await gqlCodes()).toEqual(DEFAULT_ORDER);
  });

  it('an unknown code is refused, naming it (every one), and nothing changes', async () => {
    const problems = await problemsOf(admin.setChannelOrder(t.approved.merchantId, ['ovo', 'gopay', 'linkaja']));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^unknown channel gopay: /);
    expect(problems[1]).toMatch(/^unknown channel linkaja: /);
    // ovo exists in the catalogue but is not enabled for this merchant: not one of its channels.
    const small = await admin.createMerchant({ name: 'Order Shop', kycStatus: 'approved', channels: ['dana'] });
    expect(await problemsOf(admin.setChannelOrder(small.id, ['ovo']))).toEqual([`unknown channel ovo: not a channel of merchant ${small.id} (its channels: dana)`]);
    expect(await problemsOf(admin.setChannelOrder(t.approved.merchantId, ['ovo', 'OVO']))).toEqual(['ovo is named twice']);
    expect(await problemsOf(admin.setChannelOrder(t.approved.merchantId, []))).toEqual([expect.stringContaining('at least one')]);
    expect(await problemsOf(admin.setChannelOrder('no-such-merchant', ['ovo']))).toEqual(['no merchant no-such-merchant']);
    await t.sync();
    expect((await restList()).map((c) => c.code)).toEqual(DEFAULT_ORDER);
  });

  it(`a list longer than its bound (${MAX_CHANNEL_ORDER} codes) is refused before any lookup`, async () => {
    const codes = Array.from({ length: MAX_CHANNEL_ORDER + 1 }, (_, i) => `c${i}`);
    const problems = await problemsOf(admin.setChannelOrder(t.approved.merchantId, codes));
    expect(problems[0]).toBe(`at most ${MAX_CHANNEL_ORDER} channel codes`);
  });

  it('is audited with the order before and after', async () => {
    await admin.setChannelOrder(t.approved.merchantId, ['dana']);
    await admin.setChannelOrder(t.approved.merchantId, null);
    const records = (await admin.listAudit({ entity: t.approved.merchantId, limit: 2 })).filter((a) => a.action === 'merchant.channel-order');
    expect(records.map((a) => [a.actor, a.before, a.after])).toEqual([
      ['locale-test', { order: ['dana'] }, { order: null }],
      ['locale-test', { order: null }, { order: ['dana'] }],
    ]);
  });

  it('reaches another replica (its own store on the same database) within 1 s, and an open stream gets the new order as an event', async () => {
    const replica = await openReplicaStore(t);
    const stream = await openEventStream('subscription { paymentChannelsChanged { code } }', { as: t.approved, fetch: t.streamFetch, timestamp: String(Math.floor(t.clock.now / 1000)) });
    streams.push(stream);
    const nexts = (s: EventStreamReader) => s.events.filter((e) => e.event === 'next').length;
    try {
      await stream.waitFor((s) => nexts(s) >= 1, 2000, 'the first event');
      expect(stream.results()[0].data.paymentChannelsChanged.map((c: { code: string }) => c.code)).toEqual(DEFAULT_ORDER);
      const started = performance.now();
      // Written through the replica's store, as another process would.
      await new AdminService(replica.admin, t.data.secretBox, { actor: 'replica' }).setChannelOrder(t.approved.merchantId, ['indomaret', 'dana']);
      await stream.waitFor((s) => nexts(s) >= 2, 1000, 'the order as an event');
      expect(stream.events.filter((e) => e.event === 'next')[1]!.at - started).toBeLessThan(1000);
      expect(stream.results()[1].data.paymentChannelsChanged.map((c: { code: string }) => c.code).slice(0, 3)).toEqual(['indomaret', 'dana', 'qris']);
      expect((await restList()).map((c) => c.code).slice(0, 2)).toEqual(['indomaret', 'dana']);
    } finally {
      await replica.close();
    }
  });
});

describe('names in Indonesian and English', () => {
  it('`name(locale)` answers in the language (proper nouns stay); without it the stored name; a malformed tag is INVALID_REQUEST naming `locale`', async () => {
    const data = await gqlData<{ paymentChannels: { code: string; name: string; id: string; idID: string; en: string; fr: string; none: string | null }[] }>(
      '{ paymentChannels { code name id: name(locale: "id") idID: name(locale: "id-ID") en: name(locale: "en") fr: name(locale: "fr") none: name(locale: null) } }',
    );
    const card = data.paymentChannels.find((c) => c.code === 'credit_card')!;
    expect(card).toMatchObject({ name: 'Credit Card', id: 'Kartu Kredit', idID: 'Kartu Kredit', en: 'Credit Card', fr: 'Credit Card', none: 'Credit Card' });
    expect(data.paymentChannels.find((c) => c.code === 'bca_va')).toMatchObject({ id: 'BCA Virtual Account', en: 'BCA Virtual Account' });
    expect(data.paymentChannels.find((c) => c.code === 'ovo')).toMatchObject({ id: 'OVO', en: 'OVO' });
    for (const bad of ['', 'x', 'id id', 'a'.repeat(36), '<script>']) {
      const res = await gql(t, 'query ($l: String) { paymentChannels { name(locale: $l) } }', { l: bad });
      const body = (await res.json()) as { errors?: { extensions: { code: string; field?: string } }[] };
      expect(body.errors?.[0]?.extensions, bad).toMatchObject({ code: 'INVALID_REQUEST', field: 'locale' });
    }
  });

  it('`channel update --name-id/--name-en` stores the translations; "default" clears one (the stored name applies); the REST name never changes', async () => {
    await admin.updateChannel('dana', { nameId: 'DANA Dompet', nameEn: 'DANA Wallet' });
    await t.sync();
    try {
      const data = await gqlData<{ paymentChannels: { code: string; id: string; en: string; name: string }[] }>('{ paymentChannels { code name id: name(locale: "id") en: name(locale: "en") } }');
      expect(data.paymentChannels.find((c) => c.code === 'dana')).toMatchObject({ name: 'DANA', id: 'DANA Dompet', en: 'DANA Wallet' });
      expect((await restList()).find((c) => c.code === 'dana')!.name).toBe('DANA');
      await admin.updateChannel('dana', { nameEn: 'default' });
      await t.sync();
      const after = await gqlData<{ paymentChannels: { code: string; en: string }[] }>('{ paymentChannels { code en: name(locale: "en") } }');
      expect(after.paymentChannels.find((c) => c.code === 'dana')!.en).toBe('DANA');
      expect(await problemsOf(admin.updateChannel('dana', { nameId: '' }))).toEqual(['name-id: must not be empty']);
    } finally {
      await admin.updateChannel('dana', { nameId: 'DANA', nameEn: 'DANA' });
      await t.sync();
    }
  });
});

describe("a checkout session's locale", () => {
  it('is taken by the create call (REST and the mutation), answered in the 201 and by `checkoutSession`, and is the default of the session\'s names', async () => {
    const res = await createSession({ locale: 'id', methods: ['credit_card', 'ovo'] });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { clientSecret: string; locale: string | null };
    expect(created.locale).toBe('id');
    const q = await sessionGql(created.clientSecret, '{ checkoutSession { locale } paymentChannels { code name group groupName en: name(locale: "en") stored: name(locale: null) } }');
    const body = (await q.json()) as { data: { checkoutSession: { locale: string }; paymentChannels: { code: string; name: string; groupName: string; en: string; stored: string }[] } };
    expect(body.data.checkoutSession.locale).toBe('id');
    expect(body.data.paymentChannels.find((c) => c.code === 'credit_card')).toMatchObject({ name: 'Kartu Kredit', groupName: 'Kartu Kredit/Debit', en: 'Credit Card', stored: 'Credit Card' });
    expect(body.data.paymentChannels.find((c) => c.code === 'ovo')).toMatchObject({ groupName: 'Dompet Digital' });
    // REST with the session: the wire is unchanged (the stored name).
    const rest = await t.fetch('/v1/payments/channel', { headers: { Authorization: `Bearer ${created.clientSecret}` } });
    expect(((await rest.json()) as { data: RestChannel[] }).data.find((c) => c.code === 'credit_card')!.name).toBe('Credit Card');

    const mutation = await gqlData<{ createCheckoutSession: { locale: string; clientSecret: string } }>(
      'mutation ($i: CreateCheckoutSessionInput!) { createCheckoutSession(input: $i) { locale clientSecret } }',
      { i: { amount: 150000, currency: 'IDR', locale: 'EN' } },
    );
    expect(mutation.createCheckoutSession.locale).toBe('en');
    const en = await sessionGql(mutation.createCheckoutSession.clientSecret, '{ paymentChannels { code name groupName } }');
    const enBody = (await en.json()) as { data: { paymentChannels: { code: string; name: string; groupName: string }[] } };
    expect(enBody.data.paymentChannels.find((c) => c.code === 'credit_card')).toMatchObject({ name: 'Credit Card', groupName: 'Credit/Debit Card' });
  });

  it('without a locale: answered as null, names are the stored ones (the secret is the pre-§12 format)', async () => {
    const res = await createSession({ methods: ['credit_card'] });
    const created = (await res.json()) as { clientSecret: string; locale: string | null };
    expect(created.locale).toBeNull();
    const q = await sessionGql(created.clientSecret, '{ checkoutSession { locale } paymentChannels { name } }');
    expect(await q.json()).toEqual({ data: { checkoutSession: { locale: null }, paymentChannels: [{ name: 'Credit Card' }] } });
  });

  it.each([['fr'], ['id-ID'], [''], [7]])('locale %j → 400 INVALID_REQUEST naming locale', async (locale) => {
    const res = await createSession({ locale });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST', field: 'locale' });
  });
});
