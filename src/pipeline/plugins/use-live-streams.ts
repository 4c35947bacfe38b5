/**
 * Live streams (contract §8): Server-Sent Events on the GraphQL endpoint,
 * bounded per API key, with heartbeats, in the one plugin pipeline.
 *
 * Place AFTER the signature plugin and the per-key rate limiter: a stream is
 * opened by an ordinary signed request (`POST /graphql`, `Accept:
 * text/event-stream`; `GET` with the query in the target works too, as
 * GraphiQL sends it), so the signature is checked and the key's rate budget
 * spent once, when it opens; request context, metrics and the request log
 * see the open like any request (its log line and duration are those of the
 * open; a second line, `stream closed`, gives the stream's lifetime).
 *
 * - A slot per API key (or checkout session) is taken in `onSubscribe` by
 *   every verified request whose operation is a subscription, whatever its
 *   `Accept` header says (missing, `*\/*`, a list: Yoga streams for each of
 *   them, so each is a stream), before its source is subscribed; with
 *   `maxStreamsPerKey` (`maxStreamsPerSession`) already open the request is
 *   refused with 429 RATE_LIMITED and `Retry-After`. The slots are counted
 *   in this process, or across every replica through Redis when the shared
 *   rate-limit store is given (REDIS_URL; {@link StreamSlots}: leases renewed
 *   by the heartbeat, this process's count while Redis is down).
 * - A subscription's result (an async iterable) is sent by
 *   {@link eventStreamResponse}, which frees the slot when the stream ends
 *   for whatever reason (client gone, key revoked, server draining).
 * - A request that starts no stream (a refused filter, an invalid document)
 *   gets one JSON answer with its error's contract status (INVALID_REQUEST
 *   → 400), not a one-event stream; a query sent with that Accept gets Yoga's
 *   one-event stream. Either way the slot is freed when the response is
 *   created.
 *
 * Invariant: every slot taken is freed exactly once (`release` is idempotent
 * and reached on every path: onResponse unless the stream owns it, else the
 * stream's onClose).
 */
import { isAsyncIterable, processRegularResult, type Plugin } from 'graphql-yoga';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { answerError, createMaskError, restatedError } from '../error-normalizer.js';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError, isErrorCode, MASKED_MESSAGE, statusOf } from '../../shared/errors.js';
import { requestStateOf, type LiveStreamSlot } from '../request-state.js';
import { eventStreamResponse, LiveStreamRegistry, type EventStreamOptions } from '../live/event-stream.js';
import type { FanOutSpans } from '../tracing.js';
import { liveEventsOf, SharedExecutions } from '../live/shared-executions.js';
import type { SharedRateLimitStore } from '../budgets/rate-limit-budgets.js';
import { StreamSlots, type HeldSlot, type SlotDecision } from '../live/stream-slots.js';
import { nodeRequestOf } from '../transport/node-request.js';

/** Options of {@link useLiveStreams}. */
export interface LiveStreamOptions {
  /** Open streams allowed per API key (contract default 10; SUBSCRIPTIONS_PER_KEY): across replicas with `sharedStore`, else in this process. */
  maxStreamsPerKey: number;
  /** Open streams allowed per checkout session (contract §9: 2): across replicas with `sharedStore`, else in this process. */
  maxStreamsPerSession?: number;
  /** The shared rate-limit store (REDIS_URL): slots are counted in Redis across replicas; absent or null: per process. */
  sharedStore?: SharedRateLimitStore | null;
  /** Lease of a shared slot in ms, renewed by each heartbeat (default 3 heartbeats; at least 2). */
  leaseMs?: number;
  /** Interval of the heartbeat comment in ms (contract: 15 s). */
  heartbeatMs: number;
  /** `Retry-After` (seconds) of a refused stream. */
  retryAfterSeconds?: number;
  /**
   * Streams this process holds at most (MAX_OPEN_STREAMS, contract §8b): one more is refused with 503
   * SERVICE_UNAVAILABLE and `Retry-After`, so a balancer sends it elsewhere and the open ones are not slowed.
   */
  maxOpenStreams?: number;
  /** Bytes that may wait for a client before its stream is cut off (default {@link DEFAULT_MAX_PENDING_BYTES}). */
  maxPendingBytes?: number;
  /** Groups of streams that keep their newest answer for streams opening later (shared-executions.ts, default 256). */
  warmGroups?: number;
  logger: Logger;
  /** Error masking applied to every event's errors (default: the app's, createMaskError, which Yoga is given too). */
  maskError?: (error: unknown, message: string) => Error;
  /** Registry for the `graphql_subscription_streams_open` gauge. */
  registry: Registry;
  /**
   * Contract §13, only while tracing is on: the `live.fan_out` span of each change (src/pipeline/tracing.ts
   * {@link FanOutSpans}), told of every event written and asked how many streams are open.
   */
  fanOut?: FanOutSpans;
}

/** Default heartbeat interval (contract §8). */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Default open streams per API key (contract §8). */
export const DEFAULT_STREAMS_PER_KEY = 10;
/** Streams per process (MAX_OPEN_STREAMS): measured in docs/PERFORMANCE.md (contract §8b: at least 15,000 on 2 cores). */
export const DEFAULT_MAX_OPEN_STREAMS = 15_000;
/**
 * Bytes that may wait for one client (beyond the socket's own buffers) before it is cut off: about 20 events of
 * the checkout component's list, so a client that is merely slow for a moment keeps its stream.
 */
export const DEFAULT_MAX_PENDING_BYTES = 64 * 1024;
/** Open streams per checkout session (contract §9). */
export const DEFAULT_STREAMS_PER_SESSION = 2;


/**
 * The slot an admitted stream holds, as the request state carries it. A class at module level, not closures
 * made in onSubscribe: those kept that hook's whole scope (its envelop arguments) alive for as long as the
 * stream is open.
 */
class AdmittedSlot implements LiveStreamSlot {
  streaming = false;
  constructor(
    private readonly held: HeldSlot,
    private readonly freed: () => void,
  ) {}
  renew(): void {
    this.held.renew();
  }
  release(): void {
    if (this.held.release()) this.freed();
  }
}

/**
 * The options of one open stream, built outside the plugin's hooks: their callbacks live as long as the
 * stream, and closures made inside a hook would keep that hook's whole scope (envelop's and Yoga's arguments
 * of the request) alive with them.
 */
function streamOptions(o: {
  registry: LiveStreamRegistry;
  logger: Logger;
  onSlowReader: () => void;
  slot: LiveStreamSlot;
  requestId: string;
  merchantId: string | undefined;
  signal: AbortSignal | undefined;
}): EventStreamOptions {
  const { slot, logger, requestId } = o;
  const openedAt = performance.now();
  return {
    registry: o.registry,
    requestId,
    onHeartbeat: () => slot.renew(),
    ...(o.signal === undefined ? { direct: true } : { signal: o.signal }),
    onUnexpected: (err) => logger.error({ requestId, err }, 'stream event failed unexpectedly'),
    onClose: (end, events, err) => {
      slot.release();
      if (end === 'slow') o.onSlowReader();
      const line = { requestId, merchantId: o.merchantId, end, events, durationMs: Math.round(performance.now() - openedAt) };
      if (err !== undefined) logger.error({ ...line, err }, 'stream closed');
      else logger.info(line, 'stream closed');
    },
  };
}

/** A result with each error through `maskError`, as Yoga's useMaskedErrors does to every result it sees. */
function maskResultErrors(result: ExecutionResult, maskError: NonNullable<LiveStreamOptions['maskError']>): ExecutionResult {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((e) => maskError(e, MASKED_MESSAGE) as GraphQLError) };
}

/** The result with every coded error carrying its contract HTTP status (the highest one is sent). */
function withContractStatus(result: ExecutionResult): ExecutionResult {
  const errors = result.errors?.map((e) => {
    const code = e.extensions.code;
    if (!isErrorCode(code)) return e;
    const http = { ...(e.extensions.http as Record<string, unknown> | undefined), status: statusOf(code) };
    return restatedError(e, e.message, { ...e.extensions, http }, e.originalError ?? undefined);
  });
  return { ...result, errors };
}

const EVENT_STREAM = /(^|,)\s*text\/event-stream\s*(;|,|$)/i;

/** True when the request names Server-Sent Events (it is not what makes a stream: see onSubscribe). */
function acceptsEventStream(request: { headers: { get(name: string): string | null } }): boolean {
  return EVENT_STREAM.test(request.headers.get('accept') ?? '');
}

/** A refused stream as a GraphQL error carrying the contract status and headers (Yoga sends them). */
function refusal(error: AppError): GraphQLError {
  return answerError(error.message, {
    originalError: error,
    extensions: { code: error.code, ...error.details, http: { status: error.status, headers: error.headers } },
  });
}

export function useLiveStreams(options: LiveStreamOptions): Plugin {
  const { maxStreamsPerKey, heartbeatMs, logger } = options;
  if (!Number.isInteger(maxStreamsPerKey) || maxStreamsPerKey < 1) throw new Error('useLiveStreams: maxStreamsPerKey must be a positive integer');
  if (!Number.isInteger(heartbeatMs) || heartbeatMs < 1) throw new Error('useLiveStreams: heartbeatMs must be a positive integer');
  const maxStreamsPerSession = options.maxStreamsPerSession ?? DEFAULT_STREAMS_PER_SESSION;
  if (!Number.isInteger(maxStreamsPerSession) || maxStreamsPerSession < 1) throw new Error('useLiveStreams: maxStreamsPerSession must be a positive integer');
  const leaseMs = options.leaseMs ?? 3 * heartbeatMs;
  // One late heartbeat must not let a live stream's slot expire.
  if (!Number.isInteger(leaseMs) || leaseMs < 2 * heartbeatMs) throw new Error('useLiveStreams: leaseMs must be an integer of at least two heartbeats');
  const retryAfterSeconds = options.retryAfterSeconds ?? 5;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 1) throw new Error('useLiveStreams: retryAfterSeconds must be a positive integer');

  const maxOpenStreams = options.maxOpenStreams ?? DEFAULT_MAX_OPEN_STREAMS;
  if (!Number.isInteger(maxOpenStreams) || maxOpenStreams < 1) throw new Error('useLiveStreams: maxOpenStreams must be a positive integer');

  const slots = new StreamSlots({ store: options.sharedStore, leaseMs });
  const registry = new LiveStreamRegistry({ heartbeatMs, maxPendingBytes: options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES });
  const fanOut = options.fanOut;
  if (fanOut !== undefined) {
    registry.eventWritten = () => fanOut.wrote();
    fanOut.openStreams = () => registry.size;
  }
  // Events bypass envelop's result hooks (shared-executions.ts LIVE_EVENTS): Yoga's masking of unexpected
  // errors is applied here, once per shared execution, with the same function the app gives Yoga.
  const maskError = options.maskError ?? createMaskError();
  const executions = new SharedExecutions({ mapResult: (result) => maskResultErrors(result, maskError), warmGroups: options.warmGroups });
  /** Streams admitted in this process (slot held, from onSubscribe to the stream's end): what MAX_OPEN_STREAMS bounds. */
  let admitted = 0;
  const gauge = new Gauge({ name: 'graphql_subscription_streams_open', help: 'Open GraphQL subscription event streams (this process).', registers: [options.registry] });
  const refusals = new Counter({
    name: 'graphql_subscription_streams_refused_total',
    help: 'Event streams refused: `capacity` (MAX_OPEN_STREAMS, 503), `slots` (per key or session, 429), `slow_reader` (cut off: the client stopped reading).',
    labelNames: ['reason'] as const,
    registers: [options.registry],
  });
  new Gauge({ name: 'graphql_subscription_streams_max', help: 'MAX_OPEN_STREAMS of this process.', registers: [options.registry] }).set(maxOpenStreams);
  new Gauge({
    name: 'graphql_subscription_groups',
    help: 'Distinct questions the open streams ask (each executed once per change and shared by its streams).',
    registers: [options.registry],
    collect() {
      this.set(executions.groups);
    },
  });
  new Gauge({
    name: 'graphql_subscription_groups_warm',
    help: 'Groups keeping their newest answer for streams that open later (answered without executing; bounded).',
    registers: [options.registry],
    collect() {
      this.set(executions.warmGroups);
    },
  });

  new Counter({
    name: 'graphql_subscription_answers_total',
    help: 'Answers of stream events: `execution` (executed, then shared by the streams asking the same question), `template` (an execution refilled with one stream\'s amount, event-templates.ts).',
    labelNames: ['by'] as const,
    registers: [options.registry],
    collect() {
      this.reset();
      this.inc({ by: 'execution' }, executions.executions);
      this.inc({ by: 'template' }, executions.refills);
    },
  });

  const onSlowReader = (): void => refusals.inc({ reason: 'slow_reader' });
  /** A slot was freed (one function for every stream). */
  const freed = (): void => {
    gauge.dec();
    admitted -= 1;
  };

  return {
    onSubscribe({ args, setResultAndStopExecution, setSubscribeFn }) {
      // Every subscription operation that reaches execution is a stream, whatever its Accept header asked for
      // (Yoga streams for a missing Accept, `*/*` or a list too; contract §9 amended): it takes a slot here,
      // before its source is subscribed, or is refused. The slot is freed when the response is created unless
      // a stream took it over (onResultProcess → the stream's close).
      const state = requestStateOf(args.contextValue);
      if (!state?.principal || state.liveStreamSlot) return;
      // A checkout session has slots of its own, never its creating key's.
      const session = state.principal.session;
      const limit = session ? maxStreamsPerSession : maxStreamsPerKey;
      if (admitted >= maxOpenStreams) {
        // Capacity first: a full process refuses before spending anything (no Redis round trip, no subscribe).
        refusals.inc({ reason: 'capacity' });
        state.liveStreamRefused = true;
        const error = new AppError(
          'SERVICE_UNAVAILABLE',
          `This server holds its maximum of ${maxOpenStreams} open event streams; retry after ${retryAfterSeconds} s (another replica may have room).`,
          { retryAfter: retryAfterSeconds, scope: 'streams' },
          { 'Retry-After': String(retryAfterSeconds) },
        );
        setResultAndStopExecution({ errors: [refusal(error)] });
        return;
      }
      // Every event of this stream is executed once per group of identical questions (shared-executions.ts).
      setSubscribeFn((subscribeArgs) => executions.subscribe(subscribeArgs));
      // Reserved before the (possibly Redis-decided) take, so a burst of opens cannot overshoot the capacity.
      admitted += 1;
      const apply = (decision: SlotDecision): void => {
        if (!decision.taken) {
          admitted -= 1;
          refusals.inc({ reason: 'slots' });
          const error = new AppError(
            'RATE_LIMITED',
            `This ${session ? 'checkout session' : 'API key'} already has ${decision.held} open event streams (at most ${limit}); close one, or retry after ${retryAfterSeconds} s.`,
            { retryAfter: retryAfterSeconds, scope: 'streams', limit },
            { 'Retry-After': String(retryAfterSeconds) },
          );
          state.liveStreamRefused = true;
          setResultAndStopExecution({ errors: [refusal(error)] });
          return;
        }
        gauge.inc();
        state.liveStreamSlot = new AdmittedSlot(decision.slot, freed);
      };
      const decision = slots.take(session ? { kind: 'session', id: session.id } : { kind: 'key', id: state.principal.apiKeyId }, limit);
      // Synchronous without Redis (execution then awaits nothing); a promise while Redis decides.
      if (decision instanceof Promise) return decision.then(apply);
      apply(decision);
    },
    onResultProcess({ request, result, serverContext, setResult, setResultProcessor }) {
      const state = requestStateOf(serverContext);
      if (!state) return;
      const slot = state.liveStreamSlot;
      if (!slot) {
        // A subscription refused for its slot (above): one JSON answer with its 429, whatever was accepted; a
        // request for SSE that starts no stream (an invalid document never reaches onSubscribe) likewise.
        const noStream = !isAsyncIterable(result) && !Array.isArray(result) && result.data == null && result.errors?.length;
        if (state.principal && noStream && (state.liveStreamRefused || acceptsEventStream(request))) {
          setResult(withContractStatus(result));
          setResultProcessor(processRegularResult, 'application/json');
        }
        return;
      }
      const events = liveEventsOf(result);
      if (events === undefined) {
        // No stream started (a refused filter, an invalid document): one ordinary JSON answer with the
        // contract status of its error, rather than a one-event stream that SSE clients would retry.
        if (!isAsyncIterable(result) && !Array.isArray(result) && result.data == null && result.errors?.length) {
          setResult(withContractStatus(result));
          setResultProcessor(processRegularResult, 'application/json');
        }
        return;
      }
      slot.streaming = true;
      // Over the Node transport the socket's close ends the stream (no AbortSignal is built for it).
      const options = streamOptions({ registry, logger, onSlowReader, slot, requestId: state.id, merchantId: state.principal?.merchantId, signal: nodeRequestOf(request) !== undefined ? undefined : request.signal });
      setResultProcessor((_result, fetchAPI) => eventStreamResponse(events, fetchAPI, options), 'text/event-stream');
    },
    onResponse({ serverContext }) {
      const slot = requestStateOf(serverContext)?.liveStreamSlot;
      if (slot && !slot.streaming) slot.release();
    },
  };
}
