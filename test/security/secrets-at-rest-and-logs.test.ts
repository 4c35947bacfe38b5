/**
 * Claims of SECURITY.md about key storage and logging: API secrets never
 * appear in the database file or its WAL in plaintext, and the request log
 * holds no secret, signature, body or query string.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../helpers/engine.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
const logLines: string[] = [];
beforeAll(async () => {
  t = await createTestApp({ logLines });
});
afterAll(() => t.close());

describe('secrets at rest', () => {
  // The SQLite files are on disk here; Postgres keeps its files in its own data directory (same ciphertexts).
  it.skipIf(TEST_ENGINE === 'postgres')('the database files hold no API secret in plaintext', async () => {
    await t.sql().exec('pragma wal_checkpoint(PASSIVE)');
    const files = fs.readdirSync(t.dataDir).filter((f) => f.startsWith('gateway.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = fs.readFileSync(path.join(t.dataDir, f));
      for (const m of [t.approved, t.pending]) {
        expect(bytes.includes(Buffer.from(m.apiSecret)), `${f} contains a secret`).toBe(false);
        // …while the key ids are there (so the search itself works).
        if (f === 'gateway.db') expect(bytes.includes(Buffer.from(m.apiKey))).toBe(true);
      }
    }
  });
});

describe('what is logged', () => {
  it('one line per request with id, method, path, status, merchant and error code — nothing secret', async () => {
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId });
    await t.signedFetch('/v1/payments/calculate?probe=query-text', { method: 'POST', body });
    await gql(t, '{ paymentChannels { code } }');
    await t.signedFetch('/v1/payments/channel', { as: { ...t.approved, apiSecret: 'sk_test_wrong' } });
    expect(logLines.length).toBeGreaterThanOrEqual(3);
    const all = logLines.join('\n');
    for (const secret of [t.approved.apiSecret, t.pending.apiSecret, 'sk_test_wrong', 'query-text', '150000', 'paymentChannels', 'X-SERVICE-Signature']) {
      expect(all).not.toContain(secret);
    }
    const first = JSON.parse(logLines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ method: 'POST', route: '/v1/payments/calculate', status: 200, merchantId: t.approved.merchantId });
    expect(typeof first.requestId).toBe('string');
    const failed = JSON.parse(logLines[2]!) as Record<string, unknown>;
    expect(failed).toMatchObject({ status: 401, errorCode: 'SIGNATURE_MISMATCH' });
  });
});
