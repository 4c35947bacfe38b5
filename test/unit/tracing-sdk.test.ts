/**
 * Contract §13, the SDK as the server starts it (src/app/tracing.ts), against OTLP collectors inside the test:
 * a request's sampling decided once, before any span work (the sampled trace id is the one the sampler saw; an
 * unsampled request's span carries ids only), the export in a worker thread (this thread never loads the OTLP
 * exporter), and the export queue's bound: spans past it are dropped and counted on /metrics next to the
 * failed exports, never held.
 */
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { propagation, ROOT_CONTEXT, TraceFlags, SpanKind } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXPORTS_IN_FLIGHT, MAX_QUEUED_SPANS, PooledIds, rootDecision, startTracing } from '../../src/app/tracing.js';
import type { TracingConfig } from '../../src/shared/config.js';
import type { Tracing } from '../../src/shared/tracing.js';

/** A collector that holds every export request until `release` answers them all (and every later one) with `status`. */
async function holdingCollector(): Promise<{ url: string; held: () => number; release: (status: number) => void; close: () => Promise<void> }> {
  const waiting: http.ServerResponse[] = [];
  let answer: number | null = null;
  let held = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held += 1;
      if (answer === null) waiting.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    held: () => held,
    release: (status) => {
      answer = status;
      for (const res of waiting.splice(0)) res.writeHead(status).end();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const config = (url: string, over: Partial<TracingConfig> = {}): TracingConfig => ({
  url,
  protocol: 'http/json',
  headers: {},
  serviceName: 'gw-unit',
  resourceAttributes: {},
  sampler: 'parentbased_traceidratio',
  ratio: 0.05,
  batchDelayMs: 1,
  ...over,
});

const logger = pino({ level: 'silent' });
const started: Tracing[] = [];
/** A collector that accepts everything at once (what the sampling tests export goes there). */
let accepting: Awaited<ReturnType<typeof holdingCollector>>;
beforeAll(async () => {
  accepting = await holdingCollector();
  accepting.release(200);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((t) => t.shutdown()));
});
afterAll(() => accepting.close());

const describeGet = () => ({ name: 'GET /v1/payments/channel', options: { kind: SpanKind.SERVER } });

describe('contract §13: a request sampled once, at its start', () => {
  it('the sampled trace id is the one the ratio sampler accepted; an unsampled request gets ids only, and its name is never worked out', async () => {
    const tracing = await startTracing(config(accepting.url, { ratio: 0.5 }), logger);
    started.push(tracing);
    const judge = new TraceIdRatioBasedSampler(0.5);
    let sampled = 0;
    let described = 0;
    for (let i = 0; i < 400; i++) {
      const span = tracing.requestSpan(ROOT_CONTEXT, undefined, () => {
        described += 1;
        return describeGet();
      });
      const ids = span.spanContext();
      expect(ids.traceId).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
      expect(ids.spanId).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
      const verdict = judge.shouldSample(ROOT_CONTEXT, ids.traceId).decision;
      if (span.isRecording()) {
        sampled += 1;
        expect(verdict).toBe(SamplingDecision.RECORD_AND_SAMPLED);
        expect(ids.traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
      } else {
        expect(verdict).toBe(SamplingDecision.NOT_RECORD);
        expect(ids.traceFlags).toBe(TraceFlags.NONE);
      }
      span.end();
    }
    // About half, and a name only for those.
    expect(sampled).toBeGreaterThan(120);
    expect(sampled).toBeLessThan(280);
    expect(described).toBe(sampled);
  });

  it('a root request is decided from its id\'s bytes exactly as the SDK\'s samplers decide on its hex, at every ratio', () => {
    const ids = new PooledIds();
    // 0 and 1 are the ends of the range (never, always); the others fall between words.
    for (const ratio of [0, 1e-9, 0.05, 0.5, 0.999999, 1]) {
      const judge = new TraceIdRatioBasedSampler(ratio);
      const ours = rootDecision('parentbased_traceidratio', ratio);
      for (let i = 0; i < 5000; i++) {
        const id = ids.freshTraceId();
        expect(ours(ids.lastTraceWord)).toBe(judge.shouldSample(ROOT_CONTEXT, id).decision === SamplingDecision.RECORD_AND_SAMPLED);
      }
    }
    // The word is the id's: a ratio just below and just above one id's share tells them apart.
    const id = ids.freshTraceId();
    const word = ids.lastTraceWord;
    expect(rootDecision('traceidratio', (word + 1) / 0xffffffff)(word)).toBe(new TraceIdRatioBasedSampler((word + 1) / 0xffffffff).shouldSample(ROOT_CONTEXT, id).decision === SamplingDecision.RECORD_AND_SAMPLED);
    expect(rootDecision('always_on', 0)(word)).toBe(true);
    expect(rootDecision('parentbased_always_off', 1)(word)).toBe(false);
    // Slices of the pool's hex, across many refills (170 requests' ids a pool): well-formed and never repeated.
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const traceId = ids.freshTraceId();
      const spanId = ids.generateSpanId();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      seen.add(traceId).add(spanId);
    }
    expect(seen.size).toBe(4000);
  });

  it('a trusted parent decides: its trace id always, recording only when its sampled flag is set', async () => {
    const tracing = await startTracing(config(accepting.url, { ratio: 1 }), logger);
    started.push(tracing);
    const parentOf = (flags: string) => propagation.extract(ROOT_CONTEXT, { traceparent: `00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-${flags}`, tracestate: 'vendor=x' });
    const on = tracing.requestSpan(parentOf('01'), undefined, describeGet);
    expect(on.isRecording()).toBe(true);
    expect(on.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    // At ratio 1 a root would be sampled: the parent's unsampled flag is what refuses this one.
    const off = tracing.requestSpan(parentOf('00'), undefined, describeGet);
    expect(off.isRecording()).toBe(false);
    expect(off.spanContext()).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', traceFlags: TraceFlags.NONE });
    expect(off.spanContext().spanId).not.toBe('b7ad6b7169203331');
    expect(off.spanContext().traceState?.get('vendor')).toBe('x');
    on.end();
  });
});

describe('contract §13: the export runs in a worker thread', () => {
  it('this thread never loads the OTLP exporter, its encoder or its HTTP client, and tracing.ts imports none of them', async () => {
    const collector = await holdingCollector();
    collector.release(200);
    try {
      for (const protocol of ['http/json', 'http/protobuf'] as const) {
        const tracing = await startTracing(config(collector.url, { protocol, sampler: 'always_on' }), logger);
        const exported = collector.held();
        tracing.tracer.startSpan('work').end();
        await tracing.shutdown();
        // Exported (by the worker: shutdown flushed it).
        expect(collector.held()).toBe(exported + 1);
      }
    } finally {
      await collector.close();
    }
    // The packages are CommonJS: an import() of one in this thread leaves its files in require.cache (the
    // worker's loads are in its own). The SDK's own packages, loaded here, show that the check sees them.
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.some((f) => f.includes('/@opentelemetry/sdk-trace-base/'))).toBe(true);
    expect(loaded.filter((f) => /\/@opentelemetry\/(exporter-trace-otlp-|otlp-exporter-base|otlp-transformer)/.test(f))).toEqual([]);
    const root = path.resolve(import.meta.dirname, '../..');
    for (const file of ['src/app/tracing.ts', 'src/app/trace-export.ts']) {
      expect(fs.readFileSync(path.join(root, file), 'utf8'), file).not.toMatch(/@opentelemetry\/(exporter-|otlp-)/);
    }
  }, 30_000);
});

describe('contract §13: the export queue is bounded', () => {
  it(`a flush of a full queue while the timer's batch is out stays within the ${MAX_EXPORTS_IN_FLIGHT} exports in flight: nothing fails`, async () => {
    const collector = await holdingCollector();
    try {
      const tracing = await startTracing(config(collector.url, { sampler: 'always_on', batchDelayMs: 60_000 }), logger);
      const registry = new Registry();
      registry.registerMetric(tracing.droppedSpans);
      // A full batch goes out at once (and is held), then the queue fills to its bound.
      const batch = 512;
      for (let i = 0; i < batch + MAX_QUEUED_SPANS; i++) tracing.tracer.startSpan(`work ${i % 7}`).end();
      // Shutting down flushes the whole queue at once.
      const shutting = tracing.shutdown();
      const deadline = Date.now() + 10_000;
      while (collector.held() < MAX_EXPORTS_IN_FLIGHT && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(collector.held()).toBe(MAX_EXPORTS_IN_FLIGHT);
      collector.release(200);
      await shutting;
      const metrics = await registry.metrics();
      expect(metrics).toMatch(/^gateway_trace_spans_dropped_total\{reason="export_failed"\} 0$/m);
      expect(metrics).toMatch(/^gateway_trace_spans_dropped_total\{reason="queue_full"\} 0$/m);
    } finally {
      collector.release(200);
      await collector.close();
    }
  }, 30_000);


  it('a collector that does not answer: spans past the queue’s bound are dropped and counted (queue_full), the held exports then count as export_failed', async () => {
    const collector = await holdingCollector();
    try {
      const tracing = await startTracing(config(collector.url, { sampler: 'always_on' }), logger);
      const registry = new Registry();
      registry.registerMetric(tracing.droppedSpans);
      const before = await registry.metrics();
      // Both reasons are there before anything was dropped.
      expect(before).toMatch(/^gateway_trace_spans_dropped_total\{reason="queue_full"\} 0$/m);
      expect(before).toMatch(/^gateway_trace_spans_dropped_total\{reason="export_failed"\} 0$/m);

      const ended = MAX_QUEUED_SPANS * 3;
      for (let i = 0; i < ended; i++) tracing.tracer.startSpan(`work ${i % 7}`).end();
      const counted = async (reason: string) => Number(new RegExp(`^gateway_trace_spans_dropped_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(await registry.metrics())?.[1] ?? NaN);
      const queueFull = await counted('queue_full');
      // One batch went out (and hangs), the queue filled to its bound, every later span was turned away.
      expect(queueFull).toBeGreaterThanOrEqual(ended - MAX_QUEUED_SPANS - 512);
      expect(queueFull).toBeLessThan(ended - MAX_QUEUED_SPANS);
      // The first batch reaches the collector, which holds it.
      const deadline = Date.now() + 10_000;
      while (collector.held() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(collector.held()).toBe(1);

      // The collector refuses (400: not retried): the held batch and the queued ones count as failed exports.
      collector.release(400);
      const until = Date.now() + 20_000;
      let failed = 0;
      while ((failed = await counted('export_failed')) + queueFull < ended && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(failed + queueFull).toBe(ended);
      expect(await counted('queue_full')).toBe(queueFull);
      await tracing.shutdown();
    } finally {
      collector.release(400);
      await collector.close();
    }
  }, 30_000);
});
