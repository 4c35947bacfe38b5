/**
 * `npm run bench:pipeline`: the CPU cost of the one request pipeline itself, in process, without sockets and
 * without a profiler. Each scenario drives `app.handler` (the Node listener `npm start`
 * serves) with in-memory request/response objects shaped like Node's, one request at a time, and reports
 * µs per request of wall time (= CPU time here: nothing waits). The sampling profiler (bench:profile)
 * inflates short native calls several times over; these figures are what a request really costs the
 * process above the HTTP parser and the socket write, which raw node:http pays too.
 *
 * `--without <plugin,…>` assembles the app around its pipeline without the named plugins, for an ablation:
 * the difference is what that plugin costs per request. Never a configuration for serving.
 *
 * Tracing (contract §13) is on when the OpenTelemetry variables say so, read as the server reads them
 * (`OTEL_EXPORTER_OTLP_ENDPOINT=… OTEL_TRACES_SAMPLER_ARG=…`; an OTLP receiver answering 200 must listen there):
 * the same requests with tracing off and on, one process each, are what tracing costs a request in CPU.
 * `--ab-tracing` (with those variables) builds a second app without tracing in the same process and alternates
 * the two in batches of 250 requests, each batch's CPU charged to its app: a shared machine's load then moves
 * both alike, and the difference is what tracing costs.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { assembleApp, createAppParts } from '../src/app/app.js';
import { startTracing } from '../src/app/tracing.js';
import { loadConfig } from '../src/shared/config.js';
import { withoutPlugins } from './servers/ablation.js';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { bootData } from '../src/app/boot.js';
import { TurnBatchedDestination } from '../src/shared/logger.js';
import { GQL_CHANNELS, gqlCalcFor, gqlCalcQuotedFor } from './documents.js';

const args = process.argv.slice(2);
const withoutAt = args.indexOf('--without');
const without = withoutAt === -1 ? [] : (args[withoutAt + 1] ?? '').split(',').filter(Boolean);
/** A scenario name among the arguments (not the value of --without): run only that one. */
const only = args.find((a, i) => !a.startsWith('--') && (withoutAt === -1 || i !== withoutAt + 1));
const PER_TURN = args.includes('--per-turn');
const N = Number(process.env.PIPELINE_REQUESTS ?? 20_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-pipeline-'));
const data = await bootData({ dataDir: tmp, masterKey: null, seedDemoData: true });
const creds = data.seeded!.find((m) => m.kyc === 'approved')!;
// As in production (src/shared/logger.ts): JSON lines written once per event-loop turn, here to /dev/null.
const logger = pino({ level: 'info', base: { service: 'payment-gateway' } }, new TurnBatchedDestination(fs.openSync('/dev/null', 'w')));
const tracingConfig = loadConfig({ ...process.env, DATA_DIR: tmp }).tracing;
const tracing = tracingConfig === null ? null : await startTracing(tracingConfig, logger);
const AB_TRACING = args.includes('--ab-tracing');
if (AB_TRACING && tracing === null) throw new Error('--ab-tracing needs tracing on: set OTEL_EXPORTER_OTLP_ENDPOINT (an OTLP receiver answering 200)');
const partsOf = (withTracing: boolean) => createAppParts({
  tracing: withTracing ? tracing : null,
  store: data.store,
  secretBox: data.secretBox,
  logger,
  maxSkewSeconds: 300,
  bodyLimitBytes: 100 * 1024,
  metrics: { token: null, collectDefault: true },
  rateLimit: { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9 },
});
const parts = partsOf(tracing !== null);
const app = assembleApp(parts, withoutPlugins(parts.pipeline, without));
/** With --ab-tracing: the same app without tracing. */
const untraced = AB_TRACING ? (() => {
  const p = partsOf(false);
  return assembleApp(p, withoutPlugins(p.pipeline, without));
})() : null;

/** A Node IncomingMessage as far as the pipeline reads it. */
class FakeReq extends EventEmitter {
  complete = false;
  readonly socket = { remoteAddress: '127.0.0.1', remotePort: 40000 };
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Record<string, string>,
    private readonly body: Buffer | null,
  ) {
    super();
    if (!body) this.complete = true;
  }
  override on(event: string, fn: (...a: unknown[]) => void): this {
    super.on(event, fn);
    if (event === 'data' && this.body) {
      queueMicrotask(() => {
        this.emit('data', this.body);
        this.complete = true;
        this.emit('end');
      });
    }
    return this;
  }
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }
}

/** A Node ServerResponse as far as the transport writes it; resolves when ended. */
class FakeRes extends EventEmitter {
  status = 0;
  headersSent = false;
  bytes = 0;
  readonly done: Promise<void>;
  #resolve!: () => void;
  constructor() {
    super();
    this.done = new Promise((r) => (this.#resolve = r));
  }
  writeHead(status: number): this {
    this.status = status;
    this.headersSent = true;
    return this;
  }
  setHeader(): void {}
  end(body?: Buffer): void {
    this.bytes = body?.length ?? 0;
    this.#resolve();
    // Node's 'close' follows the last write (a traced request's SERVER span ends there).
    queueMicrotask(() => this.emit('close'));
  }
  destroy(): void {
    this.#resolve();
  }
}

let n = 0;
const scenarios: Record<string, () => { method: string; target: string; body: string | null }> = {
  'rest-list': () => ({ method: 'GET', target: '/v1/payments/channel', body: null }),
  'gql-channels': () => ({ method: 'POST', target: '/graphql', body: GQL_CHANNELS }),
  'gql-calc-uncached': () => ({ method: 'POST', target: '/graphql', body: gqlCalcFor(n++) }),
  // The same with the fee quote selected (contract §11): what signing adds to a calculation.
  'gql-calc-quote': () => ({ method: 'POST', target: '/graphql', body: gqlCalcQuotedFor(n++) }),
};

interface Prepared {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer | null;
}

/** Signing is the client's work: done before the timed loop. */
function prepare(s: { method: string; target: string; body: string | null }): Prepared {
  const body = s.body ?? '';
  const headers: Record<string, string> = { host: '127.0.0.1' };
  for (const [k, v] of Object.entries(signatureHeaders(creds.apiKey, creds.apiSecret, { method: s.method, target: s.target, body }))) headers[k.toLowerCase()] = v;
  if (s.body !== null) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return { method: s.method, target: s.target, headers, body: s.body === null ? null : Buffer.from(body) };
}

async function one(p: Prepared, on: typeof app = app): Promise<number> {
  const req = new FakeReq(p.method, p.target, p.headers, p.body);
  const res = new FakeRes();
  on.handler(req as never, res as never);
  await res.done;
  return res.status;
}

process.stdout.write(`pipeline: ${N} sequential requests per scenario, in process${without.length ? `, without ${without.join(', ')}` : ''}${tracingConfig === null ? ', tracing off' : `, tracing on (${tracingConfig.sampler} ${tracingConfig.ratio})`}\n`);
for (const [name, make] of Object.entries(scenarios)) {
  if (only && name !== only) continue;
  const prepared = Array.from({ length: N }, () => prepare(make()));
  const warm = Array.from({ length: 3000 }, () => prepare(make()));
  for (const s of warm) await one(s);
  if (untraced !== null) {
    for (const s of warm) await one(s, untraced);
    // Batches of 250, the two apps in turn (which one first alternates), each batch's CPU charged to its app.
    const cpu = { off: 0, on: 0 };
    const BATCH = 250;
    for (let at = 0, turn = 0; at + BATCH <= N; at += BATCH, turn++) {
      for (const side of turn % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const c0 = process.cpuUsage();
        for (let i = at; i < at + BATCH; i++) await one(prepared[i]!, side === 'on' ? app : untraced);
        const c = process.cpuUsage(c0);
        cpu[side] += c.user + c.system;
      }
    }
    const done = Math.floor(N / BATCH) * BATCH;
    const [off, on] = [cpu.off / done, cpu.on / done];
    process.stdout.write(`  ${name.padEnd(18)} tracing off ${off.toFixed(1).padStart(6)} µs/req cpu  on ${on.toFixed(1).padStart(6)} µs/req cpu  ${on >= off ? '+' : ''}${(on - off).toFixed(1)} µs (${(((on - off) / off) * 100).toFixed(1)} %)\n`);
    continue;
  }
  const statuses = new Map<number, number>();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (const s of prepared) {
    // Each request in its own event-loop turn, as a server under light load meets them (per-turn work included).
    if (PER_TURN) await new Promise((r) => setImmediate(r));
    const status = await one(s);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1000 / N;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`  ${name.padEnd(18)} ${wall.toFixed(1).padStart(6)} µs/req wall  ${((cpu.user + cpu.system) / N).toFixed(1).padStart(6)} µs/req cpu  statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`);
}
await app.close();
await untraced?.close();
await tracing?.shutdown();
await data.store.close();
fs.rmSync(tmp, { recursive: true, force: true });
