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
 *   that stops reading once more than `maxPendingBytes` wait for it: over
 *   Node the transport hands the socket itself to the stream ({@link EventSink};
 *   the backlog is what Node holds for the socket beyond the kernel's
 *   buffers), in process it is what the reader has not read;
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
import { EVENT_STREAM, type EventSink, type ResponseWithEventStream, type SinkClosed } from '../responses.js';
import { isPullSource, type PullReceiver } from '../../shared/pull.js';

/** Why a stream ended (for the log line). `slow`: cut off, the client stopped reading. */
export type StreamEnd = 'complete' | 'cancelled' | 'aborted' | 'failed' | 'slow';

/** Options of {@link eventStreamResponse}. */
export interface EventStreamOptions {
  /** The process's streams: its one heartbeat timer and its bounds. */
  registry: LiveStreamRegistry;
  /** Request id put on every error. */
  requestId: string;
  /** Called once when the stream ends, with the number of events sent (and the failure, if the source threw). */
  onClose: (end: StreamEnd, events: number, error?: unknown) => void;
  /** Called at every heartbeat tick while the stream is open, whether or not the comment could be written (lease renewal). */
  onHeartbeat?: () => void;
  /** In process: the client's abort (the request's signal), which ends the stream. */
  signal?: AbortSignal;
  /** True when the Node transport writes the response (it attaches the socket as the sink: {@link EVENT_STREAM}). */
  direct?: boolean;
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
/** What comes before and after an answer's JSON in its SSE frame. */
export const FRAME_HEAD = 'event: next\ndata: ';
export const FRAME_TAIL = '\n\n';
/** The SSE frame of one answer's JSON. */
export function nextFrame(data: string): string {
  return FRAME_HEAD + data + FRAME_TAIL;
}
const COMPLETE_FRAME = encoder.encode('event: complete\ndata:\n\n');
const HEARTBEAT_FRAME = encoder.encode(': heartbeat\n\n');
/** A masked failure of the stream itself (the cause is logged by `onClose`, never sent). */
const FAILED_FRAME = encoder.encode(nextFrame(JSON.stringify({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_ERROR' } }] })));

/**
 * An event whose answer is computed when it is delivered (a page refilled from its class's answer,
 * shared-executions.ts). Why: the streams a change wakes are all resumed before any of them delivers (each
 * is a chain of promise reactions, run breadth first), so answers computed on resumption would all be alive
 * at once, 15,000 answer trees at a sale's peak for the garbage collector to copy and promote. Computed at
 * delivery, each answer is serialised, written and dropped before the next is computed.
 */
export const DEFERRED_ANSWER = Symbol('deferredAnswer');
export interface DeferredAnswer {
  /** The answer, for the stream with this request id (which a {@link SerializedAnswer} carries in its frame). */
  [DEFERRED_ANSWER](requestId: string): ExecutionResult | Promise<ExecutionResult>;
}
/** What a stream's source yields: a result, or one to compute at delivery. */
export type LiveEvent = ExecutionResult | DeferredAnswer;

function isDeferred(event: LiveEvent): event is DeferredAnswer {
  return DEFERRED_ANSWER in event;
}

/** Stands for the request id in a result serialised once for many streams (no request id can contain it: see request-state). */
const REQUEST_ID_MARK = '\u0000request-id\u0000';
/** The request id's mark as it reads in {@link answerText}'s JSON. */
export const REQUEST_ID_MARK_JSON = JSON.stringify(REQUEST_ID_MARK).slice(1, -1);

/** A result serialised once: its frame with the request id marked, and, without errors, the frame's bytes. */
interface Serialized {
  /** A digest of the marked text: what a stream keeps to recognise the same answer again (not the text: memory per stream). */
  digest: string;
  /** The `event: next` frame, the request id marked where it goes. */
  frame: string;
  /** The frame's bytes when it has no request id to put in (no errors): the same bytes for every stream. */
  bytes: Uint8Array | undefined;
}
const serializedResults = new WeakMap<ExecutionResult, Serialized>();

/**
 * One stream's answer already made (a templated page's, event-templates.ts): its whole `event: next` frame,
 * this stream's request id in it, and the digest that tells the stream's answers apart: its shape's digest and
 * a stamp of its own values (event-templates.ts `refill`), so two templated answers of one stream have equal
 * digests exactly when they are the same answer (its request id is the same in all). A templated stream's answers are all
 * made this way (shared-executions.ts `answerFrom`) except when its page cannot be (a failure that is not a
 * contract error, a change whose answer has no list): that answer's digest is answerText's, so an equal
 * answer on either side of it is sent again once.
 */
export const SERIALIZED = Symbol('serialized');
export interface SerializedAnswer extends ExecutionResult {
  readonly [SERIALIZED]: { readonly frame: string; readonly digest: string };
}

/**
 * One result as the JSON of an event: contract code and request id on every error (the request id marked,
 * {@link REQUEST_ID_MARK}), without the `http` extension (a transport detail Yoga also strips before sending).
 * Masked failures are reported to `onUnexpected` (logged once per serialised result).
 */
export function answerText(result: ExecutionResult, onUnexpected: (error: unknown) => void): string {
  const normalized = normalizeResultErrors(result as ExecutionResult & { errors?: readonly GraphQLError[] }, REQUEST_ID_MARK);
  const errors = normalized.errors?.map((e) => {
    const original = originalOfMasked(e);
    if (original !== undefined) onUnexpected(original);
    const { http: _http, ...extensions } = e.extensions as Record<string, unknown>;
    return { ...e.toJSON(), extensions };
  });
  const { http: _http, ...extensions } = (normalized.extensions ?? {}) as Record<string, unknown>;
  return JSON.stringify({ errors, data: normalized.data, extensions: Object.keys(extensions).length > 0 ? extensions : undefined });
}

/**
 * One result serialised, kept per result object, so a result shared by many streams is serialised (and its
 * masked failures logged) once.
 */
function serialize(result: ExecutionResult, onUnexpected: (error: unknown) => void): Serialized {
  const kept = serializedResults.get(result);
  if (kept !== undefined) return kept;
  const text = answerText(result, onUnexpected);
  const frame = nextFrame(text);
  const serialized: Serialized = { digest: hash('sha256', text, 'base64'), frame, bytes: result.errors?.length ? undefined : encoder.encode(frame) };
  serializedResults.set(result, serialized);
  return serialized;
}

/** One open stream as the registry sees it ({@link EventStream}). */
interface OpenStream {
  heartbeat(): void;
  /** Its first bytes, if it has written none yet ({@link LiveStreamRegistry.awaitFirstBytes}). */
  flushHeaders(): void;
  /** End it now (server shutting down is the source's job; this is for the registry's own close). */
  cutOff(): void;
}

/** Options of {@link LiveStreamRegistry}. */
export interface LiveStreamRegistryOptions {
  /** Interval of the heartbeat comment, ms (contract: 15 s). */
  heartbeatMs: number;
  /** Bytes that may wait for a client before it is cut off (> 0). */
  maxPendingBytes: number;
  /** How long a new stream's headers may wait for its first event (ms, default {@link FIRST_BYTES_MS}). */
  firstBytesMs?: number;
}

/**
 * How long a new stream's headers wait for its first event before a heartbeat comment sends them. Why they
 * wait at all: the first event (the current list) comes a turn of the change feed after the response is
 * made, and written apart the headers and that event were two socket writes per page opened; on loopback
 * each write also runs the receiving side's TCP work, and opening at a sale's peak (≥ 1,500 pages per
 * second) is bounded by the server's CPU per open. Bounded: a client sees its headers within this
 * delay whatever its first event does.
 */
export const FIRST_BYTES_MS = 50;

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
  readonly firstBytesMs: number;
  /** Streams that have written nothing yet (each leaves at its first write, or when it ends). */
  readonly #unflushed = new Set<OpenStream>();
  /** One timer for all of them: armed by the first stream to wait when none is; it flushes every waiting one. */
  #flushTimer: NodeJS.Timeout | undefined;
  /** Streams cut off because their client stopped reading (a counter for /metrics). */
  slowCutOffs = 0;
  /** Told of every event written to a page (contract §13: the `live.fan_out` span); undefined while tracing is off. */
  eventWritten: (() => void) | undefined;

  constructor(options: LiveStreamRegistryOptions) {
    if (!Number.isInteger(options.heartbeatMs) || options.heartbeatMs <= 0) throw new Error('LiveStreamRegistry: heartbeatMs must be a positive integer');
    if (!Number.isInteger(options.maxPendingBytes) || options.maxPendingBytes <= 0) throw new Error('LiveStreamRegistry: maxPendingBytes must be a positive integer');
    this.heartbeatMs = options.heartbeatMs;
    this.maxPendingBytes = options.maxPendingBytes;
    this.firstBytesMs = options.firstBytesMs ?? FIRST_BYTES_MS;
    if (!Number.isInteger(this.firstBytesMs) || this.firstBytesMs < 0) throw new Error('LiveStreamRegistry: firstBytesMs must be a non-negative integer');
  }

  /**
   * A new stream that has not written yet: its headers go with its first write, or with a heartbeat comment
   * from the one first-bytes timer (within {@link firstBytesMs}) if that comes first.
   */
  awaitFirstBytes(stream: OpenStream): void {
    this.#unflushed.add(stream);
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      const waiting = [...this.#unflushed];
      this.#unflushed.clear();
      for (const s of waiting) s.flushHeaders();
    }, this.firstBytesMs);
    this.#flushTimer.unref();
  }

  /** The stream wrote (or ended): it no longer waits for its first bytes. */
  flushed(stream: OpenStream): void {
    this.#unflushed.delete(stream);
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
    this.#unflushed.delete(stream);
    if (this.#streams.delete(stream) && this.#streams.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}

/**
 * One open stream: pushes each event of its source to its sink as soon as the source yields it. A class with
 * fields, not a web ReadableStream and a pump (the design before the direct writer): an open stream's
 * memory is this object, its source's iterators and its connection (contract §8b, bounded memory).
 *
 * Invariants: attached at most once; `onClose` is called exactly once, after the stream left the registry
 * and its source was returned (unless it completed); nothing is written after the end.
 */
export class EventStream implements NonNullable<ResponseWithEventStream[typeof EVENT_STREAM]>, PullReceiver<LiveEvent> {
  readonly #iterator: AsyncIterator<LiveEvent>;
  readonly #options: EventStreamOptions;
  #sink: EventSink | undefined;
  #previous: string | undefined;
  #events = 0;
  #ended = false;
  /** Nothing written yet (the headers wait for the first write: {@link LiveStreamRegistry.awaitFirstBytes}). */
  #unflushed = true;

  constructor(results: AsyncIterable<LiveEvent>, options: EventStreamOptions) {
    this.#iterator = results[Symbol.asyncIterator]();
    this.#options = options;
  }

  /**
   * Start streaming into `sink` (once). Returns what the sink calls when the client goes away before the end
   * (its connection closed, the body cancelled).
   */
  attach(sink: EventSink): SinkClosed {
    if (this.#sink !== undefined) throw new Error('EventStream: already attached');
    this.#sink = sink;
    this.#options.registry.add(this);
    // The headers go with the first event when it comes soon (one socket write per open, not two), else with
    // a heartbeat comment (some clients wait for the first body bytes).
    this.#options.registry.awaitFirstBytes(this);
    this.#pump();
    return (how = 'aborted') => this.#end(how);
  }

  /** The registry's tick (one timer for every stream). */
  heartbeat(): void {
    if (this.#ended) return;
    this.#options.onHeartbeat?.();
    // Only to an idle connection: behind a backlog a heartbeat would only add to it.
    if (this.#sink!.pending() === 0) this.#write(HEARTBEAT_FRAME);
  }

  /** The first-bytes timer: nothing was written yet, so a comment sends the headers. */
  flushHeaders(): void {
    if (this.#unflushed) this.#write(HEARTBEAT_FRAME);
  }

  /** End now (the registry's own close). */
  cutOff(): void {
    if (this.#ended) return;
    this.#end('aborted');
    this.#sink?.end();
  }

  #end(how: StreamEnd, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#options.registry.delete(this);
    // Detach the source (unsubscribe, free its watcher); completion of return() is not waited for.
    if (how !== 'complete') void Promise.resolve(this.#iterator.return?.()).catch(() => undefined);
    this.#options.onClose(how, this.#events, error);
  }

  /**
   * Write bytes; false when the stream ended (closed, or cut off because its client stopped reading). The
   * backlog is judged before the write: what still waits from earlier writes, so an event larger than the
   * bound does not cut off a client that reads (at most the bound plus one event waits for a client).
   */
  #write(bytes: Uint8Array | string): boolean {
    if (this.#ended) return false;
    const sink = this.#sink!;
    if (this.#unflushed) {
      this.#unflushed = false;
      this.#options.registry.flushed(this);
    }
    if (sink.pending() > this.#options.registry.maxPendingBytes) {
      this.#options.registry.slowCutOffs += 1;
      this.#end('slow');
      // The connection goes (the client would be written to forever), and with it the body.
      sink.cutOff();
      return false;
    }
    sink.write(bytes);
    return true;
  }

  /**
   * Ask the source for its next result. Not an `async` loop: a suspended async function keeps its locals, so
   * an idle stream would hold its last result, its JSON and its frame until the next change (measured: about
   * 8 KB of heap per open checkout page). Here nothing of an event outlives its delivery.
   */
  #pump(): void {
    if (this.#ended) return;
    const source = this.#iterator;
    if (isPullSource<LiveEvent>(source)) {
      // Waiting holds this stream as the receiver, no promise chain (shared/pull.ts).
      try {
        source.pull(this);
      } catch (err) {
        this.#onFailure(err);
      }
      return;
    }
    let next: Promise<IteratorResult<LiveEvent>>;
    try {
      next = this.#iterator.next();
    } catch (err) {
      this.#onFailure(err);
      return;
    }
    next.then(this.#onStep, this.#onFailure).catch(this.#onBug);
  }

  readonly #onStep = (step: IteratorResult<LiveEvent>): void => {
    if (this.#ended) return;
    if (step.done) {
      this.#write(COMPLETE_FRAME);
      this.#end('complete');
      this.#sink!.end();
      return;
    }
    const event = step.value;
    if (!isDeferred(event)) {
      if (this.#deliver(event)) this.#pump();
      return;
    }
    let answer: ExecutionResult | Promise<ExecutionResult>;
    try {
      answer = event[DEFERRED_ANSWER](this.#options.requestId);
    } catch (err) {
      // As if the source had failed to produce it.
      this.#onFailure(err);
      return;
    }
    if (!(answer instanceof Promise)) {
      if (this.#deliver(answer)) this.#pump();
      return;
    }
    answer.then(this.#onAnswer, this.#onFailure).catch(this.#onBug);
  };

  /** PullReceiver: the source's next step (as `next()` would have resolved). */
  pulled(step: IteratorResult<LiveEvent>): void {
    try {
      this.#onStep(step);
    } catch (err) {
      this.#onBug(err);
    }
  }

  /** PullReceiver: the source failed (as `next()` would have rejected). */
  pullFailed(error: unknown): void {
    try {
      this.#onFailure(error);
    } catch (err) {
      this.#onBug(err);
    }
  }

  /** A deferred answer that came later (an execution that waited on something). */
  readonly #onAnswer = (answer: ExecutionResult): void => {
    if (this.#ended) return;
    if (this.#deliver(answer)) this.#pump();
  };

  /** The source failed: a masked error event, then the end (its cause goes to `onClose`, never to the client). */
  readonly #onFailure = (err: unknown): void => {
    if (this.#ended) return;
    this.#write(FAILED_FRAME);
    this.#write(COMPLETE_FRAME);
    this.#end('failed', err);
    this.#sink!.end();
  };

  /** Anything else thrown while delivering is a bug: end the stream, report it. */
  readonly #onBug = (err: unknown): void => {
    this.#end('failed', err);
    this.#sink!.cutOff();
  };

  /** Send one result unless it is the answer already sent; false when the stream ended. */
  #deliver(result: ExecutionResult): boolean {
    const made = (result as Partial<SerializedAnswer>)[SERIALIZED];
    if (made !== undefined) {
      // This stream's own answer, its request id already in.
      if (made.digest === this.#previous) return true;
      this.#previous = made.digest;
      this.#events += 1;
      this.#options.registry.eventWritten?.();
      return this.#write(made.frame);
    }
    const serialized = serialize(result, this.#options.onUnexpected);
    // An event means "what you selected changed": the same answer again is not sent.
    if (serialized.digest === this.#previous) return true;
    this.#previous = serialized.digest;
    this.#events += 1;
    this.#options.registry.eventWritten?.();
    // With errors, this stream's own request id goes in (a function, so no `$` pattern of the id is expanded);
    // the text is written as is: Node encodes it into the socket's write, no byte array of our own per event.
    const requestId = this.#options.requestId;
    return this.#write(serialized.bytes ?? serialized.frame.replaceAll(REQUEST_ID_MARK_JSON, () => requestId));
  }
}

/** Queue sizes in bytes, so `desiredSize` is minus the bytes waiting for the reader. */
const BYTES: QueuingStrategy<Uint8Array> = { highWaterMark: 0, size: (chunk) => chunk.byteLength };

/**
 * The in-process sink: a web ReadableStream over the stream, read as the client reads it. Node's own
 * ReadableStream, not the fetch ponyfill's: its queue honours the byte-size strategy, so `desiredSize` is
 * minus the bytes waiting, and a reader that stops reading lets them grow until the stream cuts it off.
 */
function webBody(stream: EventStream, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed: SinkClosed | undefined;
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    controller.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        closed = stream.attach({
          write: (bytes) => {
            if (!done) controller.enqueue(typeof bytes === 'string' ? encoder.encode(bytes) : bytes);
          },
          pending: () => -(controller.desiredSize ?? 0),
          end: finish,
          // In process there is no connection to drop: the body ends.
          cutOff: finish,
        });
        // The client's abort (in process, the request's signal) ends the stream and the body at once, even while
        // a read is pending (cancelling the ponyfill's wrapper of this stream waits for that read).
        const onAbort = (): void => {
          closed?.('aborted');
          finish();
        };
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      },
      cancel() {
        done = true;
        closed?.('cancelled');
      },
    },
    BYTES,
  );
}

/**
 * Stream `results` as Server-Sent Events (see the module comment): a Response the Node transport writes
 * directly to the socket ({@link EVENT_STREAM}), whose body is the same stream for any other reader.
 */
export function eventStreamResponse(results: AsyncIterable<LiveEvent>, fetchAPI: FetchAPI, options: EventStreamOptions): Response {
  const stream = new EventStream(results, options);
  // Not for the Node transport: the body is the stream's sink from now on, so it runs (and a reader that
  // never reads is cut off) as it does over a socket. For the Node transport the sink is the socket, attached
  // when the response is written, and no web stream is built; should a hook have replaced the response (the
  // mark is then lost), the body, built when read, is the sink after all.
  const body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> = options.direct ? { [Symbol.asyncIterator]: () => (webBody(stream, undefined) as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]() } : webBody(stream, options.signal);
  const response = new fetchAPI.Response(body as BodyInit, { status: 200, headers: EVENT_STREAM_HEADERS }) as ResponseWithEventStream;
  response[EVENT_STREAM] = stream;
  return response;
}
