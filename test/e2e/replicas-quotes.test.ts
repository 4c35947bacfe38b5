/**
 * Contract §11 across replicas: three replicas of the real server (the built bundle) on one throwaway
 * Postgres, each with its own DATA_DIR, started at the same moment (the boot lock and the one-signing-key
 * index leave exactly one signing key). A quote made on one replica verifies on the others (endpoint, and
 * offline with jose against another replica's JWKS); after `quote-keys rotate` with the admin CLI every
 * replica signs with the new key within 1 s, and the old quotes still verify everywhere. A fourth replica with a
 * longer QUOTE_TTL_SECONDS records it on the key before it signs, so the key stays published for its quotes.
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { makeTempDir } from '../helpers/app.js';
import { localServicesSkipReason, startPostgres, type LocalService } from '../helpers/local-services.js';
import { admin, onEvery, startServer, type RunningServer } from '../helpers/ops.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const skip = localServicesSkipReason('postgres');
const CONTRACT_PROPAGATION_MS = 1000;
const ISSUER = 'https://pay.example.test';

let postgres: LocalService;
let replicas: RunningServer[] = [];
let dirs: string[] = [];
let env: Record<string, string>;
let approved: DemoMerchantCredentials;

function signed(baseUrl: string, target: string, body: unknown): Promise<Response> {
  const text = JSON.stringify(body);
  const headers = { ...signatureHeaders(approved.apiKey, approved.apiSecret, { method: 'POST', target, body: text }), 'content-type': 'application/json' };
  return fetch(`${baseUrl}${target}`, { method: 'POST', headers, body: text });
}

async function quoteOn(baseUrl: string): Promise<string> {
  const res = await signed(baseUrl, '/v1/payments/calculate', { amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: approved.merchantId, quote: true });
  expect(res.status).toBe(200);
  return ((await res.json()) as { quote: string }).quote;
}

/** The admin CLI on the replicas' database (their environment), `--json`. */
async function adminJson<T>(args: string[]): Promise<T> {
  const r = await admin(dirs[0]!, [...args, '--json'], env);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  expect(r.stdout + r.stderr).not.toMatch(/"d":|private_key_ciphertext|privateKeyCiphertext/);
  return JSON.parse(r.stdout) as T;
}

async function jwksOf(baseUrl: string): Promise<JSONWebKeySet> {
  return (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
}

describe.skipIf(skip)('fee quotes on three replicas on one Postgres', () => {
  beforeAll(async () => {
    postgres = await startPostgres();
    env = { DATABASE_URL: postgres.url, MASTER_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'info', PUBLIC_BASE_URL: ISSUER };
    dirs = [makeTempDir('pgw-q1-'), makeTempDir('pgw-q2-'), makeTempDir('pgw-q3-')];
    replicas = await Promise.all(dirs.map((d) => startServer(d, env)));
    const seededDir = dirs.find((d) => fs.existsSync(path.join(d, 'demo-credentials.json')))!;
    approved = (JSON.parse(fs.readFileSync(path.join(seededDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants.find((m) => m.kyc === 'approved')!;
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
    await postgres?.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('started together, they share exactly one signing key, and never log key material', async () => {
    const keys = await adminJson<{ id: string; state: string }[]>(['quote-keys', 'list']);
    expect(keys.filter((k) => k.state === 'signing')).toHaveLength(1);
    for (const r of replicas) expect((await jwksOf(r.baseUrl)).keys.map((k) => k.kid)).toEqual([keys[0]!.id]);
    expect(JSON.stringify(keys)).not.toMatch(/ciphertext|"d"|"x"/);
  });

  it('a quote made on one replica verifies on the others, and offline against another replica’s JWKS', async () => {
    const token = await quoteOn(replicas[0]!.baseUrl);
    for (const r of replicas.slice(1)) {
      const res = await signed(r.baseUrl, '/v1/payments/quotes/verify', { quote: token });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ totalAmount: 151050, method: 'qris', merchantId: approved.merchantId });
    }
    const { payload } = await jwtVerify(token, createLocalJWKSet(await jwksOf(replicas[2]!.baseUrl)), { issuer: ISSUER, typ: 'fee-quote+jwt', algorithms: ['EdDSA'] });
    expect(payload).toMatchObject({ sub: approved.merchantId, totalAmount: 151050 });
  });

  it('after `quote-keys rotate` every replica signs with the new key within 1 s; old quotes still verify everywhere', async () => {
    const old = await quoteOn(replicas[1]!.baseUrl);
    const rotated = await adminJson<{ signing: { id: string }; retired: { id: string } }>(['quote-keys', 'rotate', '--actor', 'replicas-quotes-test']);
    expect(rotated.retired.id).toBe(decodeProtectedHeader(old).kid);
    const elapsed = await onEvery(replicas.map((r) => r.baseUrl), CONTRACT_PROPAGATION_MS, async (url) => decodeProtectedHeader(await quoteOn(url)).kid === rotated.signing.id);
    expect(elapsed).toBeLessThan(CONTRACT_PROPAGATION_MS);
    for (const r of replicas) {
      expect((await jwksOf(r.baseUrl)).keys.map((k) => k.kid)).toEqual([rotated.signing.id, rotated.retired.id]);
      expect((await signed(r.baseUrl, '/v1/payments/quotes/verify', { quote: old })).status).toBe(200);
    }
    const audit = await adminJson<{ action: string; actor: string }[]>(['audit', 'list', '--entity', rotated.signing.id]);
    expect(audit[0]).toMatchObject({ action: 'quote-key.rotate', actor: 'replicas-quotes-test' });
    // Audited, never logged: no replica's log carries key material.
    for (const r of replicas) expect(r.stdout() + r.stderr()).not.toMatch(/"d":|private_key_ciphertext|privateKeyCiphertext/);
  });

  it('a replica with a longer QUOTE_TTL_SECONDS (a rolling change) records it on the key before it signs: after a rotation the key is published until its 1-hour quote has expired', async () => {
    const dir = makeTempDir('pgw-q4-');
    dirs.push(dir);
    const longer = await startServer(dir, { ...env, QUOTE_TTL_SECONDS: '3600' });
    replicas.push(longer);
    const hour = ((await (await signed(longer.baseUrl, '/v1/payments/calculate', { amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: approved.merchantId, quote: true })).json()) as { quote: string; quoteExpiresAt: string });
    expect(Date.parse(hour.quoteExpiresAt) - Date.now()).toBeGreaterThan(3500_000);
    const rotated = await adminJson<{ retired: { id: string; maxTtlSeconds: number; retiredAt: string; publishedUntil: string } }>(['quote-keys', 'rotate']);
    expect(rotated.retired.id).toBe(decodeProtectedHeader(hour.quote).kid);
    expect(rotated.retired.maxTtlSeconds).toBe(3600);
    // Every replica (the others sign with 900 s) publishes it until the hour quote has expired, plus the margin.
    expect(Date.parse(rotated.retired.publishedUntil)).toBeGreaterThanOrEqual(Date.parse(hour.quoteExpiresAt) + 59_000);
    await onEvery(replicas.map((r) => r.baseUrl), CONTRACT_PROPAGATION_MS, async (url) => (await jwksOf(url)).keys.some((k) => k.kid === rotated.retired.id));
    for (const r of replicas) expect((await signed(r.baseUrl, '/v1/payments/quotes/verify', { quote: hour.quote })).status).toBe(200);
  });
});
