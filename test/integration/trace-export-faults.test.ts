/**
 * Contract §13: "an unreachable collector loses spans (counted on /metrics), never requests", for the export
 * worker's own faults (src/app/trace-export.ts): a worker that crashes, exits or hangs while the app serves
 * requests. Every request is answered, the failed batch is counted in gateway_trace_spans_dropped_total on
 * /metrics, and a later request's spans reach the collector through a new worker.
 * Stand-in workers (data: URLs wrapping the real module) fault on a span named `fault-now`.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/app/tracing.js';
import type { Tracing } from '../../src/shared/tracing.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const REAL_WORKER = new URL('../../src/app/trace-export-worker.ts', import.meta.url).href;
const faulty = (fault: string) =>
  new URL(
    `data:text/javascript,${encodeURIComponent(`
      import { parentPort } from 'node:worker_threads';
      parentPort.on('message', (m) => { if (m.spans?.some((s) => s.name === 'fault-now')) { ${fault} } });
      await import(${JSON.stringify(REAL_WORKER)});
    `)}`,
  );

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The named GraphQL operation's `graphql.execute` span, once the collector has it. */
const executed = (receiver: OtlpReceiver, operation: string) =>
  receiver.waitFor((spans) => spans.some((s) => s.name === 'graphql.execute' && s.attributes['graphql.operation.name'] === operation));

async function dropped(t: TestApp): Promise<number> {
  const text = await (await t.fetch('/metrics')).text();
  return Number(/^gateway_trace_spans_dropped_total\{reason="export_failed"\} (\d+)$/m.exec(text)?.[1] ?? NaN);
}

describe('contract §13: the export worker’s faults cost spans, never requests', () => {
  it.each([
    ['crashes', "throw new Error('boom');", /the trace export worker exited/],
    ['exits', 'process.exit(7);', /the trace export worker exited/],
    ['hangs', 'for (;;);', /gave no answer in time/],
  ])(
    'a worker that %s: requests answered, the batch counted on /metrics, later spans exported by a new worker',
    async (_name, fault, logged) => {
      const receiver = await startOtlpReceiver();
      cleanups.push(() => receiver.close());
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      // The answer time-out is the production one (the hang's batch fails after it); a new worker starts with
      // the first export after a fault.
      const tracing: Tracing = await startTracing(
        { url: `${receiver.url}/v1/traces`, protocol: 'http/json', headers: {}, serviceName: 'gw-faults', resourceAttributes: {}, sampler: 'always_on', ratio: 1, batchDelayMs: 1 },
        logger,
        { exportWorker: faulty(fault), restartIntervalMs: 0 },
      );
      cleanups.push(() => tracing.shutdown());
      // Through the Node transport, which makes a request's SERVER span (the in-process one makes none).
      const t = await createTestApp({ transport: 'node', app: { tracing } });
      cleanups.push(() => t.close());

      const query = (name: string) => gql(t, `query ${name} { paymentChannels { code } }`);
      expect((await query('Before')).status).toBe(200);
      await executed(receiver, 'Before');
      expect(await dropped(t)).toBe(0);

      tracing.tracer.startSpan('fault-now').end();
      for (let i = 0; i < 3; i++) expect((await query('During')).status).toBe(200);
      const deadline = Date.now() + 30_000;
      while ((await dropped(t)) === 0 && Date.now() < deadline) {
        expect((await query('During')).status).toBe(200);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await dropped(t)).toBeGreaterThan(0);

      expect((await query('After')).status).toBe(200);
      await executed(receiver, 'After');
      expect(lines.some((l) => logged.test(l))).toBe(true);
      expect(lines.some((l) => l.includes('starting a new trace export worker'))).toBe(true);
    },
    60_000,
  );
});
