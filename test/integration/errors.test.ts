/**
 * Every row of the contract's error table (§4) produced over HTTP, on both
 * surfaces where it applies: the code, the status, the format
 * (problem+json for REST, `extensions.code` for GraphQL) and no leak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/modules/auth/svc1.js';
import type { ProblemDetails } from '../../src/shared/errors.js';
import { enabledList } from '../../src/modules/pricing/service.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Problem = ProblemDetails;

async function problem(res: Response, status: number, code: string): Promise<Problem> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect({ httpStatus: res.status, status: body.status, code: body.code }).toEqual({ httpStatus: status, status, code });
  expect(body.type).toBe('about:blank');
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.detail.length).toBeGreaterThan(0);
  expect(body.requestId).toBe(res.headers.get('x-request-id'));
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+|SQLITE|select |stack/i);
  return body;
}

interface GqlError {
  message: string;
  extensions: { code: string; [k: string]: unknown };
}

async function gqlError(res: Response, status: number, code: string): Promise<GqlError> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { errors: GqlError[] };
  expect(body.errors[0]!.extensions.code).toBe(code);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+|SQLITE|select |stack/i);
  return body.errors[0]!;
}

const calcBody = (over: Record<string, unknown> = {}, merchantId?: string) =>
  JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: merchantId ?? t.approved.merchantId, chargeFeeToCustomer: true, ...over });

const CALC = 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { amount fee additionalFee totalAmount getBalance currency } }';

describe('authentication (401) in the contract check order', () => {
  it.each(['X-SERVICE-API-Key', 'X-SERVICE-Timestamp', 'X-SERVICE-Signature'])('AUTH_HEADER_MISSING when %s is absent or empty', async (header) => {
    for (const value of [undefined, '', '   ']) {
      const headers = new Headers({ 'X-SERVICE-API-Key': 'x', 'X-SERVICE-Timestamp': '1', 'X-SERVICE-Signature': 'y' });
      if (value === undefined) headers.delete(header);
      else headers.set(header, value);
      await problem(await t.fetch('/v1/payments/channel', { headers }), 401, 'AUTH_HEADER_MISSING');
      await gqlError(await t.fetch('/graphql?query=%7B__typename%7D', { headers }), 401, 'AUTH_HEADER_MISSING');
    }
  });

  it('AUTH_HEADER_MISSING comes first: garbage in the other headers does not matter', async () => {
    await problem(await t.fetch('/v1/payments/channel', { headers: { 'X-SERVICE-Timestamp': 'abc', 'X-SERVICE-Signature': 'zz' } }), 401, 'AUTH_HEADER_MISSING');
  });

  it('TIMESTAMP_INVALID for non-decimal timestamps, with the milliseconds hint for 13 digits', async () => {
    for (const ts of ['abc', '-1', '1.5', '0x10', '1e9', ' 1767225600x', '17672256000001']) {
      await problem(await t.signedFetch('/v1/payments/channel', { timestamp: ts }), 401, 'TIMESTAMP_INVALID');
    }
    const ms = await problem(await t.signedFetch('/v1/payments/channel', { timestamp: String(t.clock.now) }), 401, 'TIMESTAMP_INVALID');
    expect(JSON.stringify(ms)).toContain('seconds, not milliseconds');
    const g = await gqlError(await t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{__typename}"}', timestamp: 'soon' }), 401, 'TIMESTAMP_INVALID');
    expect(g.message).toMatch(/seconds/);
  });

  it('TIMESTAMP_EXPIRED outside ±300 s (inclusive bound accepted), with serverTime', async () => {
    const now = Math.floor(t.clock.now / 1000);
    for (const ts of [now - 300, now + 300]) expect((await t.signedFetch('/v1/payments/channel', { timestamp: String(ts) })).status).toBe(200);
    for (const ts of [now - 301, now + 301, 1]) {
      const p = await problem(await t.signedFetch('/v1/payments/channel', { timestamp: String(ts) }), 401, 'TIMESTAMP_EXPIRED');
      expect(p.serverTime).toBe(now);
    }
  });

  it('SIGNATURE_MALFORMED when the signature is not 64 hex characters', async () => {
    const ts = String(Math.floor(t.clock.now / 1000));
    for (const sig of ['abc', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), `${'a'.repeat(62)} a`]) {
      const headers = { 'X-SERVICE-API-Key': t.approved.apiKey, 'X-SERVICE-Timestamp': ts, 'X-SERVICE-Signature': sig };
      await problem(await t.fetch('/v1/payments/channel', { headers }), 401, 'SIGNATURE_MALFORMED');
    }
  });

  it('INVALID_API_KEY for an unknown key (checked before the HMAC)', async () => {
    const ts = String(Math.floor(t.clock.now / 1000));
    const headers = { 'X-SERVICE-API-Key': 'pk_test_unknown', 'X-SERVICE-Timestamp': ts, 'X-SERVICE-Signature': 'a'.repeat(64) };
    await problem(await t.fetch('/v1/payments/channel', { headers }), 401, 'INVALID_API_KEY');
    await gqlError(await t.fetch('/graphql?query=%7B__typename%7D', { headers }), 401, 'INVALID_API_KEY');
  });

  it('INVALID_API_KEY for a revoked key, immediately', async () => {
    const fresh = await createTestApp();
    try {
      expect((await fresh.signedFetch('/v1/payments/channel')).status).toBe(200);
      await fresh.execute(`update api_keys set revoked_at = '2026-01-01T00:00:00Z' where id = '${fresh.approved.apiKey}'`);
      await problem(await fresh.signedFetch('/v1/payments/channel'), 401, 'INVALID_API_KEY');
    } finally {
      await fresh.close();
    }
  });

  it('SIGNATURE_MISMATCH for a wrong secret, another key’s secret, or a changed body/target/method', async () => {
    await problem(await t.signedFetch('/v1/payments/channel', { as: { ...t.approved, apiSecret: 'sk_test_wrong' } }), 401, 'SIGNATURE_MISMATCH');
    await problem(await t.signedFetch('/v1/payments/channel', { as: { ...t.approved, apiSecret: t.pending.apiSecret } }), 401, 'SIGNATURE_MISMATCH');
    const ts = String(Math.floor(t.clock.now / 1000));
    const body = calcBody();
    const parts = { method: 'POST', target: '/v1/payments/calculate', timestamp: ts, apiKey: t.approved.apiKey, body };
    const headers = { 'X-SERVICE-API-Key': t.approved.apiKey, 'X-SERVICE-Timestamp': ts, 'X-SERVICE-Signature': sign(t.approved.apiSecret, parts), 'content-type': 'application/json' };
    expect((await t.fetch('/v1/payments/calculate', { method: 'POST', headers, body })).status).toBe(200);
    // One byte of the body changed (re-serialised JSON would be the same data, but not the same bytes).
    await problem(await t.fetch('/v1/payments/calculate', { method: 'POST', headers, body: body.replace('150000', '150001') }), 401, 'SIGNATURE_MISMATCH');
    await problem(await t.fetch('/v1/payments/calculate', { method: 'POST', headers, body: body.replace(/,/g, ', ') }), 401, 'SIGNATURE_MISMATCH');
    await problem(await t.fetch('/v1/payments/calculate?x=1', { method: 'POST', headers, body }), 401, 'SIGNATURE_MISMATCH');
    await gqlError(await t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{__typename}"}', as: { ...t.approved, apiSecret: 'nope' } }), 401, 'SIGNATURE_MISMATCH');
  });
});

describe('merchant scope and KYC (403)', () => {
  it('MERCHANT_MISMATCH when merchantId is another merchant (REST and GraphQL)', async () => {
    await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody({}, t.pending.merchantId) }), 403, 'MERCHANT_MISMATCH');
    const res = await gql(t, CALC, { i: { amount: 150000, currency: 'IDR', method: 'qris', merchantId: t.pending.merchantId } });
    await gqlError(res, 200, 'MERCHANT_MISMATCH');
  });

  it('KYC_REQUIRED for qris with a KYC-pending merchant; qris is hidden from its REST list', async () => {
    const p = await problem(await t.signedFetch('/v1/payments/calculate', { as: t.pending, method: 'POST', body: calcBody({}, t.pending.merchantId) }), 403, 'KYC_REQUIRED');
    expect(p.detail).toMatch(/KYC/);
    const list = (await (await t.signedFetch('/v1/payments/channel', { as: t.pending })).json()) as { data: { code: string }[] };
    expect(list.data.map((c) => c.code)).not.toContain('qris');
    await gqlError(await gql(t, CALC, { i: { amount: 150000, currency: 'IDR', method: 'qris' } }, t.pending), 200, 'KYC_REQUIRED');
  });
});

describe('request validation (400) names the field', () => {
  it.each([
    ['amount missing', { amount: undefined }, 'amount'],
    ['amount as string', { amount: '150000' }, 'amount'],
    ['amount zero', { amount: 0 }, 'amount'],
    ['amount negative', { amount: -5 }, 'amount'],
    ['amount with decimals in IDR', { amount: 1000.5 }, 'amount'],
    ['amount beyond exact JSON range', { amount: 1e20 }, 'amount'],
    ['currency missing', { currency: undefined }, 'currency'],
    ['currency not ISO-shaped', { currency: 'RUPIAH' }, 'currency'],
    ['method missing', { method: undefined }, 'method'],
    ['method empty', { method: '  ' }, 'method'],
    ['merchantId missing (required in REST)', { merchantId: undefined }, 'merchantId'],
    ['merchantId not a string', { merchantId: 42 }, 'merchantId'],
    ['chargeFeeToCustomer not boolean', { chargeFeeToCustomer: 'yes' }, 'chargeFeeToCustomer'],
  ])('REST: %s', async (_label, over, field) => {
    const body = JSON.parse(calcBody()) as Record<string, unknown>;
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete body[k];
    else body[k] = v;
    const p = await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: JSON.stringify(body) }), 400, 'INVALID_REQUEST');
    expect(p.field).toBe(field);
  });

  it.each(['{"amount":', '[]', 'null', '"str"', '\u00ff\u00fe'])('REST: malformed JSON body %j', async (body) => {
    const p = await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body }), 400, 'INVALID_REQUEST');
    expect(p.field).toBe('body');
  });

  it('GraphQL: bad variables, bad literals and invalid documents are INVALID_REQUEST with status 400', async () => {
    let e = await gqlError(await gql(t, CALC, { i: { amount: 'abc', currency: 'IDR', method: 'qris' } }), 400, 'INVALID_REQUEST');
    expect(e.extensions.field).toBe('amount');
    // graphql-js's wording (the field and the scalar's reason, every problem), not the JIT executor's "Expected type …".
    expect(e.message).toBe('amount: Decimal must be a finite JSON number');
    e = await gqlError(await gql(t, CALC, { i: { amount: 1000, method: 'qris' } }), 400, 'INVALID_REQUEST');
    expect(e.extensions.field).toBe('currency');
    expect(e.message).toBe('currency is required.');
    e = await gqlError(await gql(t, CALC, { i: { amount: 1000, currency: 'IDR', method: 'qris', extra: 1 } }), 400, 'INVALID_REQUEST');
    expect(e.message).toBe('variables: Field "extra" is not defined by type "CalculateFeeInput".');
    const both = (await (await gql(t, CALC, { i: { amount: 1000, currency: 5, method: null } })).json()) as { errors: GqlError[] };
    expect(both.errors.map((x) => x.message)).toEqual(['currency: String cannot represent a non string value: 5', 'method: Expected non-nullable type "String!" not to be null.']);
    // A valid variable set followed by a refused one: the first is executed, the second never is.
    expect((await gql(t, CALC, { i: { amount: 150000, currency: 'IDR', method: 'qris' } })).status).toBe(200);
    e = await gqlError(await gql(t, CALC, { i: { amount: true, currency: 'IDR', method: 'qris' } }), 400, 'INVALID_REQUEST');
    expect(e.extensions.field).toBe('amount');
    await gqlError(await gql(t, '{ calculateFee(input: { amount: "x", currency: "IDR", method: "qris" }) { fee } }'), 400, 'INVALID_REQUEST');
    await gqlError(await gql(t, '{ nope }'), 400, 'INVALID_REQUEST');
    await gqlError(await gql(t, '{ paymentChannels {'), 400, 'INVALID_REQUEST');
    await gqlError(await t.signedFetch('/graphql', { method: 'POST', body: '{bad json' }), 400, 'INVALID_REQUEST');
    e = await gqlError(await gql(t, CALC, { i: { amount: 0, currency: 'IDR', method: 'qris' } }), 200, 'INVALID_REQUEST');
    expect(e.extensions.field).toBe('amount');
  });
});

describe('channel rules', () => {
  it('CHANNEL_NOT_FOUND (404) for an unknown method, listing the codes that are enabled', async () => {
    const rest = await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody({ method: 'bitcoin' }) }), 404, 'CHANNEL_NOT_FOUND');
    const gqlE = await gqlError(await gql(t, CALC, { i: { amount: 150000, currency: 'IDR', method: 'bitcoin' } }), 200, 'CHANNEL_NOT_FOUND');
    for (const message of [rest.detail, gqlE.message]) {
      expect(message).toMatch(/^No channel "bitcoin" is enabled for this merchant\. Enabled: qris, bca_va, .*, credit_card\.$/);
    }
  });

  it('enabledList caps long lists and words an empty one', () => {
    expect(enabledList([])).toBe('No channel is enabled for it.');
    const many = Array.from({ length: 25 }, (_, i) => `c${i}`);
    expect(enabledList(many)).toBe(`Enabled: ${many.slice(0, 20).join(', ')}, … (5 more).`);
  });

  it('CHANNEL_NOT_FOUND for a channel not enabled for this merchant', async () => {
    const fresh = await createTestApp();
    try {
      await fresh.execute(`delete from merchant_channels where merchant_id = '${fresh.approved.merchantId}' and channel_id = (select id from channels where code = 'ovo')`);
      await problem(await fresh.signedFetch('/v1/payments/calculate', { method: 'POST', body: JSON.stringify({ amount: 50000, currency: 'IDR', method: 'ovo', merchantId: fresh.approved.merchantId }) }), 404, 'CHANNEL_NOT_FOUND');
      const list = (await (await fresh.signedFetch('/v1/payments/channel')).json()) as { data: { code: string }[] };
      expect(list.data.map((c) => c.code)).not.toContain('ovo');
    } finally {
      await fresh.close();
    }
  });

  it('CHANNEL_UNAVAILABLE (409) for maintenance and offline channels', async () => {
    const details = [];
    for (const method of ['mandiri_va', 'PERMATA_VA']) {
      details.push((await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody({ method }) }), 409, 'CHANNEL_UNAVAILABLE')).detail);
    }
    expect(details).toEqual(['Channel "mandiri_va" is under maintenance.', 'Channel "permata_va" is offline.']);
    await gqlError(await gql(t, CALC, { i: { amount: 150000, currency: 'IDR', method: 'mandiri_va' } }), 200, 'CHANNEL_UNAVAILABLE');
  });

  it('UNSUPPORTED_CURRENCY (422) when the channel does not settle in that currency', async () => {
    await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody({ currency: 'USD' }) }), 422, 'UNSUPPORTED_CURRENCY');
    await gqlError(await gql(t, CALC, { i: { amount: 150000, currency: 'USD', method: 'qris' } }), 200, 'UNSUPPORTED_CURRENCY');
  });

  it('AMOUNT_OUT_OF_RANGE (422) outside min/max (inclusive bounds accepted), with min and max', async () => {
    for (const amount of [1000, 10000000]) {
      expect((await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody({ amount }) })).status).toBe(200);
    }
    for (const amount of [999, 10000001]) {
      const p = await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody({ amount }) }), 422, 'AMOUNT_OUT_OF_RANGE');
      expect([p.min, p.max]).toEqual([1000, 10000000]);
    }
    const e = await gqlError(await gql(t, CALC, { i: { amount: 999, currency: 'IDR', method: 'qris' } }), 200, 'AMOUNT_OUT_OF_RANGE');
    expect([e.extensions.min, e.extensions.max]).toEqual([1000, 10000000]);
  });
});

describe('transport errors', () => {
  it('PAYLOAD_TOO_LARGE (413) by declared length and by streamed size', async () => {
    const big = calcBody({ pad: 'x'.repeat(110 * 1024) });
    await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: big }), 413, 'PAYLOAD_TOO_LARGE');
    await gqlError(await t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: `{__typename}`, pad: 'x'.repeat(110 * 1024) }) }), 413, 'PAYLOAD_TOO_LARGE');
    // No Content-Length: a stream that only turns out too large while reading.
    const chunks = [new TextEncoder().encode('{"pad":"'), new Uint8Array(120 * 1024).fill(120)];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(ch);
        c.close();
      },
    });
    const ts = String(Math.floor(t.clock.now / 1000));
    const res = await t.fetch('/v1/payments/calculate', {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'content-type': 'application/json', 'X-SERVICE-API-Key': t.approved.apiKey, 'X-SERVICE-Timestamp': ts, 'X-SERVICE-Signature': 'a'.repeat(64) },
    } as RequestInit);
    await problem(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('UNSUPPORTED_MEDIA_TYPE (415) for a POST body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      await problem(await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: calcBody(), headers: { 'content-type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      await gqlError(await t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{__typename}"}', headers: { 'content-type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('NOT_FOUND (404) for unknown routes: public ones at once, /v1/payments/* after auth', async () => {
    await problem(await t.fetch('/v2/payments/channel'), 404, 'NOT_FOUND');
    await problem(await t.fetch('/nope'), 404, 'NOT_FOUND'); // `/` is the front page (test/integration/front-door.test.ts)
    await problem(await t.fetch('/images/channels/nope.svg'), 404, 'NOT_FOUND');
    await problem(await t.signedFetch('/v1/payments/refund'), 404, 'NOT_FOUND');
    await problem(await t.fetch('/v1/payments/refund'), 401, 'AUTH_HEADER_MISSING');
  });

  it('METHOD_NOT_ALLOWED (405) for the wrong method, with Allow', async () => {
    const a = await t.signedFetch('/v1/payments/channel', { method: 'POST', body: '{}' });
    expect(a.headers.get('allow')).toBe('GET');
    await problem(a, 405, 'METHOD_NOT_ALLOWED');
    const b = await t.signedFetch('/v1/payments/calculate');
    expect(b.headers.get('allow')).toBe('POST');
    await problem(b, 405, 'METHOD_NOT_ALLOWED');
    const c = await t.signedFetch('/graphql', { method: 'PUT', body: '{"query":"{__typename}"}' });
    expect(c.headers.get('allow')).toBe('GET, POST');
    await gqlError(c, 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('failures of the service itself', () => {
  it('INTERNAL_ERROR (500) is masked: no message, stack or SQL of the original reaches the client; the log has it with the request id', async () => {
    const logLines: string[] = [];
    const fresh = await createTestApp({ logLines });
    try {
      fresh.app.services.channels.listForMerchant = () => {
        throw new Error('SQLITE_ERROR: near "select * from merchants": secret detail');
      };
      const p = await problem(await fresh.signedFetch('/v1/payments/channel'), 500, 'INTERNAL_ERROR');
      expect(p.detail).toBe('Unexpected error.');
      const logged = logLines.map((l) => JSON.parse(l) as { requestId: string; err?: { message: string; stack: string }; errorCode?: string; status: number });
      const entry = logged.find((l) => l.requestId === p.requestId);
      expect(entry).toMatchObject({ status: 500, errorCode: 'INTERNAL_ERROR' });
      expect(entry?.err?.message).toContain('secret detail');
      expect(entry?.err?.stack).toBeTruthy();
      const e = await gqlError(await gql(fresh, '{ paymentChannels { code } }'), 500, 'INTERNAL_ERROR');
      expect(e.message).toBe('Unexpected error.');
      expect(logged.length).toBeGreaterThan(0);
      const gqlEntry = logLines.map((l) => JSON.parse(l) as { requestId: string; err?: { message: string } }).find((l) => l.requestId === e.extensions.requestId);
      expect(gqlEntry?.err?.message).toContain('secret detail');
    } finally {
      await fresh.close();
    }
  });

  it('SERVICE_UNAVAILABLE (503) when the database cannot be used; /ready says not ready; the app keeps answering', async () => {
    const fresh = await createTestApp();
    try {
      expect((await fresh.fetch('/ready')).status).toBe(200);
      await fresh.breakDatabase();
      await problem(await fresh.signedFetch('/v1/payments/channel'), 503, 'SERVICE_UNAVAILABLE');
      await gqlError(await gql(fresh, '{ paymentChannels { code } }'), 503, 'SERVICE_UNAVAILABLE');
      expect((await fresh.fetch('/ready')).status).toBe(503);
      expect((await fresh.fetch('/health')).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});
