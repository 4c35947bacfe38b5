/**
 * Fan-out of live updates (contract §8b): one execution per distinct
 * (merchant data version, caller scope, document, variables), shared by every
 * stream that would compute the same answer.
 *
 * graphql-js's `subscribe` executes the subscription's selection once per
 * event per stream. At a sale's peak thousands of a merchant's streams wake
 * on the same change; most of them ask exactly the same thing (the same
 * document, variables and scope), so each distinct question is executed once
 * and every stream of that group gets the same result object, whose
 * serialised bytes the event stream also keeps once (event-stream.ts).
 *
 * Why the group key is what it is: an event's answer depends on the
 * merchant's data (the change feed's `version`, which moves whenever
 * anything that merchant could see changed, KYC included), on the caller's
 * scope (key, mode, a checkout session's amount, currency and methods), on
 * the document and on the variables. Nothing else reaches the resolvers of a
 * subscription event (no clock: scheduled rules move the version, session
 * expiry is the stream's own final event). Events that end a stream
 * (expired, revoked) are executed per stream: they carry the stream's own
 * error. Nothing in an event belongs to one caller alone: a fee quote, which
 * does (one shopper, one session, its own id and expiry; contract §11), is
 * never signed in an event (`FeeCalculation.quote` answers null in a
 * subscription, src/graphql/resolvers.ts; two sessions differing
 * only in lifetime shared one quote, which outlived the shorter session). So
 * the session's id and expiry are rightly not in the key.
 *
 * Each event is executed by graphql-jit, the document compiled once (as queries are, app.ts `jit`):
 * measured on the checkout component's subscription with its own amount per page (2,000 pages, one change),
 * graphql-js's execute spent about half of the change's CPU in its generic field walk and in `locatedError`
 * (a GraphQLError with a captured stack for every per-channel fee error, e.g. a channel in maintenance);
 * the compiled function walks the selection directly and builds its errors without a stack capture. Queries
 * and events then also run the same engine, so an event is what the matching query answers.
 *
 * Streams that differ only in their amount (checkout pages, each with its own session amount and `fee`
 * variable) are one group too, a *class*, when their document has a template (event-templates.ts): the
 * class's first stream executes each change, and every stream's answer (that one's too) is refilled from it
 * with its own amount's `availability` and `fee`, when its stream delivers it.
 *
 * Bound: one entry per group with at least one open stream (≤ open streams,
 * ≤ MAX_OPEN_STREAMS), deleted when its last stream ends. An entry keeps the
 * result of its newest version for the turn of the event loop in which that
 * change wakes its streams; past that turn only the `warmGroups` ({@link DEFAULT_WARM_GROUPS}) groups
 * used last keep theirs (a page opening later for the same version takes it),
 * the others let it go.
 */
import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLContext } from '../../graphql/context.js';
import type { ChangeEvent } from '../../modules/live/change-feed.js';
import { withoutStackTraces } from '../../shared/errors.js';
import { isPullSource, type PullReceiver, type PullSource } from '../../shared/pull.js';
import { DEFERRED_ANSWER, type DeferredAnswer, type LiveEvent } from './event-stream.js';
import { classListOf, classVariables, holeArgumentsOf, outcomesOf, refill, shapeOf, templateOf, type ClassList, type EventTemplate, type HoleArguments, type HoleMemo, type Shape } from './event-templates.js';

/**
 * The streams asking one question, or with a template one class of questions (event-templates.ts). Between
 * changes only `streams` and `version` are kept: the rest lives for the turn of one change.
 */
interface Group {
  /** Its key in the map of groups (kept once here, not by each of its streams). */
  readonly key: string;
  streams: number;
  version: string | undefined;
  result: ExecutionResult | Promise<ExecutionResult> | undefined;
  /** With a template, the stream whose execution of this change the others refill. */
  representative: Representative | undefined;
}

/** A class's representative for one change (event-templates.ts): the stream whose execution the others refill. */
interface Representative {
  readonly payload: ChangeEvent;
  readonly context: unknown;
  /**
   * The class's list for this change and its answers by failure signature, ready to refill
   * (event-templates.ts); prepared by the first page that needs them. `list` undefined after preparing: this
   * change's answers cannot be refilled.
   */
  prepared?: { list: ClassList | undefined; shapes: Map<string, Shape> };
}

/** A templated stream's own part of its questions. */
interface StreamTemplate {
  readonly template: EventTemplate;
  readonly holeArguments: HoleArguments;
  /** Its holes as last computed (event-templates.ts `outcomesOf`): a change recomputes only what it touched. */
  memo: HoleMemo | undefined;
}

/**
 * How many groups keep their newest result past the turn of its change, so that a stream opening later for
 * the same version is answered from it (a templated page refilled, a question's answer and its serialised
 * bytes shared) rather than executed again: opening at a sale's peak, ≥ 1,500 pages per second.
 * The groups used last keep theirs. Bound: this many results (each one list of the merchant's channels and its
 * serialisations), whatever the number of open streams; a stream's own memory holds none of them.
 */
export const DEFAULT_WARM_GROUPS = 256;

/**
 * Shapes a class keeps per change (one per pattern of failing channels, event-templates.ts). A pattern is
 * usually one of a few amount bands, but a failure whose text names the page's own amount makes one per page;
 * past this many a page with a new pattern is answered by its own execution, not kept. With warm groups a
 * class keeps them for as long as its version lasts, so the bound matters.
 */
export const MAX_SHAPES = 64;

/** A live event's answer is never kept by the answer cache: nothing to tell it. */
const NEVER_CACHED = (): void => undefined;

/**
 * The context a stream's events run with: GraphQLContext's own fields, which are all their resolvers read.
 * Not Yoga's whole per-request context: a stream outlives its request, and that context holds the request
 * with its headers, the params and the pipeline's state (memory per open stream, contract §8b).
 */
function streamContextOf(context: unknown): unknown {
  const c = context as Partial<GraphQLContext> | undefined;
  if (c?.principal === undefined || c.services === undefined || c.requestId === undefined) return context;
  const lean: GraphQLContext = { principal: c.principal, services: c.services, requestId: c.requestId, answerDependsOnClock: NEVER_CACHED };
  return lean;
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Carries a subscription's events past envelop and Yoga to the live-streams plugin, which streams them itself
 * (use-live-streams.ts onResultProcess). Why a wrapper that is not itself async-iterable: envelop wraps a
 * subscription's iterable in a mapping iterator for each plugin that watches results (error masking, Yoga's
 * error handler), each with its own closures, contexts and promises per open stream and per event; these
 * layers were a quarter of an idle stream's heap (≤ 16 KB per stream). What they did for an event
 * (masking its unexpected errors) is done once per shared execution instead ({@link SharedExecutionsOptions}).
 */
export const LIVE_EVENTS = Symbol('liveEvents');
/** The events of one stream, as {@link SharedExecutions.subscribe} hands them over. */
export interface LiveEvents {
  readonly [LIVE_EVENTS]: AsyncIterable<LiveEvent>;
}
/** The events a subscription's result carries, or undefined for an ordinary result (a refusal, an error). */
export function liveEventsOf(result: unknown): AsyncIterable<LiveEvent> | undefined {
  return typeof result === 'object' && result !== null && LIVE_EVENTS in result ? (result as LiveEvents)[LIVE_EVENTS] : undefined;
}

/** Options of {@link SharedExecutions}. */
export interface SharedExecutionsOptions {
  /** Applied to every executed event once, before the streams share it (Yoga's error masking for events). */
  mapResult?: (result: ExecutionResult) => ExecutionResult;
  /** Groups that keep their newest result past its turn (default {@link DEFAULT_WARM_GROUPS}; 0: none). */
  warmGroups?: number;
}

export class SharedExecutions {
  readonly #groups = new Map<string, Group>();
  /** Groups whose result is kept until the end of this turn ({@link release}). */
  readonly #kept: Group[] = [];
  /** Groups that keep their result past its turn, least recently used first (at most `warmGroups` ({@link DEFAULT_WARM_GROUPS})). */
  readonly #warm = new Set<Group>();
  /** Documents get a small id (Yoga's parse cache hands out one DocumentNode per distinct text). */
  readonly #documentIds = new WeakMap<DocumentNode, number>();
  #nextDocumentId = 0;
  /**
   * Compiled event executions per document and operation name (null: graphql-jit cannot compile it, graphql-js
   * executes it). Documents are Yoga's cached parse results, so this holds at most those of its parse cache.
   */
  readonly #compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  /** Executions run (for tests and the benchmark: shared ones count once). */
  executions = 0;
  /** Answers refilled from a representative's (event-templates.ts), for tests and the benchmark. */
  refills = 0;
  readonly #mapResult: (result: ExecutionResult) => ExecutionResult;
  readonly #warmGroups: number;

  constructor(options: SharedExecutionsOptions = {}) {
    this.#mapResult = options.mapResult ?? ((result) => result);
    this.#warmGroups = options.warmGroups ?? DEFAULT_WARM_GROUPS;
    if (!Number.isInteger(this.#warmGroups) || this.#warmGroups < 0) throw new Error('SharedExecutions: warmGroups must be a non-negative integer');
  }

  /** Open groups (streams with distinct questions), for tests and metrics. */
  get groups(): number {
    return this.#groups.size;
  }

  /** Groups keeping their result past its turn (≤ `warmGroups`), for tests and metrics. */
  get warmGroups(): number {
    return this.#warm.size;
  }

  #documentId(document: DocumentNode): number {
    let id = this.#documentIds.get(document);
    if (id === undefined) {
      id = this.#nextDocumentId++;
      this.#documentIds.set(document, id);
    }
    return id;
  }

  /** The compiled execution of a subscription's events (the selection run on each event), or null. */
  #compile(args: ExecutionArgs): CompiledQuery | null {
    let byName = this.#compiled.get(args.document);
    if (!byName) this.#compiled.set(args.document, (byName = new Map<string, CompiledQuery | null>()));
    const name = args.operationName ?? '';
    let compiled = byName.get(name);
    if (compiled === undefined) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      compiled = isCompiledQuery(result) ? result : null;
      // Bounded by the document's own operations (each is named once).
      byName.set(name, compiled);
    }
    return compiled;
  }

  /**
   * The group key: everything an event's answer depends on besides the data version (module comment). With a
   * template the stream's own amount (its session's, its holes' variables) is left out: the key of its class.
   */
  #keyOf(args: ExecutionArgs, template: StreamTemplate | undefined): string | undefined {
    const principal = (args.contextValue as GraphQLContext | undefined)?.principal;
    if (!principal) return undefined;
    const s = principal.session;
    return JSON.stringify([
      template ? 'class' : 'question',
      principal.merchantId,
      principal.apiKeyId,
      principal.mode,
      // The session's locale names the channels when `name` has no argument (contract §12).
      s ? [template ? null : s.amount, s.currency, s.methods, s.locale ?? null] : null,
      this.#documentId(args.document),
      args.operationName ?? null,
      template ? classVariables(template.template, args.variableValues) : (args.variableValues ?? null),
    ]);
  }

  /** The stream's template part, or undefined when its events run as one question (event-templates.ts). */
  #templateOf(args: ExecutionArgs): StreamTemplate | undefined {
    const template = templateOf(args.schema, args.document, args.operationName);
    if (template === null) return undefined;
    const holeArguments = holeArgumentsOf(args.schema, template, args.variableValues);
    if (holeArguments === undefined) return undefined;
    return { template, holeArguments, memo: undefined };
  }

  /**
   * graphql-js's `subscribe`, with each change event's execution shared by the streams of its group; the
   * events come wrapped ({@link LIVE_EVENTS}), a result that starts no stream as it is.
   */
  async subscribe(opening: ExecutionArgs): Promise<LiveEvents | ExecutionResult> {
    const source = await createSourceEventStream(opening);
    if (!isAsyncIterable<ChangeEvent>(source)) return source as ExecutionResult;
    const args = { ...opening, contextValue: streamContextOf(opening.contextValue) };
    const template = this.#templateOf(args);
    const key = this.#keyOf(args, template);
    let group: Group | undefined;
    if (key !== undefined) {
      group = this.#groups.get(key);
      if (group === undefined) {
        group = { key, streams: 0, version: undefined, result: undefined, representative: undefined };
        this.#groups.set(key, group);
      }
      group.streams += 1;
    }
    return { [LIVE_EVENTS]: new GroupStream(this, source[Symbol.asyncIterator](), args, this.#compile(args), group, group === undefined ? undefined : template) };
  }

  /** @internal A stream left its group (once). */
  leave(group: Group): void {
    group.streams -= 1;
    if (group.streams === 0) {
      this.#groups.delete(group.key);
      this.#warm.delete(group);
    }
  }

  /**
   * @internal A stream of this group was answered from its kept result: the group becomes the most recently
   * used of the warm ones.
   */
  used(group: Group): void {
    if (this.#warm.delete(group)) this.#warm.add(group);
  }

  /** @internal Execute one event of a stream (its own, or its group's first for this version). */
  run(args: ExecutionArgs, compiled: CompiledQuery | null, payload: ChangeEvent): ExecutionResult | Promise<ExecutionResult> {
    this.executions += 1;
    // Without stack captures: graphql-jit builds a GraphQLError (two captures through the pipeline's deep
    // stack) for every per-channel error of every page, e.g. the fee of a channel in maintenance, and these
    // were the largest single cost of an event. They are answers, never logged. A bug in
    // a resolver is still masked and logged with the request id, without its stack here; the same
    // document as a query runs the same resolvers and logs it with one.
    const result = withoutStackTraces(() => (compiled ? compiled.query(payload, args.contextValue, args.variableValues) : execute({ ...args, rootValue: payload })));
    return result instanceof Promise ? result.then(this.#mapResult) : this.#mapResult(result);
  }

  /**
   * @internal A templated stream's answer to one change (event-templates.ts): its class's answer refilled
   * with its own values, or its own execution when it is not like its class. Every answer of a templated
   * stream is made here, the representative's own included, so its digests are all of one kind (refill).
   */
  answerFrom(representative: Representative, result: ExecutionResult, stream: StreamTemplate, args: ExecutionArgs, compiled: CompiledQuery | null, payload: ChangeEvent, requestId: string): ExecutionResult | Promise<ExecutionResult> {
    const { template } = stream;
    let prepared = representative.prepared;
    if (prepared === undefined) {
      const shape = shapeOf(template, result);
      prepared = representative.prepared = { list: shape ? classListOf(template, representative.payload, representative.context) : undefined, shapes: new Map() };
      if (shape) prepared.shapes.set(shape.signature, shape);
    }
    const computed = prepared.list === undefined ? undefined : outcomesOf(template, prepared.list, stream.holeArguments, stream.memo, payload, args.contextValue);
    stream.memo = computed?.memo;
    if (computed === undefined) return this.run(args, compiled, payload);
    const { outcomes } = computed;
    let shape = prepared.shapes.get(outcomes.signature);
    if (shape === undefined) {
      // The first page of the class whose channels fail differently (another amount band, limits, a session's
      // own error): executed, and its answer is the shape of the pages that fail like it for this change.
      const own = this.run(args, compiled, payload);
      if (own instanceof Promise) return own;
      const ownShape = shapeOf(template, own);
      if (ownShape === null || ownShape.signature !== outcomes.signature || prepared.shapes.size >= MAX_SHAPES) return own;
      prepared.shapes.set(ownShape.signature, (shape = ownShape));
    }
    this.refills += 1;
    return refill(template, shape, outcomes, requestId);
  }

  /**
   * @internal Keep a group's result until the streams woken by this change have taken it (they run in the
   * same turn), then only while the group is among the `warmGroups` ({@link DEFAULT_WARM_GROUPS}) used last: an open stream holds no
   * result objects between changes (memory per stream, contract §8b), and a stream opening later for the same
   * version is still answered from it. A result not settled by then (an execution that waited on something)
   * is let go: a later stream executes again, the same answer, just not shared. One immediate for all the
   * groups of a change, not one per group.
   */
  release(group: Group): void {
    this.#kept.push(group);
    if (this.#kept.length === 1) {
      setImmediate(() => {
        for (const g of this.#kept.splice(0)) {
          this.#warm.delete(g);
          if (g.streams > 0 && g.result !== undefined && !(g.result instanceof Promise)) this.#warm.add(g);
          else forget(g);
        }
        for (const g of this.#warm) {
          if (this.#warm.size <= this.#warmGroups) break;
          this.#warm.delete(g);
          forget(g);
        }
      });
    }
  }
}

/** A group lets go of its result (its streams ask the next change's). */
function forget(group: Group): void {
  group.result = undefined;
  group.representative = undefined;
}

/**
 * One stream's events: its watcher's changes, each executed once per group and version. A class, not an
 * object literal of closures: an open stream's memory is these fields (contract §8b). It can be pulled
 * (shared/pull.ts) when its watcher can: then a waiting stream holds no promise.
 */
class GroupStream implements AsyncIterableIterator<LiveEvent>, PullSource<LiveEvent>, PullReceiver<ChangeEvent> {
  #left = false;
  /** The pull waiting for this stream's next event (at most one). */
  #receiver: PullReceiver<LiveEvent> | undefined;

  constructor(
    private readonly owner: SharedExecutions,
    private readonly iterator: AsyncIterator<ChangeEvent>,
    private readonly args: ExecutionArgs,
    private readonly compiled: CompiledQuery | null,
    private readonly group: Group | undefined,
    private readonly template: StreamTemplate | undefined,
  ) {}

  #leave(): void {
    if (this.#left || this.group === undefined) return;
    this.#left = true;
    this.owner.leave(this.group);
  }

  async next(): Promise<IteratorResult<LiveEvent>> {
    let step: IteratorResult<ChangeEvent>;
    try {
      step = await this.iterator.next();
    } catch (err) {
      this.#leave();
      throw err;
    }
    return this.#eventOf(step);
  }

  /** shared/pull.ts: the same events as `next()`; pulls the watcher when it can be pulled. */
  pull(receiver: PullReceiver<LiveEvent>): void {
    if (!isPullSource<ChangeEvent>(this.iterator)) {
      this.next().then(
        (step) => receiver.pulled(step),
        (err: unknown) => receiver.pullFailed(err),
      );
      return;
    }
    if (this.#receiver !== undefined) throw new Error('GroupStream: a pull is already waiting');
    this.#receiver = receiver;
    this.iterator.pull(this);
  }

  /** PullReceiver: the watcher's step. */
  pulled(step: IteratorResult<ChangeEvent>): void {
    const receiver = this.#receiver!;
    this.#receiver = undefined;
    let event: IteratorResult<LiveEvent> | Promise<IteratorResult<LiveEvent>>;
    try {
      event = this.#eventOf(step);
    } catch (err) {
      receiver.pullFailed(err);
      return;
    }
    if (event instanceof Promise) {
      event.then(
        (e) => receiver.pulled(e),
        (err: unknown) => receiver.pullFailed(err),
      );
    } else {
      receiver.pulled(event);
    }
  }

  /** PullReceiver: the watcher failed. */
  pullFailed(error: unknown): void {
    const receiver = this.#receiver!;
    this.#receiver = undefined;
    this.#leave();
    receiver.pullFailed(error);
  }

  /** The event of one watcher step: executed once per group and version, or refilled (event-templates.ts). */
  #eventOf(step: IteratorResult<ChangeEvent>): IteratorResult<LiveEvent> | Promise<IteratorResult<LiveEvent>> {
    if (step.done) {
      this.#leave();
      return { done: true, value: undefined };
    }
    const payload = step.value;
    const group = this.group;
    if (payload.kind !== 'changed' || group === undefined) {
      const own = this.owner.run(this.args, this.compiled, payload);
      return own instanceof Promise ? own.then((value) => ({ done: false, value })) : { done: false, value: own };
    }
    if (group.version !== payload.version || group.result === undefined) {
      group.version = payload.version;
      group.result = this.owner.run(this.args, this.compiled, payload);
      group.representative = this.template ? { payload, context: this.args.contextValue } : undefined;
      this.owner.release(group);
    } else {
      this.owner.used(group);
    }
    // Taken now: the group lets go of both at the end of this turn.
    const representative = group.representative;
    const result = group.result;
    if (result instanceof Promise) return result.then((r) => this.#answerOf(r, representative, payload));
    return this.#answerOf(result, representative, payload);
  }

  #answerOf(result: ExecutionResult, representative: Representative | undefined, payload: ChangeEvent): IteratorResult<LiveEvent> {
    // Without holes every stream of the class has the same answer (its amount is read by no field it asks).
    if (this.template === undefined || representative === undefined || this.template.template.holes.length === 0) return { done: false, value: result };
    // Refilled when delivered, not now (event-stream.ts DEFERRED_ANSWER).
    return { done: false, value: new PageAnswer(this.owner, representative, result, this.template, this.args, this.compiled, payload) };
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    this.#leave();
    await this.iterator.return?.();
    return { done: true, value: undefined };
  }

  async throw(err: unknown): Promise<IteratorResult<ExecutionResult>> {
    this.#leave();
    await this.iterator.return?.();
    throw err;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** A templated page's answer to one change, computed when its stream delivers it (DEFERRED_ANSWER). */
class PageAnswer implements DeferredAnswer {
  constructor(
    private readonly owner: SharedExecutions,
    private readonly representative: Representative,
    private readonly result: ExecutionResult,
    private readonly stream: StreamTemplate,
    private readonly args: ExecutionArgs,
    private readonly compiled: CompiledQuery | null,
    private readonly payload: ChangeEvent,
  ) {}

  [DEFERRED_ANSWER](requestId: string): ExecutionResult | Promise<ExecutionResult> {
    return this.owner.answerFrom(this.representative, this.result, this.stream, this.args, this.compiled, this.payload, requestId);
  }
}
