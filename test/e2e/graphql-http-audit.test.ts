/**
 * GraphQL over HTTP conformance: graphql-http's own server
 * audits against the real server on a loopback port, every audit request
 * signed per SVC1 (the endpoint accepts nothing unsigned). Zero errors;
 * warnings are listed in the test output and in docs/security.md.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auditServer, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let server: Server;
let url: string;

beforeAll(async () => {
  t = await createTestApp();
  t.clock.now = Date.now();
  server = createServer(t.app.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

/** fetch that signs every request like a merchant client (method, target as sent, timestamp, key, body hash). */
async function signedFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const target = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const body = init.body == null ? '' : init.body;
  if (typeof body !== 'string') throw new Error('audit sent a non-string body');
  const headers = new Headers(init.headers);
  const signed = signatureHeaders(t.approved.apiKey, t.approved.apiSecret, {
    method: init.method ?? 'GET',
    target: `${target.pathname}${target.search}`,
    body,
    timestamp: String(Math.floor(t.clock.now / 1000)),
  });
  for (const [k, v] of Object.entries(signed)) headers.set(k, v);
  return fetch(input, { ...init, headers });
}

describe('graphql-http server audits', () => {
  let results: AuditResult[];
  beforeAll(async () => {
    results = await auditServer({ url, fetchFn: signedFetch });
  });

  it('has zero errors', async () => {
    const errors = results.filter((r) => r.status === 'error');
    const describeResult = async (r: AuditResult) => (r.status === 'ok' ? r.name : `${r.name}: ${r.reason}\n${await r.response.clone().text().catch(() => '')}`);
    expect(await Promise.all(errors.map(describeResult))).toEqual([]);
  });

  it('lists its warnings (SHOULD-level differences, documented)', () => {
    const warnings = results.filter((r) => r.status === 'warn').map((r) => `${r.id} ${r.name}: ${r.status === 'warn' ? r.reason : ''}`);
    console.info(`graphql-http audit: ${results.length} audits, ${results.filter((r) => r.status === 'ok').length} ok, ${warnings.length} warnings\n${warnings.join('\n')}`);
    expect(results.filter((r) => r.status === 'ok').length).toBeGreaterThan(20);
  });
});
