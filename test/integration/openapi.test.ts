/**
 * The OpenAPI document: valid OpenAPI 3.1 (maintained validator), public,
 * and true: every documented example is reproduced against the running app
 * and compared with the actual response, and every response is validated
 * against its documented schema (ajv, JSON Schema 2020-12).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/shared/errors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { RECIPES, VOLATILE } from '../helpers/openapi-recipes.js';

type Json = Record<string, any>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.fetch('/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = (await res.json()) as Json;
});
afterAll(() => t.close());

/** Live value matches the example: same members; equal values except volatile ones; example arrays are subsets. */
function mismatches(live: unknown, example: unknown, at = '$'): string[] {
  if (Array.isArray(example)) {
    if (!Array.isArray(live)) return [`${at}: expected an array`];
    return example.flatMap((e, i) => (live.some((l) => mismatches(l, e).length === 0) ? [] : [`${at}[${i}]: no live element matches ${JSON.stringify(e)}`]));
  }
  if (example && typeof example === 'object') {
    if (!live || typeof live !== 'object') return [`${at}: expected an object`];
    const l = live as Json;
    const e = example as Json;
    const keys = new Set([...Object.keys(l), ...Object.keys(e)]);
    return [...keys].flatMap((k) => {
      if (!(k in l)) return [`${at}.${k}: missing in the live response`];
      if (!(k in e)) return [`${at}.${k}: not in the example`];
      return VOLATILE.has(k) ? [] : mismatches(l[k], e[k], `${at}.${k}`);
    });
  }
  return Object.is(live, example) ? [] : [`${at}: live ${JSON.stringify(live)} ≠ example ${JSON.stringify(example)}`];
}

function responseValidator(): (path: string, method: string, status: number, body: unknown) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'https://gateway.test/openapi.json', components: doc.components }, 'openapi');
  return (path, method, status, body) => {
    const response = doc.paths[path][method].responses[String(status)];
    if (!response) return [`status ${status} is not documented for ${method.toUpperCase()} ${path}`];
    const media = response.content?.['application/json'] ?? response.content?.['application/problem+json'];
    const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"https://gateway.test/openapi.json#/components/'));
    const validate = ajv.compile(schema);
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe('GET /v1/openapi.json', () => {
  it('is public and a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('documents the three SVC1 headers on every operation and every code each route can return', () => {
    expect(Object.values<Json>(doc.components.securitySchemes).filter((s) => s.type === 'apiKey').map((s) => s.name)).toEqual(['X-SERVICE-API-Key', 'X-SERVICE-Timestamp', 'X-SERVICE-Signature']);
    // Contract §9: the channel list also takes a checkout session's client secret.
    expect(doc.components.securitySchemes.CheckoutSession).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/payments/channel'].get.security).toEqual([{ SVC1ApiKey: [], SVC1Timestamp: [], SVC1Signature: [] }, { CheckoutSession: [] }]);
    expect(doc.security).toEqual([{ SVC1ApiKey: [], SVC1Timestamp: [], SVC1Signature: [] }]);
    const documented = (path: string, method: string) =>
      Object.entries<Json>(doc.paths[path][method].responses).flatMap(([status, r]) => {
        const codes = (r.content?.['application/problem+json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? []) as string[];
        for (const c of codes) expect(ERROR_STATUS[c as keyof typeof ERROR_STATUS], `${c} under ${status}`).toBe(Number(status));
        return codes;
      });
    const calc = documented('/v1/payments/calculate', 'post');
    for (const c of ['AUTH_HEADER_MISSING', 'TIMESTAMP_EXPIRED', 'SIGNATURE_MISMATCH', 'INVALID_REQUEST', 'MERCHANT_MISMATCH', 'KYC_REQUIRED', 'CHANNEL_NOT_FOUND', 'CHANNEL_UNAVAILABLE', 'UNSUPPORTED_CURRENCY', 'AMOUNT_OUT_OF_RANGE', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']) {
      expect(calc).toContain(c);
    }
    const list = documented('/v1/payments/channel', 'get');
    expect(list).toContain('SIGNATURE_MISMATCH');
    expect(list).not.toContain('KYC_REQUIRED');
  });

  it('every documented example matches the live response and its schema', async () => {
    const validate = responseValidator();
    let checked = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        // Request examples must be valid request bodies.
        for (const [name, ex] of Object.entries<Json>(op.requestBody?.content?.['application/json']?.examples ?? {})) {
          const key = `${path} 200 ${name}`;
          expect(RECIPES[key], `request example ${name} has a paired 200 response example`).toBeDefined();
          expect(op.responses['200'].content['application/json'].examples[name]).toBeDefined();
          expect(ex.value.merchantId).toBe(t.approved.merchantId);
        }
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          const media = response.content?.['application/json'] ?? response.content?.['application/problem+json'];
          for (const [name, ex] of Object.entries<Json>(media?.examples ?? {})) {
            const key = `${path} ${status} ${name}`;
            const recipe = RECIPES[key];
            expect(recipe, `no live recipe for example ${key}`).toBeDefined();
            const res = await recipe!(t);
            expect(res.status, key).toBe(Number(status));
            const body = await res.json();
            expect(mismatches(body, ex.value), key).toEqual([]);
            expect(validate(path, method, res.status, body), key).toEqual([]);
            expect(validate(path, method, Number(status), ex.value), `${key} (example itself)`).toEqual([]);
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(Object.keys(RECIPES).length);
  });

  it('the reference page renders each operation\'s own security alternatives as headers (no "undefined" header)', async () => {
    const html = await (await t.fetch('/docs')).text();
    expect(html).not.toContain('undefined');
    const section = (id: string) => {
      const m = new RegExp(`<section id="${id}">([\\s\\S]*?)</section>`).exec(html);
      expect(m, `section ${id}`).not.toBeNull();
      // The Headers table alone: from its heading to the next one.
      const text = m![1]!.slice(m![1]!.indexOf('<h3>Headers</h3>'));
      return text.slice(0, text.indexOf('<h3>', 4));
    };
    const doc = (await (await t.fetch('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string; security?: unknown[] }>> };
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const list = ops.find((op) => (op.security?.length ?? 0) > 1)!;
    const single = ops.filter((op) => op.security === undefined || op.security.length === 1);
    expect(list, 'an operation a checkout session may call').toBeDefined();
    expect(single.length).toBeGreaterThan(0);
    // Session-capable: two ways, the SVC1 headers required only with the signature, or a Bearer Authorization.
    const headers = section(list.operationId);
    expect(headers).toContain('Either (all 3 headers): SVC1ApiKey + SVC1Timestamp + SVC1Signature');
    expect(headers).toContain('<code>X-SERVICE-Signature</code> <span class="req">required this way</span>');
    expect(headers).toContain('or (one header): CheckoutSession');
    expect(headers).toContain('<code>Authorization: Bearer …</code>');
    expect(headers).not.toMatch(/X-SERVICE-Signature<\/code> <span class="req">required<\/span>/);
    expect(headers).toContain('<code>If-None-Match</code>');
    // Signature only: the three SVC1 headers each required, no Authorization.
    for (const op of single) {
      const h = section(op.operationId);
      for (const name of ['X-SERVICE-API-Key', 'X-SERVICE-Timestamp', 'X-SERVICE-Signature']) expect(h, `${op.operationId} ${name}`).toContain(`<code>${name}</code> <span class="req">required</span>`);
      expect(h, op.operationId).not.toContain('Authorization');
    }
  });

  it('the reference page is public HTML without any external asset', async () => {
    const res = await t.fetch('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('/v1/payments/calculate');
    expect(html).toContain('X-SERVICE-Signature');
    expect(html).toContain('AMOUNT_OUT_OF_RANGE');
    expect(html).not.toMatch(/<script\b/i);
    // The one <link> is the icon, inline (a data: URL), so the browser asks nothing else of anyone.
    expect([...html.matchAll(/<link\b[^>]*>/gi)].map((m) => m[0])).toEqual([expect.stringMatching(/^<link rel="icon" href="data:image\/svg\+xml,/)]);
    expect(html).not.toMatch(/(src|href)="https?:/i);
    expect((await t.fetch('/v1/openapi.json', { method: 'POST' })).status).toBe(405);
  });
});
