/**
 * The Server-Sent Events response of a GraphQL subscription (contract §8),
 * in the format of Yoga's own SSE processor and of the `graphql-sse`
 * "distinct connections" protocol that GraphiQL and graphql-sse clients read:
 * `event: next` + `data: <ExecutionResult JSON>` per result, then
 * `event: complete` + `data:` when the stream ends.
 *
 * Why not Yoga's processor: its ping interval is fixed (12 s; 300 ms under
 * NODE_ENV=test), it runs one timer per stream, and it knows nothing of the
 * per-key stream slot to free or the request id every error must carry. This
 * one (contract §8b, at a sale's peak):
 * - writes a comment line (`: heartbeat`) every `heartbeatMs` (contract: 15 s)
 *   from ONE timer for every stream of the process ({@link LiveStreamRegistry});
 * - serialises a result once however many streams send it: the JSON is kept
 *   per result object (shared executions hand the same object to every
 *   stream of a group) with the request id spliced in per stream, and a
 *   result without errors is encoded once and the same bytes are written to
 *   every stream;
 * - pushes each event as soon as its source yields it and cuts off a client
 *   that stops reading once more than `maxPendingBytes` wait for it (the
 *   transport stops pulling while the socket is full, so the backlog is
 *   what sits in this stream's queue);
 * - gives every error the contract code and request id (normalizeResultErrors,
 *   as useRequestContext does for single results);
 * - never sends two identical consecutive results (an event means "what you
 *   selected changed");
 * - calls `onClose` exactly once, however the stream ends (completed, client
 *   gone, request aborted, iterator failure), after stopping the heartbeat
 *   and returning the source iterator.
 */
import { hash } from 'node:crypto';
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { FetchAPI } from 'graphql-yoga';
import { normalizeResultErrors, originalOfMasked } from '../error-normalizer.js';

/** Why a stream ended (for the log line). `slow`: cut off, the client stopped reading. */
export type StreamEnd = 'complete' | 'cancelled' | 'aborted' | 'failed' | 'slow';

/** Options of {@link eventStreamResponse}. */
export interface EventStreamOptions {
  /** The process's streams: its one heartbeat timer and its bounds. */
  registry: LiveStreamRegistry;
  /** Request id put on every error. */
  requestId: string;
  /** Aborted when the client goes away (the request's signal). */
  signal?: AbortSignal;
  /** Called once when the stream ends, with the number of events sent (and the failure, if the source threw). */
  onClose: (end: StreamEnd, events: number, error?: unknown) => void;
  /** Called at every heartbeat tick while the stream is open, whether or not the comment could be written (lease renewal). */
  onHeartbeat?: () => void;
  /** Cut the client's connection: its stream was cut off with `pending` bytes waiting (the Node transport destroys the socket). */
  onCutOff?: (pending: number) => void;
  /** Called with the original of every error that was masked as INTERNAL_ERROR in an event (to log it). */
  onUnexpected: (error: unknown) => void;
}

/** Response headers of an event stream; `X-Accel-Buffering: no` keeps nginx-style proxies from buffering it. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

const encoder = new TextEncoder();
/** The SSE frames of one result. */
function nextFrame(data: string): string {
  return `event: next\ndata: ${data}\n\n`;
}
const COMPLETE_FRAME = encoder.encode('event: complete\ndata:\n\n');
const HEARTBEAT_FRAME = encoder.encode(': heartbeat\n\n');
/** A masked failure of the stream itself (the cause is logged by `onClose`, never sent). */
const FAILED_FRAME = encoder.encode(nextFrame(JSON.stringify({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_ERROR' } }] })));

/** Stands for the request id in a result serialised once for many streams (no request id can contain it: see request-state). */
const REQUEST_ID_MARK = '\u0000request-id\u0000';
const REQUEST_ID_MARK_JSON = JSON.stringify(REQUEST_ID_MARK).slice(1, -1);

/** A result serialised once: its JSON text with the request id marked, and, without errors, its frame's bytes. */
interface Serialized {
  text: string;
  /** A digest of `text`: what a stream keeps to recognise the same answer again (not the text: memory per stream). */
  digest: string;
  parts: string[];
  bytes: Uint8Array | undefined;
}
const serializedResults = new WeakMap<ExecutionResult, Serialized>();

/**
 * One result as JSON: contract code and request id on every error, without the `http` extension (a transport
 * detail Yoga also strips before sending). Kept per result object, so a result shared by many streams is
 * serialised (and its masked failures logged) once.
 */
function serialize(result: ExecutionResult, onUnexpected: (error: unknown) => void): Serialized {
  const kept = serializedResults.get(result);
  if (kept !== undefined) return kept;
  const normalized = normalizeResultErrors(result as ExecutionResult & { errors?: readonly GraphQLError[] }, REQUEST_ID_MARK);
  const errors = normalized.errors?.map((e) => {
    const original = originalOfMasked(e);
    if (original !== undefined) onUnexpected(original);
    const { http: _http, ...extensions } = e.extensions as Record<string, unknown>;
    return { ...e.toJSON(), extensions };
  });
  const { http: _http, ...extensions } = (normalized.extensions ?? {}) as Record<string, unknown>;
  const text = JSON.stringify({ errors, data: normalized.data, extensions: Object.keys(extensions).length > 0 ? extensions : undefined });
  const parts = text.split(REQUEST_ID_MARK_JSON);
  const serialized: Serialized = { text, digest: hash('sha256', text, 'base64'), parts, bytes: parts.length === 1 ? encoder.encode(nextFrame(text)) : undefined };
  serializedResults.set(result, serialized);
  return serialized;
}

/** One open stream as the registry sees it. */
interface OpenStream {
  heartbeat(): void;
  /** End it now (server shutting down is the source's job; this is for the registry's own close). */
  cutOff(): void;
}

/** Options of {@link LiveStreamRegistry}. */
export interface LiveStreamRegistryOptions {
  /** Interval of the heartbeat comment, ms (contract: 15 s). */
  heartbeatMs: number;
  /** Bytes that may wait for a client before it is cut off (> 0). */
  maxPendingBytes: number;
}

/**
 * The event streams open in this process: one heartbeat timer for all of them (not one per stream), started
 * with the first and stopped with the last. Bound: holds exactly the open streams (each deletes itself when it
 * ends); their number is bounded by MAX_OPEN_STREAMS before any is opened (use-live-streams.ts).
 */
export class LiveStreamRegistry {
  readonly heartbeatMs: number;
  readonly maxPendingBytes: number;
  readonly #streams = new Set<OpenStream>();
  #timer: NodeJS.Timeout | undefined;
  /** Streams cut off because their client stopped reading (a counter for /metrics). */
  slowCutOffs = 0;

  constructor(options: LiveStreamRegistryOptions) {
    if (!Number.isInteger(options.heartbeatMs) || options.heartbeatMs <= 0) throw new Error('LiveStreamRegistry: heartbeatMs must be a positive integer');
    if (!Number.isInteger(options.maxPendingBytes) || options.maxPendingBytes <= 0) throw new Error('LiveStreamRegistry: maxPendingBytes must be a positive integer');
    this.heartbeatMs = options.heartbeatMs;
    this.maxPendingBytes = options.maxPendingBytes;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** True while the one heartbeat timer runs (tests). */
  get ticking(): boolean {
    return this.#timer !== undefined;
  }

  add(stream: OpenStream): void {
    this.#streams.add(stream);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        for (const s of this.#streams) s.heartbeat();
      }, this.heartbeatMs);
      // An open stream keeps its socket (and so the process) alive; the timer need not.
      this.#timer.unref();
    }
  }

  delete(stream: OpenStream): void {
    if (this.#streams.delete(stream) && this.#streams.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}

/** Queue sizes in bytes, so `desiredSize` is minus the bytes waiting for the client. */
const BYTES: QueuingStrategy<Uint8Array> = { highWaterMark: 0, size: (chunk) => chunk.byteLength };

/** Stream `results` as Server-Sent Events (see the module comment). */
export function eventStreamResponse(results: AsyncIterable<ExecutionResult>, fetchAPI: FetchAPI, options: EventStreamOptions): Response {
  const { registry, requestId } = options;
  const iterator = results[Symbol.asyncIterator]();
  let previous: string | undefined;
  let events = 0;
  let ended = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;

  const end = (how: StreamEnd, error?: unknown): void => {
    if (ended) return;
    ended = true;
    registry.delete(open);
    options.signal?.removeEventListener('abort', onAbort);
    // Detach the source (unsubscribe, free its watcher); completion of return() is not waited for.
    if (how !== 'complete') void Promise.resolve(iterator.return?.()).catch(() => undefined);
    options.onClose(how, events, error);
  };
  const pending = (): number => -(controller.desiredSize ?? 0);
  /** Queue bytes; false when the stream ended (closed, or cut off because its client stopped reading). */
  const write = (bytes: Uint8Array): boolean => {
    if (ended) return false;
    try {
      controller.enqueue(bytes);
    } catch {
      // The consumer went away between our checks: cancel() ends the stream.
      return false;
    }
    const waiting = pending();
    if (waiting > registry.maxPendingBytes) {
      registry.slowCutOffs += 1;
      end('slow');
      // The connection goes (the transport would wait for the client to drain it forever), and the body ends.
      options.onCutOff?.(waiting);
      try {
        controller.close();
      } catch {
        // Already closed.
      }
      return false;
    }
    return true;
  };
  const onAbort = (): void => {
    end('aborted');
    try {
      controller.close();
    } catch {
      // Already closed or errored by the consumer going away: nothing left to close.
    }
  };
  const open: OpenStream = {
    heartbeat: () => {
      if (ended) return;
      options.onHeartbeat?.();
      // Only to an idle connection: behind a backlog a heartbeat would only add to it.
      if (controller.desiredSize === 0) write(HEARTBEAT_FRAME);
    },
    cutOff: onAbort,
  };

  const pump = async (): Promise<void> => {
    while (!ended) {
      let step: IteratorResult<ExecutionResult>;
      try {
        step = await iterator.next();
      } catch (err) {
        if (ended) return;
        write(FAILED_FRAME);
        write(COMPLETE_FRAME);
        end('failed', err);
        controller.close();
        return;
      }
      if (ended) return;
      if (step.done) {
        write(COMPLETE_FRAME);
        end('complete');
        controller.close();
        return;
      }
      const serialized = serialize(step.value, options.onUnexpected);
      // An event means "what you selected changed": the same answer again is not sent.
      if (serialized.digest === previous) continue;
      previous = serialized.digest;
      events += 1;
      if (!write(serialized.bytes ?? encoder.encode(nextFrame(serialized.parts.join(requestId))))) return;
    }
  };

  // Node's own ReadableStream, not the fetch ponyfill's: its queue honours the byte-size strategy, so
  // `desiredSize` is minus the bytes waiting (the ponyfill's is a constant). The Response reads it on demand.
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        // A first comment flushes the headers at once (some clients wait for the first body bytes).
        c.enqueue(HEARTBEAT_FRAME);
        registry.add(open);
        if (options.signal?.aborted) {
          onAbort();
          return;
        }
        options.signal?.addEventListener('abort', onAbort, { once: true });
        pump().catch((err: unknown) => {
          // pump handles its source's failures itself; anything else is a bug: end the stream, report it.
          end('failed', err);
          try {
            controller.error(err);
          } catch {
            // Already errored.
          }
        });
      },
      cancel() {
        end('cancelled');
      },
    },
    BYTES,
  );
  return new fetchAPI.Response(stream, { status: 200, headers: EVENT_STREAM_HEADERS });
}
