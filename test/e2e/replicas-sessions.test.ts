/**
 * Contract §9 on three replicas of the real server (the built bundle) on one Postgres and one Redis, each
 * with its own DATA_DIR and the same MASTER_KEY: a checkout session created through one replica works on
 * the others at once (nothing is stored per session); revoking its API key with the admin CLI ends it on
 * all three within 1 s, its open event stream included; its rate budget and its 2 open event streams are
 * one budget across replicas.
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { makeTempDir } from '../helpers/app.js';
import { localServicesSkipReason, startPostgres, startRedis, type LocalService } from '../helpers/local-services.js';
import { admin, onEvery, startServer, type RunningServer } from '../helpers/ops.js';
import { CHANNELS_SUBSCRIPTION, openEventStream } from '../helpers/sse.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const skip = localServicesSkipReason('postgres', 'redis');
const CONTRACT_PROPAGATION_MS = 1000;

let postgres: LocalService;
let redis: LocalService;
let replicas: RunningServer[] = [];
let dirs: string[] = [];
let env: Record<string, string>;
let approved: DemoMerchantCredentials;

interface Created {
  id: string;
  clientSecret: string;
}

/** Sessions created so far: each creation is another signed request (a replay would return the same session). */
let created = 0;

async function createSession(baseUrl: string, who: { apiKey: string; apiSecret: string }): Promise<Created> {
  const target = '/v1/checkout/sessions';
  const body = JSON.stringify({ amount: 150000 + created++, currency: 'IDR', methods: ['qris', 'ovo'] });
  const res = await fetch(`${baseUrl}${target}`, {
    method: 'POST',
    headers: { ...signatureHeaders(who.apiKey, who.apiSecret, { method: 'POST', target, body }), 'content-type': 'application/json' },
    body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
}

function list(baseUrl: string, secret: string, origin?: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/payments/channel`, { headers: { Authorization: `Bearer ${secret}`, ...(origin ? { Origin: origin } : {}) } });
}

/** Poll every replica until `ok(replica)` holds on all of them; returns the elapsed ms, or throws after `limitMs`. */
const onAll = (limitMs: number, ok: (baseUrl: string) => Promise<boolean>): Promise<number> => onEvery(replicas.map((s) => s.baseUrl), limitMs, ok);

describe.skipIf(skip)('checkout sessions on three replicas', () => {
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    env = { DATABASE_URL: postgres.url, REDIS_URL: redis.url, MASTER_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'info' };
    dirs = [makeTempDir('pgw-s1-'), makeTempDir('pgw-s2-'), makeTempDir('pgw-s3-')];
    replicas = await Promise.all(dirs.map((d) => startServer(d, env)));
    const seeded = dirs.find((d) => fs.existsSync(path.join(d, 'demo-credentials.json')))!;
    const merchants = (JSON.parse(fs.readFileSync(path.join(seeded, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
    approved = merchants.find((m) => m.kyc === 'approved')!;
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
    await Promise.all([postgres?.stop(), redis?.stop()]);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a session created through one replica works on the others at once, from an allowed origin too', async () => {
    const s = await createSession(replicas[0]!.baseUrl, approved);
    for (const r of replicas) {
      const res = await list(r.baseUrl, s.clientSecret, 'http://localhost:4100');
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:4100');
      expect(((await res.json()) as { data: { code: string }[] }).data.map((c) => c.code).sort()).toEqual(['ovo', 'qris']);
      expect((await list(r.baseUrl, s.clientSecret, 'https://evil.example')).status).toBe(403);
    }
  });

  it('revoking its key with the admin CLI ends it on all 3 within 1 s, its open stream included', async () => {
    const issued = await admin(dirs[0]!, ['key', 'create', '--merchant', approved.merchantId, '--json'], env);
    const who = JSON.parse(issued.stdout) as { apiKey: string; apiSecret: string };
    // The new key is usable everywhere (propagation), then the session is created on replica 1.
    await onAll(CONTRACT_PROPAGATION_MS, async (url) => (await fetch(`${url}/v1/payments/channel`, { headers: signatureHeaders(who.apiKey, who.apiSecret, { method: 'GET', target: '/v1/payments/channel', body: '' }) })).status === 200);
    const s = await createSession(replicas[1]!.baseUrl, who);
    for (const r of replicas) expect((await list(r.baseUrl, s.clientSecret)).status).toBe(200);
    const stream = await openEventStream(CHANNELS_SUBSCRIPTION, {
      as: approved,
      fetch: (target, init) => fetch(`${replicas[2]!.baseUrl}${target}`, init),
      headers: { Authorization: `Bearer ${s.clientSecret}` },
    });
    expect(stream.status).toBe(200);
    await stream.waitFor((x) => x.results().length >= 1, 2000, 'the first event');

    expect((await admin(dirs[0]!, ['key', 'revoke', who.apiKey], env)).code).toBe(0);
    const revokedMs = await onAll(CONTRACT_PROPAGATION_MS, async (url) => {
      const res = await list(url, s.clientSecret);
      return res.status === 401 && ((await res.json()) as { code: string }).code === 'SESSION_INVALID';
    });
    await stream.waitFor((x) => x.isEnded(), CONTRACT_PROPAGATION_MS, 'the stream to end');
    expect(stream.results().at(-1).errors[0].extensions.code).toBe('SESSION_INVALID');
    console.info(`session revocation on 3 replicas: ${revokedMs.toFixed(0)} ms`);
  });

  it('a replayed creation returns the same session on every replica: same id, client secret and expiry', async () => {
    const target = '/v1/checkout/sessions';
    const body = JSON.stringify({ amount: 160000, currency: 'IDR', methods: ['qris', 'ovo'] });
    // One signed request, captured and sent again to each replica inside the ±300 s window.
    const headers = { ...signatureHeaders(approved.apiKey, approved.apiSecret, { method: 'POST', target, body }), 'content-type': 'application/json' };
    const answers: unknown[] = [];
    for (const r of [...replicas, ...replicas]) {
      const res = await fetch(`${r.baseUrl}${target}`, { method: 'POST', headers, body });
      expect(res.status).toBe(201);
      answers.push(await res.json());
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    // That it is then one budget across the replicas is the next test's claim for any session (a replay adds none:
    // test/security/session-cost.test.ts drives it on two apps sharing Redis).
  });

  it("a session's budget (burst 40) is one budget across the replicas (Redis)", async () => {
    const s = await createSession(replicas[0]!.baseUrl, approved);
    // Start at the beginning of a budget window so the burst is not split across two windows.
    await new Promise((r) => setTimeout(r, 2100));
    const statuses = await Promise.all(Array.from({ length: 150 }, (_, i) => list(replicas[i % 3]!.baseUrl, s.clientSecret).then((r) => r.status)));
    const accepted = statuses.filter((x) => x === 200).length;
    expect(statuses.every((x) => x === 200 || x === 429)).toBe(true);
    // One budget: 40 per window (80 if the burst straddles a window edge), never 3 × 40.
    expect(accepted).toBeGreaterThanOrEqual(40);
    expect(accepted).toBeLessThanOrEqual(80);
  });

  it('at most 2 open event streams per session across the replicas (Redis): a third is 429 on every replica; a closed one frees a slot on another', async () => {
    const s = await createSession(replicas[0]!.baseUrl, approved);
    const open = (i: number) =>
      openEventStream(CHANNELS_SUBSCRIPTION, { as: approved, fetch: (target, init) => fetch(`${replicas[i]!.baseUrl}${target}`, init), headers: { Authorization: `Bearer ${s.clientSecret}` } });
    const held = [await open(0), await open(1)];
    try {
      expect(held.map((h) => h.status)).toEqual([200, 200]);
      for (const i of [0, 1, 2]) {
        const third = await open(i);
        expect(third.status, `replica ${i + 1}`).toBe(429);
        await third.close();
      }
      await held[0]!.close();
      // Replica 1 sees the close a moment later and removes its slot from Redis; then replica 3 has room.
      let freed: Awaited<ReturnType<typeof open>> | undefined;
      await onEvery([replicas[2]!.baseUrl], 5000, async () => {
        const attempt = await open(2);
        if (attempt.status === 200) freed = attempt;
        else await attempt.close();
        return freed !== undefined;
      });
      held.push(freed!);
    } finally {
      for (const h of held) await h.close();
    }
  });
});
