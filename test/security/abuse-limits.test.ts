/**
 * GraphQL abuse limits. Each test would pass a request that the
 * limit must stop if the protection were removed.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ABUSE_LIMITS } from '../../src/pipeline/plugins/use-abuse-limits.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

interface GqlBody {
  data?: unknown;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

let t: TestApp;
let tight: TestApp;
let slow: TestApp;
beforeAll(async () => {
  slow = await createTestApp({ app: { abuseLimits: { ...DEFAULT_ABUSE_LIMITS, executionTimeoutMs: 100 } } });
  t = await createTestApp();
  // Limits low enough that ordinary, valid operations cross them.
  tight = await createTestApp({ app: { abuseLimits: { maxTokens: 40, maxDepth: 2, maxAliases: 2, maxCost: 8, executionTimeoutMs: 5000 } } });
});
afterAll(async () => {
  await t.close();
  await tight.close();
  await slow.close();
});

async function rejected(res: Response, pattern: RegExp): Promise<GqlBody> {
  const body = (await res.json()) as GqlBody;
  expect(res.status).toBe(400);
  expect(body.data).toBeUndefined();
  expect(body.errors?.[0]?.extensions.code).toBe('INVALID_REQUEST');
  expect(body.errors?.map((e) => e.message).join('\n')).toMatch(pattern);
  for (const e of body.errors ?? []) expect(e.message).not.toMatch(/^Syntax Error: .*limit/);
  return body;
}

describe('document limits', () => {
  const deep = '{ paymentChannels { feeInfo { feePercentage } } }';

  it('a depth-3 query passes the default limits', async () => {
    const res = await gql(t, deep);
    expect(res.status).toBe(200);
  });

  it('depth over the limit → 400 INVALID_REQUEST', async () => {
    await rejected(await gql(tight, deep), /depth limit of 2 exceeded/i);
  });

  it('aliases over the default limit (15) → 400', async () => {
    const fields = Array.from({ length: DEFAULT_ABUSE_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: paymentChannels { code }`).join(' ');
    await rejected(await gql(t, `{ ${fields} }`), /aliases limit of 15 exceeded/i);
  });

  it('aliases of __typename count too: 200 of them → 400, and 16 → 400', async () => {
    for (const n of [200, DEFAULT_ABUSE_LIMITS.maxAliases + 1]) {
      const fields = Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ');
      await rejected(await gql(t, `{ ${fields} }`), new RegExp(`aliases limit of 15 exceeded, found ${n}`, 'i'));
    }
    // At the limit it passes: the bound is the limit, not a ban on aliasing __typename.
    const atLimit = Array.from({ length: DEFAULT_ABUSE_LIMITS.maxAliases }, (_, i) => `a${i}: __typename`).join(' ');
    expect((await gql(t, `{ ${atLimit} }`)).status).toBe(200);
  });

  it('tokens over the default limit (1000) → 400', async () => {
    const fields = Array.from({ length: DEFAULT_ABUSE_LIMITS.maxTokens }, () => 'code').join(' ');
    await rejected(await gql(t, `{ paymentChannels { ${fields} } }`), /token limit of 1000 exceeded/i);
  });

  it('cost over the limit → 400', async () => {
    // Well within the token and depth limits, but 2 + 5 × 1.5 = 9.5 > 8.
    await rejected(await gql(tight, '{ paymentChannels { code name status imageUrl currency } }'), /cost limit of 8 exceeded/i);
  });

  it('the same limits apply to REST, which runs the same pipeline', async () => {
    const res = await tight.signedFetch('/v1/payments/channel');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_REQUEST');
  });

  it('batched requests are refused', async () => {
    const body = JSON.stringify([{ query: '{ paymentChannels { code } }' }, { query: '{ paymentChannels { code } }' }]);
    const res = await t.signedFetch('/graphql', { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as GqlBody).errors?.[0]?.extensions.code).toBe('INVALID_REQUEST');
  });
});

describe('field suggestions are hidden', () => {
  it('a mistyped field gets no "Did you mean"', async () => {
    const body = await rejected(await gql(t, '{ paymentChannel { code } }'), /Cannot query field "paymentChannel"/);
    expect(JSON.stringify(body)).not.toMatch(/did you mean|paymentChannels/i);
  });

  it('a mistyped input field in variables gets no "Did you mean"', async () => {
    const res = await gql(t, 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee } }', {
      i: { amout: 1000, amount: 1000, currency: 'IDR', method: 'qris' },
    });
    const body = await rejected(res, /amout/);
    expect(JSON.stringify(body)).not.toMatch(/did you mean/i);
  });

  it('a mistyped argument gets no "Did you mean"', async () => {
    const body = await rejected(await gql(t, '{ calculateFee(inpt: { amount: 1, currency: "IDR", method: "qris" }) { fee } }'), /inpt/);
    expect(JSON.stringify(body)).not.toMatch(/did you mean/i);
  });
});

describe('introspection needs a signature (SVC1; not a checkout session)', () => {
  const query = '{ __schema { queryType { name } types { name } } }';

  it('unsigned introspection (POST and GET) → 401 AUTH_HEADER_MISSING', async () => {
    const post = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    expect(post.status).toBe(401);
    expect(JSON.stringify(await post.json())).not.toContain('queryType');
    const get = await t.fetch(`/graphql?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });
    expect(get.status).toBe(401);
    expect(((await get.json()) as GqlBody).errors?.[0]?.extensions.code).toBe('AUTH_HEADER_MISSING');
  });

  it('the full introspection query GraphiQL sends fits the default limits', async () => {
    const query = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true });
    const res = await gql(t, query);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();
  });

  it('a checkout session (a public secret) cannot introspect: 403 SESSION_SCOPE, POST and GET, fragments included', async () => {
    const created = await t.signedFetch('/v1/checkout/sessions', {
      method: 'POST',
      body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR' }),
    });
    expect(created.status).toBe(201);
    const { clientSecret } = (await created.json()) as { clientSecret: string };
    const bearer = { authorization: `Bearer ${clientSecret}`, 'content-type': 'application/json' };
    const documents = [
      query,
      '{ __type(name: "Mutation") { fields { name } } }',
      '{ ...Q } fragment Q on Query { __schema { types { name } } }',
      getIntrospectionQuery(),
    ];
    for (const document of documents) {
      const res = await t.fetch('/graphql', { method: 'POST', headers: bearer, body: JSON.stringify({ query: document }) });
      const text = await res.text();
      expect(res.status, `${document.slice(0, 60)} → ${text}`).toBe(403);
      const body = JSON.parse(text) as GqlBody;
      expect(body.data ?? null).toBeNull();
      expect(body.errors?.[0]?.extensions.code).toBe('SESSION_SCOPE');
      expect(text).not.toContain('createCheckoutSession');
    }
    const get = await t.fetch(`/graphql?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${clientSecret}`, accept: 'application/json' } });
    expect(get.status).toBe(403);
    // What a checkout needs still works, __typename included (client caches add it everywhere).
    const ok = await t.fetch('/graphql', { method: 'POST', headers: bearer, body: JSON.stringify({ query: '{ __typename paymentChannels { __typename code } }' }) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as GqlBody).errors).toBeUndefined();
  });

  it('signed introspection works', async () => {
    const res = await gql(t, query);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { __schema: { queryType: { name: string } } } };
    expect(body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('execution timeout', () => {
  it('a resolver slower than the budget → 503 SERVICE_UNAVAILABLE on both surfaces', async () => {
    const channels = slow.app.services.channels;
    const original = channels.listForMerchant;
    // A stalled dependency: resolves long after the 100 ms budget.
    channels.listForMerchant = () => new Promise((resolve) => setTimeout(() => resolve([]), 3000)) as never;
    try {
      const res = await gql(slow, '{ paymentChannels { code } }');
      expect(res.status).toBe(503);
      const body = (await res.json()) as GqlBody;
      expect(body.errors?.[0]?.extensions.code).toBe('SERVICE_UNAVAILABLE');
      expect(body.errors?.[0]?.message).toMatch(/did not complete within 100 ms/);

      const rest = await slow.signedFetch('/v1/payments/channel');
      expect(rest.status).toBe(503);
      expect(rest.headers.get('content-type')).toContain('application/problem+json');
      expect(((await rest.json()) as { code: string }).code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      channels.listForMerchant = original;
    }
  });
});
