/**
 * Live channel updates end to end (contract §8): two real
 * servers (`dist/main.mjs`, as `npm start` runs it) on one DATA_DIR — one
 * SQLite file, or under TEST_DB=postgres one database — are two replicas;
 * the admin CLI, a third process, makes the changes.
 *
 * - one subscriber per replica sees a maintenance change made by the CLI
 *   within 1 s (measured from the CLI's exit, i.e. after its commit);
 * - a key revoked by the CLI: its streams on both replicas end;
 * - the 11th stream of a key (SUBSCRIPTIONS_PER_KEY default 10) is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { admin, adminJson, startServer, type Credentials, type RunningServer } from '../helpers/ops.js';
import { CHANNELS_SUBSCRIPTION, openEventStream, type EventStreamReader, type Signer } from '../helpers/sse.js';

let dataDir: string;
const replicas: RunningServer[] = [];
const streams: EventStreamReader[] = [];
let demo: Signer;

async function subscribe(server: RunningServer, as: Signer, query = CHANNELS_SUBSCRIPTION): Promise<EventStreamReader> {
  const stream = await openEventStream(query, { as, fetch: (target, init) => fetch(`${server.baseUrl}${target}`, init) });
  streams.push(stream);
  return stream;
}

const nexts = (s: EventStreamReader) => s.events.filter((e) => e.event === 'next');
const statusOf = (result: any, code: string) => result.data.paymentChannelsChanged.find((c: { code: string }) => c.code === code)?.status;

async function mustAdmin(args: string[]): Promise<number> {
  const r = await admin(dataDir, args);
  expect(r.code, r.stderr).toBe(0);
  return performance.now();
}

beforeAll(async () => {
  dataDir = makeTempDir('pgw-live-sse-');
  // The first replica migrates and seeds; the second finds it done.
  replicas.push(await startServer(dataDir));
  replicas.push(await startServer(dataDir));
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: (Signer & { kyc: string })[] };
  demo = creds.merchants.find((m) => m.kyc === 'approved')!;
}, 120_000);

afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('paymentChannelsChanged across replicas and processes', () => {
  it('one subscriber per replica sees a maintenance change made by the admin CLI within 1 s', async () => {
    const [a, b] = [await subscribe(replicas[0]!, demo), await subscribe(replicas[1]!, demo)];
    for (const s of [a, b]) {
      expect(s.status).toBe(200);
      await s.waitFor((x) => nexts(x).length >= 1, 5000, 'the first event');
      expect(statusOf(s.results()[0], 'bni_va')).toBe('ACTIVE');
    }

    const committed = await mustAdmin(['channel', 'update', 'bni_va', '--status', 'maintenance']);
    for (const s of [a, b]) {
      await s.waitFor((x) => nexts(x).length >= 2, 1000, 'the maintenance event');
      expect(nexts(s)[1]!.at - committed).toBeLessThan(1000);
      expect(statusOf(s.results()[1], 'bni_va')).toBe('MAINTENANCE');
    }
    await mustAdmin(['channel', 'update', 'bni_va', '--status', 'active']);
  }, 60_000);

  it("a key revoked by the CLI: its streams on both replicas end with INVALID_API_KEY; another key's stays open", async () => {
    const m = await adminJson<{ id: string }>(dataDir, ['merchant', 'create', '--name', 'Live SSE Shop', '--kyc', 'approved', '--channels', 'all']);
    const key = await adminJson<Credentials>(dataDir, ['key', 'create', '--merchant', m.id]);
    const spare = await adminJson<Credentials>(dataDir, ['key', 'create', '--merchant', m.id]);
    const [a, b, kept] = [await subscribe(replicas[0]!, key), await subscribe(replicas[1]!, key), await subscribe(replicas[1]!, spare)];
    for (const s of [a, b, kept]) await s.waitFor((x) => nexts(x).length >= 1, 5000, 'the first event');

    await mustAdmin(['key', 'revoke', key.apiKey]);
    for (const s of [a, b]) {
      await s.waitFor((x) => x.isEnded(), 1000, 'the stream to end');
      expect(s.results().at(-1).errors[0].extensions.code).toBe('INVALID_API_KEY');
      expect(s.events.at(-1)!.event).toBe('complete');
    }
    expect(kept.isEnded()).toBe(false);
  }, 60_000);

  it('the 11th stream of a key is refused with 429 RATE_LIMITED and Retry-After', async () => {
    const open: EventStreamReader[] = [];
    for (let i = 0; i < 10; i++) open.push(await subscribe(replicas[0]!, demo));
    expect(open.map((s) => s.status)).toEqual(open.map(() => 200));
    const eleventh = await subscribe(replicas[0]!, demo);
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
    await eleventh.ended;

    // The replica logged the refusal with its code, and each open as a request.
    const refusal = await replicas[0]!.waitForLog((l) => l.errorCode === 'RATE_LIMITED' && l.status === 429);
    expect(refusal).toMatchObject({ route: '/graphql', method: 'POST', merchantId: expect.any(String) });
  }, 60_000);
});
