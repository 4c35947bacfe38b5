/**
 * Contract §8b "Reconnection": killing a replica under thousands of open checkout pages costs
 * nothing but a reconnect. Through `npm run cluster:local` (HAProxy, three replicas, Postgres, Redis):
 *
 * - PAGES checkout sessions (each its own reference and amount) and one page per session, held by a child
 *   process (test/helpers/checkout-pages.ts): an event stream through the balancer with the session's client
 *   secret, reconnecting as the SDK does (`reconnectDelayMs`, `retryableStatus` of src/client/session.ts);
 * - SIGKILL to one replica: the streams that drop are exactly the ones it held (its
 *   `graphql_subscription_streams_open` just before), about a third; no other page loses or reopens its stream;
 * - every dropped page has a new stream, first event delivered, within 30 s of the kill, and no reconnection
 *   is refused (no replica refuses streams below its capacity; nothing the SDK would give up on);
 * - the two replicas left then hold every page exactly once, and a change committed right after (direct SQL
 *   on Postgres, as the admin CLI or another replica would) reaches every page within 1 s of the commit.
 *
 * The figures (streams per replica, dropped, time until all are live again, the change's p50 / p99 /
 * slowest) are printed, and docs/SCALING.md quotes them. The test does not depend on TEST_TRANSPORT or TEST_DB
 * (the cluster is always Postgres behind HAProxy), so it runs in `npm test` only, not again in
 * `npm run test:node` and `npm run test:pg`.
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { makeTempDir } from '../helpers/app.js';
import type { PageRequest, PageState, PagesMessage } from '../helpers/checkout-pages.js';
import { alive, clusterMerchant, gone, sleep, startClusterLocal, type LocalCluster } from '../helpers/cluster-local.js';
import { acceptsConnections, localServicesSkipReason } from '../helpers/local-services.js';
import { PROJECT_ROOT } from '../helpers/server.js';

/** Open checkout pages: about 1,000 per replica (a few thousand in all, well within one process's 20,000 descriptors). */
const PAGES = 3_000;
/** Contract §8b: a dead replica's pages are live again on the others within this long of its death. */
const LIVE_AGAIN_MS = 30_000;
/** Contract §8 / §8b: a change reaches every open stream within this long of its commit. */
const CHANGE_MS = 1_000;
/**
 * A page's subscription. Each page still asks its own question (its session's amount is part of it, so no two
 * pages share an execution). Not the checkout component's heavier document (a fee for its amount per channel):
 * that one is bench:streams' case; here, at this commit on a 2-core machine, it put the
 * slowest of 3,000 pages at 0.83-0.87 s after the change, too close to the bound for a test that CI runs.
 */
const PAGE_DOCUMENT = 'subscription { paymentChannelsChanged { code status } }';

const otherRun = process.env.TEST_TRANSPORT === 'node' || process.env.TEST_DB === 'postgres' ? 'same cluster as in `npm test`: run there only' : null;
if (otherRun) console.warn(`[cluster-local-streams] skipped: ${otherRun}`);
const skip = otherRun ?? localServicesSkipReason('postgres', 'redis', 'haproxy');

const now = (): number => performance.timeOrigin + performance.now();
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
const round = (ms: number): number => Math.round(ms);

let workDir: string | undefined;
let cluster: LocalCluster | undefined;
let pages: ChildProcess | undefined;
let db: pg.Pool | undefined;
/** Figures for the report (printed at the end, and as each step ends). */
const figures: Record<string, unknown> = {};

async function closeDb(): Promise<void> {
  const pool = db;
  db = undefined;
  await pool?.end();
}

/** Ask the pages' process and wait for its answer of `type`. */
function ask<T>(message: PagesMessage, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (m: { type: string }) => {
      if (m.type !== type) return;
      pages!.off('message', on);
      pages!.off('exit', exited);
      resolve(m as T);
    };
    const exited = (code: number | null) => reject(new Error(`the pages' process exited (${code})`));
    pages!.on('message', on);
    pages!.once('exit', exited);
    pages!.send(message);
  });
}

const pageStates = async (): Promise<PageState[]> => (await ask<{ pages: PageState[] }>({ type: 'state' }, 'state')).pages;

/** `graphql_subscription_streams_open` of one replica (GET /metrics on its own port, not through the balancer). */
async function openStreams(replicaUrl: string): Promise<number> {
  const text = await (await fetch(`${replicaUrl}/metrics`)).text();
  const m = /^graphql_subscription_streams_open (\d+)/m.exec(text);
  if (!m) throw new Error(`no graphql_subscription_streams_open in ${replicaUrl}/metrics`);
  return Number(m[1]);
}

/** Poll `probe` until it holds or `timeoutMs` passes; returns whether it held. */
async function until(probe: () => Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** One checkout session per page, created by the merchant's server (SVC1) through the balancer. */
async function createSessions(baseUrl: string, amounts: number[]): Promise<string[]> {
  const who = clusterMerchant(cluster!.ready);
  const secrets: string[] = new Array<string>(amounts.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < amounts.length) {
      const i = next++;
      const target = '/v1/checkout/sessions';
      const body = JSON.stringify({ merchantId: who.merchantId, amount: amounts[i], currency: 'IDR', expiresInSeconds: 3600, reference: `kill-test-page-${i}` });
      const res = await fetch(`${baseUrl}${target}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signatureHeaders(who.apiKey, who.apiSecret, { method: 'POST', target, body }) } });
      if (res.status !== 201) throw new Error(`session ${i}: ${res.status} ${await res.text()}`);
      secrets[i] = ((await res.json()) as { clientSecret: string }).clientSecret;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return secrets;
}

beforeAll(async () => {
  if (skip) return;
  workDir = makeTempDir('pgw-cluster-streams-');
  // One merchant's server creates every session: far above the default per-key budget (shared in Redis).
  cluster = await startClusterLocal({ dataDir: path.join(workDir, 'cluster'), env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '1000000' } });
  db = new pg.Pool({ connectionString: cluster.ready.databaseUrl, max: 1 });
  pages = fork(path.join(PROJECT_ROOT, 'test/helpers/checkout-pages.ts'), [], { execArgv: ['--import', 'tsx'], cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    pages!.once('message', () => resolve());
    pages!.once('exit', (code) => reject(new Error(`the pages' process exited (${code}) before it was ready`)));
  });
}, 150_000);

afterAll(async () => {
  if (pages && pages.exitCode === null && pages.signalCode === null) {
    const exited = new Promise((resolve) => pages!.once('exit', resolve));
    pages.send({ type: 'close' } satisfies PagesMessage);
    setTimeout(() => pages!.kill('SIGKILL'), 5_000).unref();
    await exited;
  }
  await closeDb();
  // SIGINT to the script: it stops HAProxy, the replicas, Redis and Postgres and removes their directories.
  await cluster?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  if (Object.keys(figures).length > 0) console.log(`[cluster-local-streams] ${JSON.stringify(figures)}`);
}, 60_000);

describe.skipIf(skip)(`npm run cluster:local: SIGKILL to one of three replicas under ${PAGES} open checkout pages`, () => {
  /** Streams per replica just before the kill, and which replica is killed. */
  let before: number[] = [];
  const victim = 1;
  let killedAt = 0;

  it(`${PAGES} pages, each its own session and amount, are live through the balancer, spread over the three replicas`, async () => {
    const { ready } = cluster!;
    const amounts = Array.from({ length: PAGES }, (_, i) => 10_000 + i * 7);
    const t0 = now();
    const secrets = await createSessions(ready.balancer, amounts);
    figures.sessionsCreatedPerSecond = round(PAGES / ((now() - t0) / 1000));
    const requests: PageRequest[] = secrets.map((secret) => ({
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: PAGE_DOCUMENT }),
    }));
    const t1 = now();
    const opened = await ask<{ failures: number }>({ type: 'open', port: Number(new URL(ready.balancer).port), pages: requests, concurrency: 256 }, 'opened');
    figures.pagesOpenedPerSecond = round(PAGES / ((now() - t1) / 1000));
    expect(opened.failures).toBe(0);
    const states = await pageStates();
    expect(states.filter((p) => p.live)).toHaveLength(PAGES);
    expect(states.filter((p) => p.attempts !== 1).map((p) => p.failures), 'opening needed no retry').toEqual([]);
    // Every stream counted by its replica (a gauge moves when the stream is admitted: poll briefly).
    const counted = await until(async () => {
      before = await Promise.all(ready.replicas.map((r) => openStreams(r.url)));
      return before.reduce((a, b) => a + b, 0) === PAGES;
    }, 5_000);
    figures.streamsPerReplicaBefore = before;
    expect(counted, `streams per replica ${before.join(', ')}`).toBe(true);
    // Least connections: each replica holds about a third.
    for (const n of before) expect(n).toBeGreaterThan(PAGES / 5);
  }, 90_000);

  it('SIGKILL: exactly the dead replica\'s streams drop; every one of those pages is live again on the others within 30 s, no reconnection refused', async () => {
    const { ready } = cluster!;
    const pid = ready.replicas[victim]!.pid;
    killedAt = now();
    process.kill(pid, 'SIGKILL');
    await gone(pid);
    let states: PageState[] = [];
    // Settled: the drops are in (HAProxy closes a dead replica's client connections at once; past its
    // health check's 2 s nothing more can come from the kill), and every page is live or has given up.
    await until(async () => {
      states = await pageStates();
      const settled = states.every((p) => p.live || p.final !== undefined);
      return settled && now() - killedAt > 3_000 && states.some((p) => p.drops > 0);
    }, LIVE_AGAIN_MS + 2_000);
    const dropped = states.filter((p) => p.drops > 0);
    const kept = states.filter((p) => p.drops === 0);
    const liveAgainMs = dropped.filter((p) => p.live).map((p) => p.liveAt - killedAt).sort((a, b) => a - b);
    const failures = new Map<string, number>();
    for (const f of dropped.flatMap((p) => p.failures)) {
      const kind = f.startsWith('status') ? f.slice(0, 'status 503'.length) : f;
      failures.set(kind, (failures.get(kind) ?? 0) + 1);
    }
    Object.assign(figures, {
      killed: `replica ${victim + 1} (${before[victim]} streams)`,
      dropped: dropped.length,
      reconnectAttempts: dropped.reduce((s, p) => s + p.attempts - 1, 0),
      failedReconnects: Object.fromEntries(failures),
      liveAgainMs: { p50: round(pct(liveAgainMs, 50)), p99: round(pct(liveAgainMs, 99)), slowest: round(liveAgainMs.at(-1) ?? NaN) },
    });
    console.log(`[cluster-local-streams] after the kill: ${JSON.stringify(figures)}`);

    // Only the dead replica's connections failed, all of them: as many drops as it held streams.
    expect(dropped.length).toBe(before[victim]);
    expect(kept.filter((p) => !p.live || p.attempts !== 1 || p.streams !== 1), 'a page on a replica left alive lost or reopened its stream').toEqual([]);
    // No refusal the SDK would stop at, no page that gave up, and no replica refusing below its capacity.
    expect(states.filter((p) => p.final !== undefined).map((p) => p.final)).toEqual([]);
    expect(dropped.flatMap((p) => p.failures).filter((f) => f.startsWith('status')), 'reconnections refused').toEqual([]);
    // Every dropped page has a new stream, first event delivered, within 30 s of the kill.
    expect(dropped.filter((p) => !p.live || p.streams !== 2)).toEqual([]);
    expect(liveAgainMs.at(-1)).toBeLessThanOrEqual(LIVE_AGAIN_MS);
    // The two replicas left hold every page exactly once.
    const survivors = ready.replicas.filter((_, i) => i !== victim);
    let after: number[] = [];
    const once = await until(async () => {
      after = await Promise.all(survivors.map((r) => openStreams(r.url)));
      return after.reduce((a, b) => a + b, 0) === PAGES;
    }, 5_000);
    figures.streamsPerReplicaAfter = after;
    expect(once, `streams on the replicas left: ${after.join(', ')}`).toBe(true);
  }, 60_000);

  it('a change committed right after reaches every page within 1 s of its commit', async () => {
    const armed = ask<{ times: number[]; missing: number; without: number; sample: string }>({ type: 'arm', timeoutMs: 15_000, code: 'qris', status: 'MAINTENANCE' }, 'arrived');
    // Armed before the commit (the pages' process answers nothing until the events arrive): give it the message.
    await sleep(100);
    const committed = now();
    await db!.query(`update channels set status = 'maintenance' where code = 'qris'`);
    const arrived = await armed;
    const delays = arrived.times.map((t) => t - committed).sort((a, b) => a - b);
    figures.change = { pages: arrived.times.length, sinceKillMs: round(committed - killedAt), p50: round(pct(delays, 50)), p99: round(pct(delays, 99)), slowest: round(delays.at(-1) ?? NaN), missing: arrived.missing };
    console.log(`[cluster-local-streams] the change: ${JSON.stringify(figures.change)}`);
    expect(arrived.missing, 'pages without the change').toBe(0);
    expect(arrived.times).toHaveLength(PAGES);
    expect(arrived.without, `an event without qris in maintenance: ${arrived.sample.slice(0, 300)}`).toBe(0);
    expect(delays.at(-1)).toBeLessThanOrEqual(CHANGE_MS);
  }, 30_000);

  it('stopping the cluster leaves no process, port or directory behind', async () => {
    const { ready } = cluster!;
    const exited = new Promise((resolve) => pages!.once('exit', resolve));
    pages!.send({ type: 'close' } satisfies PagesMessage);
    await exited;
    await closeDb();
    expect(await cluster!.stop()).toBe(0);
    for (const r of ready.replicas) expect(alive(r.pid), `replica pid ${r.pid}`).toBe(false);
    for (const port of [ready.balancer, ...ready.replicas.map((r) => r.url)].map((u) => Number(new URL(u).port)).concat(ready.servicePorts)) expect(await acceptsConnections(port), `port ${port}`).toBe(false);
    for (const dir of ready.serviceDirs) expect(fs.existsSync(dir), dir).toBe(false);
  }, 60_000);
});
