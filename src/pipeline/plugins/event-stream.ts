/**
 * The Server-Sent Events response of a GraphQL subscription (contract §8),
 * in the format of Yoga's own SSE processor and of the `graphql-sse`
 * "distinct connections" protocol that GraphiQL and graphql-sse clients read:
 * `event: next` + `data: <ExecutionResult JSON>` per result, then
 * `event: complete` + `data:` when the stream ends.
 *
 * Why not Yoga's processor: its ping interval is fixed (12 s; 300 ms under
 * NODE_ENV=test) and it knows nothing of the per-key stream slot to free or
 * the request id every error must carry. This one:
 * - writes a comment line (`: heartbeat`) every `heartbeatMs` (contract: 15 s);
 * - gives every error the contract code and request id (normalizeResultErrors,
 *   as useRequestContext does for single results);
 * - never sends two identical consecutive results (an event means "what you
 *   selected changed");
 * - calls `onClose` exactly once, however the stream ends (completed, client
 *   gone, request aborted, iterator failure), after stopping the heartbeat
 *   and returning the source iterator.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { FetchAPI } from 'graphql-yoga';
import { normalizeResultErrors, originalOfMasked } from '../error-normalizer.js';

/** Why a stream ended (for the log line). */
export type StreamEnd = 'complete' | 'cancelled' | 'aborted' | 'failed';

/** Options of {@link eventStreamResponse}. */
export interface EventStreamOptions {
  /** Interval of the heartbeat comment, ms (> 0). */
  heartbeatMs: number;
  /** Request id put on every error. */
  requestId: string;
  /** Aborted when the client goes away (the request's signal). */
  signal?: AbortSignal;
  /** Called once when the stream ends, with the number of events sent (and the failure, if the source threw). */
  onClose: (end: StreamEnd, events: number, error?: unknown) => void;
  /** Called at every heartbeat tick while the stream is open, whether or not the comment could be written (lease renewal). */
  onHeartbeat?: () => void;
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

/** The SSE frames of one result. */
function nextFrame(data: string): string {
  return `event: next\ndata: ${data}\n\n`;
}
const COMPLETE_FRAME = 'event: complete\ndata:\n\n';
const HEARTBEAT_FRAME = ': heartbeat\n\n';
/** A masked failure of the stream itself (the cause is logged by `onClose`, never sent). */
const FAILED_RESULT = JSON.stringify({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_ERROR' } }] });

/**
 * One result as JSON: contract code and request id on every error, without the `http` extension (a transport
 * detail Yoga also strips before sending).
 */
function serialize(result: ExecutionResult, options: EventStreamOptions): string {
  const normalized = normalizeResultErrors(result as ExecutionResult & { errors?: readonly GraphQLError[] }, options.requestId);
  const errors = normalized.errors?.map((e) => {
    const original = originalOfMasked(e);
    if (original !== undefined) options.onUnexpected(original);
    const { http: _http, ...extensions } = e.extensions as Record<string, unknown>;
    return { ...e.toJSON(), extensions };
  });
  const { http: _http, ...extensions } = (normalized.extensions ?? {}) as Record<string, unknown>;
  return JSON.stringify({ errors, data: normalized.data, extensions: Object.keys(extensions).length > 0 ? extensions : undefined });
}

/** Stream `results` as Server-Sent Events (see the module comment). */
export function eventStreamResponse(results: AsyncIterable<ExecutionResult>, fetchAPI: FetchAPI, options: EventStreamOptions): Response {
  if (!Number.isInteger(options.heartbeatMs) || options.heartbeatMs <= 0) throw new Error('eventStreamResponse: heartbeatMs must be a positive integer');
  const encoder = new fetchAPI.TextEncoder();
  const iterator = results[Symbol.asyncIterator]();
  let heartbeat: NodeJS.Timeout | undefined;
  let previous: string | undefined;
  let events = 0;
  let ended = false;

  const end = (how: StreamEnd, error?: unknown): void => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    options.signal?.removeEventListener('abort', onAbort);
    // Detach the source (unsubscribe, free its watcher); completion of return() is not waited for.
    if (how !== 'complete') void Promise.resolve(iterator.return?.()).catch(() => undefined);
    options.onClose(how, events, error);
  };
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  const onAbort = () => {
    end('aborted');
    try {
      controllerRef?.close();
    } catch {
      // Already closed or errored by the consumer going away: nothing left to close.
    }
  };

  const stream = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controllerRef = controller;
      // A first comment flushes the headers at once (some clients wait for the first body bytes).
      controller.enqueue(encoder.encode(HEARTBEAT_FRAME));
      heartbeat = setInterval(() => {
        if (!ended) options.onHeartbeat?.();
        // desiredSize null: errored; ≤ 0: the client reads slowly, a heartbeat would only add to the backlog.
        if (!ended && controller.desiredSize !== null && controller.desiredSize > 0) controller.enqueue(encoder.encode(HEARTBEAT_FRAME));
      }, options.heartbeatMs);
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      // Loop until something is written: a skipped duplicate must not stall the stream.
      while (!ended) {
        let step: IteratorResult<ExecutionResult>;
        try {
          step = await iterator.next();
        } catch (err) {
          if (ended) return;
          controller.enqueue(encoder.encode(nextFrame(FAILED_RESULT) + COMPLETE_FRAME));
          end('failed', err);
          controller.close();
          return;
        }
        if (ended) return;
        if (step.done) {
          controller.enqueue(encoder.encode(COMPLETE_FRAME));
          end('complete');
          controller.close();
          return;
        }
        const data = serialize(step.value, options);
        if (data === previous) continue;
        previous = data;
        events += 1;
        controller.enqueue(encoder.encode(nextFrame(data)));
        return;
      }
    },
    cancel() {
      end('cancelled');
    },
  });
  return new fetchAPI.Response(stream, { status: 200, headers: EVENT_STREAM_HEADERS });
}
