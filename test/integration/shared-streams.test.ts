/**
 * Contract §8 (SUBSCRIPTIONS_PER_KEY open streams per API key) and §9 (2 per checkout session) across
 * replicas: with REDIS_URL the slots are one budget in Redis (src/pipeline/live/stream-slots.ts), freed
 * when a stream closes on any replica, expiring with their lease when their replica stops renewing them;
 * with Redis frozen each replica counts its own streams, never answering 5xx or stalling.
 *
 * Two (or three) apps in this process share one database (same keys) and one real throwaway Redis; with
 * TEST_TRANSPORT=node each is a real server (the Node transport).
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, UNREACHABLE_RATE_LIMIT, type TestApp } from '../helpers/app.js';
import { localServicesSkipReason, throwawayRedisPerFile } from '../helpers/local-services.js';
import { CHANNELS_SUBSCRIPTION, eventually, openEventStream, type EventStreamReader } from '../helpers/sse.js';

const skip = localServicesSkipReason('redis');
const HEARTBEAT_MS = 200;
/** Short lease, so an unrenewed slot expires within the test (production: 3 heartbeats, 45 s). */
const SHORT_LEASE_MS = 1000;
/** Long lease, so a slot freed within a test was freed by its stream's close, not by expiry. */
const LONG_LEASE_MS = 60_000;

const redisHolder = throwawayRedisPerFile(skip);

let apps: TestApp[] = [];
const streams: EventStreamReader[] = [];
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
  // Replicas first: the first app owns the shared database.
  for (const app of apps.reverse()) await app.close();
  apps = [];
});

async function replicas(count: number, streamLeaseMs = LONG_LEASE_MS): Promise<TestApp[]> {
  for (let i = 0; i < count; i++) {
    const rateLimit = { ...UNREACHABLE_RATE_LIMIT, redisUrl: redisHolder.current!.url };
    apps.push(await createTestApp({ sharedData: apps[0], app: { rateLimit, liveUpdates: { heartbeatMs: HEARTBEAT_MS, streamLeaseMs } } }));
  }
  for (const app of apps) await app.app.rateLimitStore!.waitUntilUp();
  return apps;
}

/** A new checkout session of the approved merchant, created on `app`; its client secret. */
async function sessionSecret(app: TestApp): Promise<string> {
  const res = await app.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    body: JSON.stringify({ merchantId: app.approved.merchantId, amount: 150000, currency: 'IDR', methods: ['qris', 'OVO'] }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { clientSecret: string }).clientSecret;
}

/** A stream on `app`: the session's (Bearer) when `secret` is given, else signed with the approved merchant's key. */
async function open(app: TestApp, secret?: string): Promise<EventStreamReader> {
  const stream = await openEventStream(CHANNELS_SUBSCRIPTION, {
    as: app.approved,
    fetch: app.streamFetch,
    headers: secret === undefined ? undefined : { Authorization: `Bearer ${secret}` },
  });
  streams.push(stream);
  return stream;
}

/** Open on `app` until one is accepted (a refused attempt is closed), within `timeoutMs`. */
async function openOnceFree(app: TestApp, timeoutMs: number, secret?: string): Promise<EventStreamReader> {
  let accepted: EventStreamReader | undefined;
  await eventually(
    async () => {
      const stream = await open(app, secret);
      if (stream.status === 200) accepted = stream;
      else await stream.close();
      return accepted !== undefined;
    },
    timeoutMs,
    'a stream slot to be free',
  );
  return accepted!;
}

async function metric(app: TestApp, line: string): Promise<number> {
  const text = await app.app.metricsRegistry.metrics();
  return text
    .split('\n')
    .filter((l) => l.startsWith(line))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe.skipIf(skip)('stream slots shared through Redis by replicas', () => {
  it('a session holds 2 streams across two replicas: the third is refused on either; closing one on A frees a slot on B', async () => {
    const [a, b] = await replicas(2);
    const secret = await sessionSecret(a!);
    const onA = await open(a!, secret);
    const onB = await open(b!, secret);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    for (const app of [a!, b!]) {
      const third = await open(app, secret);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('5');
      await third.close();
    }
    expect(onA.isEnded()).toBe(false);

    await onA.close();
    const again = await openOnceFree(b!, 5000, secret);
    expect(again.status).toBe(200);
    expect((await open(a!, secret)).status).toBe(429);

    // In Redis: one member per open stream, and the set expires one lease after its last take.
    const client = new Redis(redisHolder.current!.url, { maxRetriesPerRequest: 0 });
    try {
      const key = `gateway:streams:session:${secret.split('_secret_')[0]}`;
      expect(await client.zcard(key)).toBe(2);
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(LONG_LEASE_MS);
    } finally {
      client.disconnect();
    }
  });

  it('an API key holds SUBSCRIPTIONS_PER_KEY (10) streams across two replicas: the eleventh is refused with 429 RATE_LIMITED on either', async () => {
    const [a, b] = await replicas(2);
    const held: EventStreamReader[] = [];
    for (let i = 0; i < 10; i++) held.push(await open(i % 2 === 0 ? a! : b!));
    expect(held.map((s) => s.status)).toEqual(Array(10).fill(200));
    // Refused however it asks (a missing Accept and `*/*` open streams too).
    for (const [app, headers] of [[a!, {}], [b!, { accept: '*/*' }], [a!, { accept: 'text/event-stream' }]] as const) {
      const res = await app.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query: CHANNELS_SUBSCRIPTION }), headers });
      expect(res.status).toBe(429);
      const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('RATE_LIMITED');
      expect(body.errors[0]!.message).toContain('10 open event streams');
    }
    // Each replica holds only 5 itself: per-process counting would have accepted these.
    await held[1]!.close();
    expect((await openOnceFree(a!, 5000)).status).toBe(200);
  });

  it('a replica that stops renewing (its Redis connection gone, streams never closed) frees its slots when their lease expires', async () => {
    const [a, b, dead] = await replicas(3, SHORT_LEASE_MS);
    const secret = await sessionSecret(a!);
    const orphans = [await open(dead!, secret), await open(dead!, secret)];
    expect(orphans.map((s) => s.status)).toEqual([200, 200]);
    const refused = await open(b!, secret);
    expect(refused.status).toBe(429);
    await refused.close();

    // As if the replica died: nothing it holds is renewed or removed in Redis any more.
    dead!.app.rateLimitStore!.client.disconnect();
    const started = Date.now();
    const freed = await openOnceFree(b!, SHORT_LEASE_MS + 2000, secret);
    expect(freed.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(SHORT_LEASE_MS / 2);
    for (const s of orphans) expect(s.isEnded()).toBe(false);
  });

  it('Redis frozen (SIGSTOP): streams still open with per-replica counts, never 5xx, no open stalls a second; thawed: the open streams join the shared count', async () => {
    const [a, b] = await replicas(2);
    const secret = await sessionSecret(a!);
    redisHolder.current!.pause();
    try {
      const timedOpen = async (app: TestApp): Promise<EventStreamReader> => {
        const started = performance.now();
        const stream = await open(app, secret);
        expect(performance.now() - started).toBeLessThan(1000);
        return stream;
      };
      const opened: EventStreamReader[][] = [];
      for (const app of [a!, b!]) {
        const row: EventStreamReader[] = [];
        for (let i = 0; i < 3; i++) row.push(await timedOpen(app));
        opened.push(row);
      }
      // Each replica decides alone: its own 2, then 429.
      expect(opened.map((row) => row.map((s) => s.status))).toEqual([
        [200, 200, 429],
        [200, 200, 429],
      ]);
      // A slot taken locally is freed locally (a real server notices the client's close a moment later).
      await opened[0]![0]!.close();
      expect((await openOnceFree(a!, 5000, secret)).status).toBe(200);
      for (const app of [a!, b!]) {
        expect(app.app.rateLimitStore!.up).toBe(false);
        expect(await metric(app, 'gateway_rate_limit_fallback_total{budget="streams"}')).toBeGreaterThanOrEqual(1);
      }
    } finally {
      redisHolder.current!.resume();
    }
    for (const app of [a!, b!]) await app.app.rateLimitStore!.waitUntilUp(10_000);
    // The 4 streams opened during the outage are renewed into the shared set at their next heartbeats.
    const client = new Redis(redisHolder.current!.url, { maxRetriesPerRequest: 0 });
    try {
      const held = async (): Promise<number> => {
        const [key] = await client.keys('gateway:streams:session:*');
        return key === undefined ? 0 : client.zcard(key);
      };
      await eventually(async () => (await held()) === 4, 2000, 'the four streams in the shared set');
    } finally {
      client.disconnect();
    }
    const late = await open(b!, secret);
    expect(late.status).toBe(429);
  });
});
