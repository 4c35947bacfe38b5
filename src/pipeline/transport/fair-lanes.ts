/**
 * Fair turns for the requests of checkout sessions (contract §9): one merchant's crowd of
 * sessions cannot make another merchant's requests wait.
 *
 * Why here, in the transport, and not in a plugin: what a burst costs before a plugin could hold it back
 * (the request object, the hooks before authentication) is most of what a refused request costs (measured:
 * about 200 µs of 220 µs; `npm run bench:profile -- session-list`). Node hands every request that arrived in
 * one poll of the event loop to the listener in a row, so a burst of 240 session requests was worked through
 * in one go while a signed request that arrived just after it waited for all of them. Here a session request
 * costs Node's HTTP parse and one HMAC (its lane) before it waits for its turn.
 *
 * The rules:
 * - A request without a lane (`laneOf` returns null: SVC1-signed calls, public pages) starts at once, as before.
 * - A request with a lane (the verified merchant of its client secret; one lane for secrets that do not
 *   verify) starts at once when no lane request started in this turn of the event loop, else it waits in its
 *   lane's FIFO queue.
 * - Queued requests start in batches, one batch per turn of the event loop (a `setImmediate` each), taken
 *   from the lanes in round-robin order, one request per lane at a time. Between two batches Node polls the
 *   network, so a request without a lane waits for at most one batch, however many are queued; and
 *   merchants with queued requests take turns, however long one of their queues is.
 * - A batch is as large as fits a turn of {@link TURN_TARGET_MS}: each turn measures how long the last one
 *   took (its requests' work and the poll after it) and doubles the batch while turns are shorter than half
 *   the target, halves it while they are longer (1 to {@link MAX_BATCH}). Cheap requests (refusals) then
 *   share a turn's fixed costs, and an expensive one (a heavy document) has a turn of its own. (One request
 *   per turn, the first design, halved a refusal's throughput: every turn pays a database health check
 *   and a data-version read, src/storage/sqlite/.)
 * - Work-conserving: with one lane busy and nothing else, its requests start batch after batch with nothing
 *   between them but the poll (a few µs); a sale alone on the process gets all of it.
 * - Bounded: at most `maxQueued` requests wait in all lanes together (each holds a socket, so this is also a
 *   descriptor bound). Past it the longest lane gives up its newest request (longest-queue drop: the merchant
 *   with the most waiting pays, never a merchant with few), answered `503 SERVICE_UNAVAILABLE` with
 *   `Retry-After` by `shed`.
 * - A request whose client went away while it waited is dropped without a turn.
 *
 * Decisions are synchronous and O(1), except the longest-lane search when full (O(lanes), lanes ≤ maxQueued).
 */

/** A request waiting for its turn: `start` runs it through the pipeline; `gone` says its client left. */
export interface LaneTask {
  start: () => void;
  shed: () => void;
  gone: () => boolean;
}

/** Options of {@link FairLanes}. */
export interface FairLanesOptions {
  /** Most requests waiting in all lanes together (default 10,000). */
  maxQueued?: number;
  /** Called with the lane of every request shed past `maxQueued` (metrics, a log line). */
  onShed?: (lane: string) => void;
  /** Schedules the next turn (tests); default `setImmediate`. */
  schedule?: (turn: () => void) => void;
  /** Monotonic clock in ms (tests); default `performance.now`. */
  now?: () => number;
}

/**
 * How long a turn of queued session requests may take before the batch shrinks (ms). 4, not the first 2: at a
 * sale's peak every turn's fixed costs (the database health check and data-version read, the log flush, the
 * poll) were shared by about 3 page opens, now by about 6, which took opening past 1,500 pages a second
 *; a request without a lane waits for one such turn at most (`npm run bench:sessions`: the other
 * merchant's p99 beside the crowd stayed at 3.2× idle, docs/PERFORMANCE.md).
 */
export const TURN_TARGET_MS = 4;
/** Most queued requests started in one turn. */
export const MAX_BATCH = 64;

/** A FIFO queue with O(1) push and shift (an array with a moving head, compacted when half is spent). */
class Queue {
  #items: LaneTask[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(task: LaneTask): void {
    this.#items.push(task);
  }

  shift(): LaneTask | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const task = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as never;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return task;
  }

  pop(): LaneTask | undefined {
    return this.length > 0 ? this.#items.pop() : undefined;
  }
}

export const DEFAULT_MAX_QUEUED = 10_000;

export class FairLanes {
  readonly #maxQueued: number;
  readonly #onShed: (lane: string) => void;
  readonly #schedule: (turn: () => void) => void;
  /** Lanes with waiting requests, in round-robin order (a lane that had its turn moves to the end). */
  readonly #lanes = new Map<string, Queue>();
  #queued = 0;
  /** A turn is scheduled: a lane request started since the last turn found the lanes empty. */
  #busy = false;
  readonly #now: () => number;
  /** Requests started per turn (see the module comment). */
  #batch = 1;
  /** When the last turn that started requests began (ms), or null after an idle turn. */
  #lastTurn: number | null = null;

  constructor(options: FairLanesOptions = {}) {
    this.#maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    if (!Number.isInteger(this.#maxQueued) || this.#maxQueued < 1) throw new Error('FairLanes: maxQueued must be a positive integer');
    this.#onShed = options.onShed ?? (() => {});
    this.#schedule = options.schedule ?? setImmediate;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Requests the next turn starts (tests, diagnosis). */
  get batch(): number {
    return this.#batch;
  }

  /** Requests waiting in all lanes. */
  get queued(): number {
    return this.#queued;
  }

  /** Lanes with waiting requests. */
  get lanes(): number {
    return this.#lanes.size;
  }

  /** Start `task` now or in its lane's turn (see the module comment). */
  submit(lane: string, task: LaneTask): void {
    if (!this.#busy) {
      this.#busy = true;
      this.#schedule(this.#turn);
      task.start();
      return;
    }
    let queue = this.#lanes.get(lane);
    if (!queue) this.#lanes.set(lane, (queue = new Queue()));
    queue.push(task);
    this.#queued++;
    if (this.#queued > this.#maxQueued) this.#shedLongest();
  }

  /** Past the bound: the longest lane's newest request is answered "retry later" (possibly the one just queued). */
  #shedLongest(): void {
    let longest: [string, Queue] | undefined;
    for (const entry of this.#lanes) if (!longest || entry[1].length > longest[1].length) longest = entry;
    const [lane, queue] = longest!;
    const task = queue.pop()!;
    this.#queued--;
    if (queue.length === 0) this.#lanes.delete(lane);
    this.#onShed(lane);
    task.shed();
  }

  /** One turn: a batch of the lanes' oldest live requests starts, one per lane in round-robin order. */
  readonly #turn = (): void => {
    const now = this.#now();
    if (this.#lastTurn !== null) {
      const took = now - this.#lastTurn;
      if (took < TURN_TARGET_MS / 2) this.#batch = Math.min(MAX_BATCH, this.#batch * 2);
      else if (took > TURN_TARGET_MS) this.#batch = Math.max(1, this.#batch >> 1);
    }
    let started = 0;
    while (started < this.#batch) {
      const first = this.#lanes.entries().next();
      if (first.done) break;
      const [lane, queue] = first.value;
      const task = queue.shift()!;
      this.#queued--;
      this.#lanes.delete(lane);
      if (queue.length > 0) this.#lanes.set(lane, queue);
      if (task.gone()) continue;
      if (started === 0) this.#schedule(this.#turn);
      started++;
      task.start();
    }
    if (started === 0) {
      this.#busy = false;
      this.#lastTurn = null;
      return;
    }
    this.#lastTurn = now;
  };
}
