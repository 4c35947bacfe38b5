/**
 * Hostile inputs on both surfaces over a real socket: garbage
 * and deeply nested JSON, wrong types, extreme numbers, unicode and control
 * characters in every field and header, duplicate and oversized headers.
 * Invariants for every response: no 5xx, no stack trace or internals, no
 * other merchant's data, and the process keeps serving.
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { LEAK, serveRaw, type RawResponse, type RawServer } from '../helpers/raw-http.js';

// Many sequential requests: generous on a shared, loaded machine (no timing is asserted).
vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
let raw: RawServer;

beforeAll(async () => {
  t = await createTestApp({ app: { rateLimit: { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9 } } });
  t.clock.now = Date.now();
  raw = await serveRaw(t);
});
afterAll(async () => {
  await raw.close();
  await t.close();
});

/** The invariants every response must satisfy; `as` is the caller (approved unless given). */
function assertSafe(res: RawResponse, context: string): void {
  const where = `${context} → ${res.status} ${res.body.slice(0, 300)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(200);
  expect(res.status, where).toBeLessThan(500);
  expect(res.body, where).not.toMatch(LEAK);
  // Nothing of the other merchant, and no secret of anyone.
  for (const leak of [t.pending.merchantId, t.pending.apiKey, t.pending.name, t.pending.apiSecret, t.approved.apiSecret]) {
    expect(res.body.includes(leak), `${where} leaks ${leak}`).toBe(false);
  }
}

function signed(method: string, target: string, body: string, extra: Record<string, string> = {}) {
  const headers = {
    'Content-Type': 'application/json',
    ...signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method, target, body, timestamp: String(Math.floor(t.clock.now / 1000)) }),
    ...extra,
  };
  return raw.send(method, target, headers, body);
}

const calculate = (body: string) => signed('POST', '/v1/payments/calculate', body);
const graphql = (body: string) => signed('POST', '/graphql', body);

const EXTREME_NUMBERS = ['1e309', '-1e309', '-0', '0', '9007199254740993', '-9007199254740993', '1e-400', '0.1e1', '1E2', '123456789012345678901234567890', '0.0000001', '150000.5'];
const EXTREME_VALUES = [...EXTREME_NUMBERS, '"NaN"', '"Infinity"', '"-0"', 'null', 'true', '[]', '{}', '""', '"\\u0000"', '"\\ud800"', `"${'9'.repeat(5000)}"`];
const STRINGS = ['', ' ', '\u0000', '\u0007\b\f', '\u202e\u200b', 'Ｑｒｉｓ', 'QRIS\u0000', '🦄'.repeat(500), "'; drop table merchants; --", '<script>', '%00', 'x'.repeat(70_000)];

describe('REST calculate: hostile bodies', () => {
  it('extreme numbers and wrong types in every field', async () => {
    const base: Record<string, string> = {
      amount: '150000',
      currency: '"IDR"',
      method: '"QRIS"',
      merchantId: JSON.stringify(t.approved.merchantId),
      chargeFeeToCustomer: 'true',
    };
    for (const field of Object.keys(base)) {
      for (const value of [...EXTREME_VALUES, ...STRINGS.map((s) => JSON.stringify(s))]) {
        const body = `{${Object.entries({ ...base, [field]: value })
          .map(([k, v]) => `"${k}":${v}`)
          .join(',')}}`;
        assertSafe(await calculate(body), `${field}=${value.slice(0, 40)}`);
      }
    }
  });

  it('-0, 2^53+1 and 1e309 are refused as values, never computed with as floats', async () => {
    const body = (amount: string) => `{"amount":${amount},"currency":"IDR","method":"QRIS","merchantId":"${t.approved.merchantId}"}`;
    const zero = await calculate(body('-0'));
    expect(zero.status).toBe(400);
    expect(JSON.parse(zero.body)).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
    // JSON.parse already rounded it to 2^53; the Decimal scalar refuses magnitudes it cannot hold exactly.
    const huge = await calculate(body('9007199254740993'));
    expect(huge.status).toBe(400);
    expect(JSON.parse(huge.body)).toMatchObject({ code: 'INVALID_REQUEST' });
    const inf = await calculate(body('1e309'));
    expect(inf.status).toBe(400);
  });

  it('garbage, deeply nested and random JSON', async () => {
    for (const body of ['', '{', 'null', '[]', '"x"', '\u0000\u0001', '\xff\xfe', '{"amount":1,"amount":2}', '[' .repeat(50_000), `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`]) {
      assertSafe(await calculate(body), `body ${JSON.stringify(body.slice(0, 20))}`);
    }
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json({ maxDepth: 6 }), fc.string({ unit: 'binary', maxLength: 300 })), async (body) => {
        assertSafe(await calculate(body), `random ${body.slice(0, 60)}`);
      }),
      { numRuns: 120 },
    );
  });

  it('non-UTF-8 bytes', async () => {
    const body = Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]);
    const headers = {
      'Content-Type': 'application/json',
      ...signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: '/v1/payments/calculate', body, timestamp: String(Math.floor(t.clock.now / 1000)) }),
    };
    const res = await raw.send('POST', '/v1/payments/calculate', headers, body);
    assertSafe(res, 'invalid utf-8');
    expect(res.status).toBe(400);
  });
});

describe('GraphQL: hostile documents and variables', () => {
  const op = 'query($input: CalculateFeeInput!) { calculateFee(input: $input) { fee totalAmount } }';

  it('extreme values in every input field (variables and literals)', async () => {
    const base: Record<string, string> = { amount: '150000', currency: '"IDR"', method: '"QRIS"', merchantId: JSON.stringify(t.approved.merchantId), chargeFeeToCustomer: 'true' };
    for (const field of Object.keys(base)) {
      for (const value of [...EXTREME_VALUES, ...STRINGS.slice(0, -1).map((s) => JSON.stringify(s))]) {
        const input = `{${Object.entries({ ...base, [field]: value })
          .map(([k, v]) => `"${k}":${v}`)
          .join(',')}}`;
        assertSafe(await graphql(`{"query":${JSON.stringify(op)},"variables":{"input":${input}}}`), `var ${field}=${value.slice(0, 40)}`);
        const literal = `{ calculateFee(input: { ${Object.entries({ ...base, [field]: value })
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')} }) { fee } }`;
        assertSafe(await graphql(JSON.stringify({ query: literal })), `literal ${field}=${value.slice(0, 40)}`);
      }
    }
  });

  it('garbage, deeply nested and random bodies and documents', async () => {
    for (const body of ['', '{', '{"query":1}', '{"query":null}', '{"query":"{"}', '{"query":"{ paymentChannels { code } }","variables":"x"}', '{"query":"{ paymentChannels { code } }","operationName":{}}', '[' .repeat(50_000), `{"query":"${'{ a '.repeat(5000)}"}`, `{"query":"query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee } }","variables":{"i":${'['.repeat(20_000)}1${']'.repeat(20_000)}}}`]) {
      assertSafe(await graphql(body), `body ${JSON.stringify(body.slice(0, 30))}`);
    }
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json({ maxDepth: 5 }), fc.string({ unit: 'binary', maxLength: 300 }).map((q) => JSON.stringify({ query: q })), fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify({ query: op, variables: { input: v } }))), async (body) => {
        assertSafe(await graphql(body), `random ${body.slice(0, 60)}`);
      }),
      { numRuns: 150 },
    );
  });
});

/** Raw bytes on a socket: header values no HTTP client library would send. */
function rawRequest(text: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(raw.port, '127.0.0.1', () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const response = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
      resolve({ status, headers: {}, body: response.slice(response.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('headers: control characters, unicode, duplicates, oversize', () => {
  const target = '/v1/payments/channel';
  const good = () => signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'GET', target, timestamp: String(Math.floor(t.clock.now / 1000)) });

  it('odd bytes in each header (latin-1, tab, controls, UTF-8)', async () => {
    const odd = ['\t', '\x01', '\x7f', '\xe9', '\u00ff\u00fe', 'é', '🦄', '\x00', ' '.repeat(100)];
    for (const name of ['X-SERVICE-API-Key', 'X-SERVICE-Timestamp', 'X-SERVICE-Signature', 'Content-Type', 'X-Request-Id', 'Accept']) {
      for (const value of odd) {
        for (const where of ['prefix', 'replace'] as const) {
          const headers: Record<string, string> = { ...good() };
          headers[name] = where === 'prefix' ? `${value}${headers[name] ?? 'x'}` : value;
          const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
          const request = Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines.join('\r\n')}\r\n\r\n`, 'utf8');
          const res = await rawRequest(request);
          expect(res.status, `${name} ${where} ${JSON.stringify(value)}`).toBeGreaterThanOrEqual(200);
          assertSafe(res, `${name} ${where} ${JSON.stringify(value)}`);
        }
      }
    }
  });

  it('duplicate authentication headers are rejected with the contract code', async () => {
    const h = good();
    const cases: [string, string][] = [
      ['X-SERVICE-Signature', 'SIGNATURE_MALFORMED'],
      ['X-SERVICE-Timestamp', 'TIMESTAMP_INVALID'],
      ['X-SERVICE-API-Key', 'INVALID_API_KEY'],
    ];
    for (const [name, code] of cases) {
      const pairs = Object.entries(h);
      pairs.push([name, h[name as keyof typeof h]]);
      const res = await raw.send('GET', target, pairs);
      assertSafe(res, `duplicate ${name}`);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body).code).toBe(code);
    }
    const dupLength = await rawRequest(`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{}`);
    expect(dupLength.status).toBe(400);
  });

  it('oversized headers and targets are refused by the HTTP layer (431), not crashed on', async () => {
    const big = await raw.send('GET', target, { ...good(), 'X-Filler': 'a'.repeat(20_000) });
    expect(big.status).toBe(431);
    const longTarget = await raw.send('GET', `${target}?${'q'.repeat(20_000)}`, good());
    expect(longTarget.status).toBe(431);
  });

  it('the process is still serving afterwards', async () => {
    const res = await raw.send('GET', target, good());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.length).toBeGreaterThan(0);
  });
});
