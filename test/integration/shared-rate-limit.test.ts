/**
 * Contract §6 "Shared limits": with REDIS_URL a key's budget is one budget across
 * replicas; with Redis stopped or frozen every replica keeps serving on its own in-memory budget (a
 * warning once per outage, `gateway_rate_limit_store_up` 0, fallbacks counted, never a 5xx or a hang);
 * with Redis back the budget is shared again.
 *
 * Three apps in this process share one SQLite database (same keys) and one real throwaway Redis; with
 * TEST_TRANSPORT=node each is a real server (the Node transport).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { localServicesSkipReason, throwawayRedisPerFile } from '../helpers/local-services.js';

const skip = localServicesSkipReason('redis');
const WARNING = 'rate-limit store (Redis) unreachable';

const redisHolder = throwawayRedisPerFile(skip);

interface Replicas {
  apps: TestApp[];
  logs: string[][];
}
let current: Replicas | undefined;
afterEach(async () => {
  // Replicas first: the first app owns the shared database.
  for (const app of [...(current?.apps ?? [])].reverse()) await app.close();
  current = undefined;
});

/**
 * The three replicas and the client share this process's event loop, so a burst of 300 requests in flight
 * delays Redis's answers by more than the service's 250 ms command timeout on a loaded machine, and a replica
 * would rightly fall back to its own budget. The tests of sharing give Redis 5 s; the frozen-Redis test, whose
 * subject is that timeout, keeps the service's own.
 */
const PATIENT_MS = 5_000;

async function replicas(limit: { keyRatePerSecond: number; keyBurst: number }, redisCommandTimeoutMs = PATIENT_MS): Promise<Replicas> {
  const logs: string[][] = [[], [], []];
  const apps: TestApp[] = [];
  for (const lines of logs) {
    const rateLimit = { ...limit, authFailuresPerMinute: 1_000_000, redisUrl: redisHolder.current!.url, redisCommandTimeoutMs };
    apps.push(await createTestApp({ logLines: lines, sharedData: apps[0], app: { rateLimit } }));
  }
  current = { apps, logs };
  for (const app of apps) await app.app.rateLimitStore!.waitUntilUp();
  return current;
}

/** `count` signed GET /v1/payments/channel, round-robin over the replicas, all in flight at once; statuses. */
async function burst(apps: TestApp[], count: number, as?: DemoMerchantCredentials): Promise<number[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => apps[i % apps.length]!.signedFetch('/v1/payments/channel', { as }).then((r) => r.status)));
}

const accepted = (statuses: number[]) => statuses.filter((s) => s === 200).length;

async function metric(app: TestApp, name: string): Promise<number> {
  const text = await app.app.metricsRegistry.metrics();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe.skipIf(skip)('per-key budget shared through Redis by three replicas', () => {
  it('20/s (burst 20): 300 requests over 3 replicas accept one budget (20–40), not three (60–120)', async () => {
    const { apps } = await replicas({ keyRatePerSecond: 20, keyBurst: 20 });
    const started = Date.now();
    const statuses = await burst(apps, 300);
    const elapsedMs = Date.now() - started;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // The 1 s window starts with the first request; a run of E ms touches at most ceil(E/1000) + 1 windows.
    const windows = Math.ceil(elapsedMs / 1000) + 1;
    expect(accepted(statuses)).toBeGreaterThanOrEqual(20);
    expect(accepted(statuses)).toBeLessThanOrEqual(20 * Math.max(2, windows));
    // Independent of timing: per-replica budgets would let each replica accept its own 20 per window.
    if (elapsedMs < 1000) expect(accepted(statuses)).toBeLessThanOrEqual(40);
  });

  it('one window of 20 (1/s, burst 20 = 20 per 20 s): exactly 20 accepted over 3 replicas; Redis stopped: each replica falls back, warns once, metric 0; Redis back: shared again', async () => {
    const { apps, logs } = await replicas({ keyRatePerSecond: 1, keyBurst: 20 });
    const shared = await burst(apps, 300);
    expect(accepted(shared)).toBe(20);
    for (const app of apps) expect(await metric(app, 'gateway_rate_limit_store_up')).toBe(1);

    await redisHolder.current!.stopServer();
    // Every replica now decides alone (its own memory budget of 20): requests keep being answered, never 5xx.
    const alone = await burst(apps, 90);
    expect(alone.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(accepted(alone)).toBe(60);
    for (const [i, app] of apps.entries()) {
      expect(app.app.rateLimitStore!.up).toBe(false);
      expect(await metric(app, 'gateway_rate_limit_store_up')).toBe(0);
      expect(await metric(app, 'gateway_rate_limit_fallback_total')).toBeGreaterThanOrEqual(30);
      // Once per outage, not per request (ioredis reconnect errors included).
      expect(logs[i]!.filter((l) => l.includes(WARNING))).toHaveLength(1);
    }

    await redisHolder.current!.startServer(); // same port; no persistence, so the shared counter starts again
    for (const app of apps) await app.app.rateLimitStore!.waitUntilUp(10_000);
    for (const [i, app] of apps.entries()) {
      expect(await metric(app, 'gateway_rate_limit_store_up')).toBe(1);
      expect(logs[i]!.some((l) => l.includes('reachable again'))).toBe(true);
    }
    // The first key is still blocked for its window (rightly); another merchant's key shows the shared budget.
    expect(accepted(await burst(apps, 300, apps[0]!.pending))).toBe(20);
  });

  it('Redis frozen (SIGSTOP): requests are still answered (command timeout, then memory), never 5xx; thawed: shared again', async () => {
    const { apps, logs } = await replicas({ keyRatePerSecond: 1, keyBurst: 20 }, 250);
    redisHolder.current!.pause();
    try {
      const statuses = await burst(apps, 30);
      expect(statuses).toEqual(Array(30).fill(200));
      for (const [i, app] of apps.entries()) {
        expect(app.app.rateLimitStore!.up).toBe(false);
        expect(logs[i]!.filter((l) => l.includes(WARNING))).toHaveLength(1);
      }
    } finally {
      redisHolder.current!.resume();
    }
    for (const app of apps) await app.app.rateLimitStore!.waitUntilUp(10_000);
    // Commands that timed out were still queued in the frozen Redis and ran when it resumed, so the first key
    // may well be spent; another merchant's key shows the one shared budget.
    expect(accepted(await burst(apps, 300, apps[0]!.pending))).toBe(20);
  });
});
