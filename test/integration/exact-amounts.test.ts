/**
 * Amounts sent as JSON numbers are exact (contract §5 "Money", §2b; src/shared/json-numbers.ts): a number a
 * double would change reaches the money code as its decimal text, on every surface that takes one (REST
 * calculate, session creation over REST and GraphQL, GraphQL variables in a POST body and in a GET query),
 * and an amount with more decimals than its currency allows is refused with `field`, as the literal is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const CALC = 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { amount fee totalAmount } }';
const CREATE = 'mutation($i: CreateCheckoutSessionInput!) { createCheckoutSession(input: $i) { amount } }';
/** 150000 minus 10^-20: a double rounds it to 150000. */
const NEAR = '149999.99999999999999999999';

const rest = (path: string, bodyText: string) => t.signedFetch(path, { method: 'POST', body: bodyText });
const graphqlPost = (query: string, variablesText: string) => t.signedFetch('/graphql', { method: 'POST', body: `{"query":${JSON.stringify(query)},"variables":${variablesText}}` });
const graphqlGet = (query: string, variablesText: string) =>
  t.signedFetch(`/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variablesText)}`, { headers: { accept: 'application/json' } });

interface Problem {
  code?: string;
  field?: string;
  detail?: string;
}
interface GqlAnswer {
  data?: Record<string, Record<string, number> | null> | null;
  errors?: { message: string; extensions: { code: string; field?: string } }[];
}

describe('an amount a double would round', () => {
  it(`REST calculate refuses ${NEAR} IDR with field amount (not priced as 150000)`, async () => {
    const res = await rest('/v1/payments/calculate', `{"amount":${NEAR},"currency":"IDR","method":"qris","merchantId":"${t.approved.merchantId}"}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Problem;
    expect(body).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
    expect(body.detail).toMatch(/more decimals than IDR allows/);
  });

  it('GraphQL variables refuse it the same way, in a POST body and in a GET query, as the literal does', async () => {
    for (const res of [await graphqlPost(CALC, `{"i":{"amount":${NEAR},"currency":"IDR","method":"qris"}}`), await graphqlGet(CALC, `{"i":{"amount":${NEAR},"currency":"IDR","method":"qris"}}`)]) {
      const body = (await res.json()) as GqlAnswer;
      expect(body.data?.calculateFee ?? null).toBeNull();
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
      expect(body.errors?.[0]?.message).toMatch(/more decimals than IDR allows/);
    }
    const literal = (await (await t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: `{ calculateFee(input: { amount: ${NEAR}, currency: "IDR", method: "qris" }) { fee } }` }) })).json()) as GqlAnswer;
    expect(literal.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
  });

  it('session creation refuses it over REST and GraphQL', async () => {
    const viaRest = await rest('/v1/checkout/sessions', `{"amount":${NEAR},"currency":"IDR"}`);
    expect(viaRest.status).toBe(400);
    expect(await viaRest.json()).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
    const viaGraphql = (await (await graphqlPost(CREATE, `{"i":{"amount":${NEAR},"currency":"IDR"}}`)).json()) as GqlAnswer;
    expect(viaGraphql.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
  });

  it('a USD amount with a third decimal hidden past a double is refused for it; 2 decimals are not', async () => {
    // 100.0100000000000000001 is 100.01 to a double.
    const hidden = (await (await graphqlPost(CREATE, '{"i":{"amount":100.0100000000000000001,"currency":"USD"}}')).json()) as GqlAnswer;
    expect(hidden.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
    expect(hidden.errors?.[0]?.message).toMatch(/more decimals than USD allows/);
    // (The demo merchant has no USD channel: 100.01 passes the amount's rules and is refused for its currency.)
    const cents = (await (await graphqlPost(CREATE, '{"i":{"amount":100.01,"currency":"USD"}}')).json()) as GqlAnswer;
    expect(cents.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'currency' });
  });

  it('beyond a double (1e400, 1e-400) is refused with field amount, not Infinity or 0', async () => {
    for (const text of ['1e400', '1e-400']) {
      const res = await rest('/v1/payments/calculate', `{"amount":${text},"currency":"IDR","method":"qris","merchantId":"${t.approved.merchantId}"}`);
      expect(res.status, text).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
    }
  });
});

describe('another spelling of an exact amount', () => {
  it('150000.0 and 1.5e5 are 150000: priced like it on both surfaces', async () => {
    const plain = (await (await rest('/v1/payments/calculate', `{"amount":150000,"currency":"IDR","method":"qris","merchantId":"${t.approved.merchantId}"}`)).json()) as Record<string, number>;
    expect(plain.amount).toBe(150000);
    for (const text of ['150000.0', '1.5e5', '150000.000000000000000000000', '1500000000000000000000e-16']) {
      const viaRest = await rest('/v1/payments/calculate', `{"amount":${text},"currency":"IDR","method":"qris","merchantId":"${t.approved.merchantId}"}`);
      expect(viaRest.status, text).toBe(200);
      expect(await viaRest.json()).toEqual(plain);
      const viaGraphql = (await (await graphqlPost(CALC, `{"i":{"amount":${text},"currency":"IDR","method":"qris"}}`)).json()) as GqlAnswer;
      expect(viaGraphql.data?.calculateFee).toEqual({ amount: 150000, fee: plain.fee, totalAmount: plain.totalAmount });
    }
  });
});
