/**
 * Contract §13: the span exporter of the server's tracer provider (src/app/tracing.ts), which hands each batch,
 * as plain data, to a worker thread that encodes and sends it over OTLP/HTTP (./trace-export-worker.ts). The
 * server's isolate never loads or runs the OTLP exporter: its HTTP client and protobuf writer would widen the
 * hidden classes and inline caches of the node:http, net and stream code of the server's own request path.
 *
 * Faults of the worker cost spans (each failed export is counted by tracing.ts's wrapper), never a request:
 * - a worker that crashes or exits fails its exports in flight; every later export fails at once until a new
 *   worker starts, which the next export does, at most one start per {@link WorkerExporterOptions.restartIntervalMs};
 * - an export without an answer within {@link WorkerExporterOptions.answerTimeoutMs} fails, and its worker is
 *   stopped (a worker that does not answer within its exporter's own limit is stuck, and would pile up every
 *   later batch), to be replaced on the same terms;
 * - at most {@link WorkerExporterOptions.maxInFlight} exports are in flight; one more fails at once, so the
 *   batches held for the worker (in this thread and in it) are bounded whatever goes wrong.
 * The worker is unref()ed: it never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';
import type { ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Link, SpanContext } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { ExportWorkerData, FromExportWorker, PlainContext, PlainSpan, ToExportWorker } from './trace-export-worker.js';
import { workerModule } from '../shared/worker-module.js';

/** The worker's module (src/shared/worker-module.ts). */
export const TRACE_EXPORT_WORKER: URL = workerModule(import.meta.url, './trace-export-worker.ts', './trace-export-worker.mjs');

/** The least time between two starts of the worker (ms), by default: a worker that dies at every batch costs one start per 10 s. */
const RESTART_INTERVAL_MS = 10_000;

/** How long the first worker may take to load the exporter at boot (ms); past it the start fails. */
const READY_TIMEOUT_MS = 30_000;

/** How long a shut-down worker may take to end by itself (ms) before it is stopped. */
const EXIT_TIMEOUT_MS = 2_000;

export interface WorkerExporterOptions {
  /** What the worker is started with: where it sends, how, the resource, its exporter's time limit. */
  data: ExportWorkerData;
  logger: Logger;
  /** How long an export's answer is awaited (ms): more than `data.timeoutMillis`, the worker's own limit. */
  answerTimeoutMs: number;
  /** Exports in flight at most. */
  maxInFlight: number;
  /** See {@link RESTART_INTERVAL_MS}. */
  restartIntervalMs?: number;
  /** The worker's module (default {@link TRACE_EXPORT_WORKER}); tests put stand-ins here that crash or hang. */
  module?: URL;
}

/** The plain data of a span context. */
function plainContext(ctx: SpanContext): PlainContext {
  return { traceId: ctx.traceId, spanId: ctx.spanId, traceFlags: ctx.traceFlags, traceState: ctx.traceState?.serialize(), isRemote: ctx.isRemote };
}

const plainLink = (l: Link): PlainSpan['links'][number] => ({ context: plainContext(l.context), attributes: l.attributes, droppedAttributesCount: l.droppedAttributesCount });

/** The plain data of a span the SDK finished: what the worker rebuilds a ReadableSpan from. */
export function toPlain(span: ReadableSpan): PlainSpan {
  const parent = span.parentSpanContext;
  const scope = span.instrumentationScope;
  return {
    name: span.name,
    kind: span.kind,
    context: plainContext(span.spanContext()),
    parentSpanId: parent?.spanId,
    parentIsRemote: parent?.isRemote,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
    status: span.status,
    events: span.events,
    droppedEventsCount: span.droppedEventsCount,
    links: span.links.map(plainLink),
    droppedLinksCount: span.droppedLinksCount,
    scope: { name: scope.name, version: scope.version, schemaUrl: scope.schemaUrl },
  };
}

interface Pending {
  done: (result: ExportResult) => void;
  timer: NodeJS.Timeout;
  worker: Worker;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class WorkerExporter implements SpanExporter {
  readonly #options: WorkerExporterOptions;
  readonly #codes: typeof ExportResultCode;
  readonly #module: URL;
  readonly #restartIntervalMs: number;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #worker: Worker | null = null;
  /** When the last worker was started (ms since the epoch). */
  #startedAt = 0;
  /** How many workers were started: the first at boot, then one per restart. */
  #starts = 0;
  #closed: Promise<void> | null = null;
  /** While the boot waits for the first worker: its faults are the boot's error, not log lines. */
  #booting = true;
  /** Waiting for {@link forceFlush}: resolved when nothing is in flight. */
  #idle: (() => void)[] = [];

  private constructor(options: WorkerExporterOptions, codes: typeof ExportResultCode) {
    this.#options = options;
    this.#codes = codes;
    this.#module = options.module ?? TRACE_EXPORT_WORKER;
    this.#restartIntervalMs = options.restartIntervalMs ?? RESTART_INTERVAL_MS;
  }

  /** Start the exporter and its worker, and wait until the worker has its exporter: a bad module or URL stops the boot. */
  static async start(options: WorkerExporterOptions): Promise<WorkerExporter> {
    const { ExportResultCode } = await import('@opentelemetry/core');
    const exporter = new WorkerExporter(options, ExportResultCode);
    const worker = exporter.#spawn();
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
        worker.on('message', (m: FromExportWorker) => {
          if (!('ready' in m)) return;
          if (m.ready) resolve();
          else reject(new Error(m.error));
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`it exited with code ${code}`)));
      });
    } catch (err) {
      exporter.#closed = worker.terminate().then(() => undefined);
      throw new Error(`the trace export worker did not start: ${describe(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      exporter.#booting = false;
    }
    return exporter;
  }

  /** Workers started so far (the boot's included). */
  get starts(): number {
    return this.#starts;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.#closed !== null) return done(this.#failed('the trace exporter is shut down'));
    if (this.#pending.size >= this.#options.maxInFlight) return done(this.#failed(`${this.#options.maxInFlight} exports already in flight to the trace export worker`));
    const worker = this.#worker ?? this.#restart();
    if (worker === null) return done(this.#failed('the trace export worker is down; a new one starts with a later export'));
    const id = this.#nextId++;
    const timer = setTimeout(() => this.#timedOut(id), this.#options.answerTimeoutMs);
    timer.unref();
    this.#pending.set(id, { done, timer, worker });
    try {
      worker.postMessage({ id, spans: spans.map(toPlain) } satisfies ToExportWorker);
    } catch (err) {
      // A value the structured clone refuses (the SDK keeps attributes to primitives and their arrays).
      this.#settle(id, this.#failed(`the spans could not be handed to the trace export worker: ${describe(err)}`));
    }
  }

  /** Resolves once every export in flight is answered (or timed out: bounded by the answer time-out). */
  forceFlush(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Wait for the exports in flight, then end the worker; later exports fail. */
  shutdown(): Promise<void> {
    this.#closed ??= this.forceFlush().then(() => this.#end());
    return this.#closed;
  }

  async #end(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ shutdown: true } satisfies ToExportWorker);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), EXIT_TIMEOUT_MS)));
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
    clearTimeout(timer);
  }

  #failed(message: string): ExportResult {
    return { code: this.#codes.FAILED, error: new Error(message) };
  }

  #spawn(): Worker {
    const worker = new Worker(this.#module, { workerData: this.#options.data });
    worker.unref();
    this.#worker = worker;
    this.#startedAt = Date.now();
    this.#starts += 1;
    worker.on('message', (m: FromExportWorker) => {
      if ('id' in m) {
        this.#settle(m.id, m.ok ? { code: this.#codes.SUCCESS } : this.#failed(m.error ?? 'export failed'));
      } else if (this.#booting) {
        // start() takes the first worker's readiness.
      } else if (!m.ready) {
        this.#options.logger.warn({ err: m.error }, 'a new trace export worker could not load its exporter; it is stopped');
        this.#stop(worker);
      } else {
        this.#options.logger.info('a new trace export worker is ready');
      }
    });
    // An uncaught exception in the worker: its 'exit' follows, which fails what it had.
    worker.on('error', (err) => {
      if (!this.#booting) this.#options.logger.warn({ err }, 'the trace export worker failed');
    });
    worker.on('exit', (code) => this.#exited(worker, code));
    return worker;
  }

  /** A new worker, unless the last one started less than the restart interval ago. */
  #restart(): Worker | null {
    if (Date.now() - this.#startedAt < this.#restartIntervalMs) return null;
    this.#options.logger.warn({ restartIntervalMs: this.#restartIntervalMs }, 'starting a new trace export worker');
    try {
      return this.#spawn();
    } catch (err) {
      this.#options.logger.warn({ err }, 'the trace export worker could not be started');
      return null;
    }
  }

  #exited(worker: Worker, code: number): void {
    if (this.#worker === worker) this.#worker = null;
    let failed = 0;
    for (const [id, pending] of this.#pending) {
      if (pending.worker !== worker) continue;
      failed += 1;
      this.#settle(id, this.#failed(`the trace export worker exited (code ${code})`));
    }
    if (this.#closed === null && !this.#booting) this.#options.logger.warn({ code, failedExports: failed }, 'the trace export worker exited; spans fail until a new one starts with a later export');
  }

  /** Stop a worker; its exit fails its exports in flight. */
  #stop(worker: Worker): void {
    if (this.#worker === worker) this.#worker = null;
    void worker.terminate();
  }

  #timedOut(id: number): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#settle(id, this.#failed(`no answer from the trace export worker within ${this.#options.answerTimeoutMs} ms`));
    if (this.#worker === pending.worker) {
      this.#options.logger.warn({ answerTimeoutMs: this.#options.answerTimeoutMs }, 'the trace export worker gave no answer in time; it is stopped');
      this.#stop(pending.worker);
    }
  }

  #settle(id: number, result: ExportResult): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    pending.done(result);
    if (this.#pending.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}
