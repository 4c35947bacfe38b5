/**
 * Checkout pages held by a child process (forked with `--import tsx`; test/e2e/cluster-replica-kill.test.ts):
 * each page is one event stream over plain node:http (`POST /graphql`, `Accept: text/event-stream`, its
 * session's bearer secret), so that thousands of them fit in a process of their own, away from the test's
 * and the servers' CPU.
 *
 * A page reconnects as the SDK does (src/client/session.ts, graphql-sse's "distinct connections" loop): when
 * its stream ends or an attempt fails, it waits `reconnectDelayMs(retries, Retry-After)` and tries again;
 * `retries` counts the attempts since its last event (0 for the first reconnection), and after
 * {@link RETRY_ATTEMPTS} it gives up. A refusal the SDK does not retry (`retryableStatus` false: a 4xx other
 * than 408/429) ends the page at once.
 *
 * Times are on the machine's wall clock (epoch ms, sub-ms precision), comparable with the parent's.
 *
 * Protocol (IPC), parent → child / child → parent:
 * - `open` {port, pages, concurrency} → `opened` {failures}: each page's first event arrived (or it failed);
 * - `state` → `state` {pages: PageState[]};
 * - `arm` {timeoutMs, code, status} → `arrived` {times, missing, without, sample}: the next event of every live
 *   page (the change), and how many of those events do not show channel `code` with `status`;
 * - `close`: the child drops every connection and exits (also when the parent goes away).
 */
import http from 'node:http';
import { reconnectDelayMs, retryableStatus } from '../../src/client/session.js';

/** graphql-sse's retryAttempts as the SDK sets it (createSessionClient's default). */
export const RETRY_ATTEMPTS = 5;

/** One page to open: its request's headers and JSON body. */
export interface PageRequest {
  headers: Record<string, string>;
  body: string;
}

/** What a page went through, as reported to the parent. */
export interface PageState {
  /** Its current stream has delivered its first event and is still open. */
  live: boolean;
  /** Requests sent (the first one included). */
  attempts: number;
  /** Streams that delivered a first event. */
  streams: number;
  /** Times a stream that had delivered events ended without the page closing it. */
  drops: number;
  /** When the current stream's first event arrived (epoch ms). */
  liveAt: number;
  /** Failed attempts: `status 503`, `ECONNRESET`, … */
  failures: string[];
  /** Why the page stopped for good (a refusal the SDK does not retry, or retries exhausted). */
  final?: string;
}

export type PagesMessage =
  | { type: 'open'; port: number; pages: PageRequest[]; concurrency: number }
  | { type: 'state' }
  | { type: 'arm'; timeoutMs: number; code: string; status: string }
  | { type: 'close' };

const now = (): number => performance.timeOrigin + performance.now();

interface Page extends PageState {
  request: PageRequest;
  /** Consecutive failed attempts since the last event (graphql-sse's `retries`). */
  retries: number;
  req?: http.ClientRequest;
  /** Called once the page is live or has stopped for good (opening). */
  settled?: () => void;
  arrived?: number;
  frame?: string;
}

let port = 0;
let closing = false;
const pages: Page[] = [];
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
let armed: { left: number; done: () => void } | undefined;

function retryAfterOf(res: http.IncomingMessage): number | undefined {
  const value = res.headers['retry-after'];
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** Splits a stream's text into whole SSE frames: a frame may span chunks, the unfinished end waits for the next. */
function frameSplitter(): (chunk: string) => string[] {
  let pending = '';
  return (chunk) => {
    const frames = (pending + chunk).split('\n\n');
    pending = frames.pop()!;
    return frames;
  };
}

/** One attempt of `page`: a request, then its stream until it ends. */
function connect(page: Page): void {
  page.attempts += 1;
  let over = false;
  let events = 0;
  /** This attempt is over: a refusal or error before any event, or the end of a stream that had events. */
  const end = (why: string, status?: number, retryAfter?: number): void => {
    if (over || closing) return;
    over = true;
    page.live = false;
    if (events > 0) page.drops += 1;
    else page.failures.push(why);
    if (status !== undefined && !retryableStatus(status)) return stop(page, `refused: ${why}`);
    if (page.retries >= RETRY_ATTEMPTS) return stop(page, `gave up after ${RETRY_ATTEMPTS} retries: ${why}`);
    const delay = reconnectDelayMs(page.retries, retryAfter);
    page.retries += 1;
    setTimeout(() => {
      if (!closing) connect(page);
    }, delay);
  };
  const req = http.request({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent, headers: { ...page.request.headers, 'content-length': Buffer.byteLength(page.request.body) } }, (res) => {
    if (res.statusCode !== 200) {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => end(`status ${res.statusCode} ${body.slice(0, 160)}`, res.statusCode, retryAfterOf(res)));
      res.on('error', () => end(`status ${res.statusCode}`, res.statusCode, retryAfterOf(res)));
      return;
    }
    const frames = frameSplitter();
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      // Heartbeats are comments (`:`), not `event: next`.
      for (const frame of frames(chunk)) {
        if (frame.startsWith('event: complete')) {
          // The server ended the subscription (session expired, key revoked): the SDK completes, no reconnection.
          over = true;
          page.live = false;
          return stop(page, 'completed by the server');
        }
        if (!frame.startsWith('event: next')) continue;
        events += 1;
        if (events === 1) {
          page.live = true;
          page.liveAt = now();
          page.streams += 1;
          page.retries = 0;
          page.settled?.();
        } else if (armed && page.arrived === undefined) {
          page.arrived = now();
          page.frame = frame;
          armed.left -= 1;
          if (armed.left === 0) armed.done();
        }
      }
    });
    res.on('error', () => undefined); // 'close' follows
    res.on('close', () => end('stream ended'));
  });
  page.req = req;
  req.on('error', (err: NodeJS.ErrnoException) => end(err.code ?? err.message));
  req.end(page.request.body);
}

function stop(page: Page, why: string): void {
  page.final = why;
  page.settled?.();
}

function state(page: Page): PageState {
  return { live: page.live, attempts: page.attempts, streams: page.streams, drops: page.drops, liveAt: page.liveAt, failures: page.failures, final: page.final };
}

/** The `status` of channel `code` in an `event: next` frame of paymentChannelsChanged. */
function statusIn(frame: string, code: string): string | undefined {
  const data = frame.slice(frame.indexOf('\ndata: ') + '\ndata: '.length);
  try {
    const list = (JSON.parse(data) as { data?: { paymentChannelsChanged?: { code: string; status: string }[] } }).data?.paymentChannelsChanged;
    return list?.find((c) => c.code === code)?.status;
  } catch {
    return undefined; // not one JSON document: reported as without
  }
}

function send(message: unknown): void {
  process.send!(message);
}

process.on('message', (m: PagesMessage) => {
  if (m.type === 'open') {
    port = m.port;
    const fresh = m.pages.map((request): Page => ({ request, retries: 0, live: false, attempts: 0, streams: 0, drops: 0, liveAt: 0, failures: [] }));
    pages.push(...fresh);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < fresh.length) {
        const page = fresh[next++]!;
        await new Promise<void>((resolve) => {
          page.settled = resolve;
          connect(page);
        });
        page.settled = undefined;
      }
    };
    void Promise.all(Array.from({ length: m.concurrency }, worker)).then(() => send({ type: 'opened', failures: fresh.filter((p) => !p.live).length }));
  } else if (m.type === 'state') {
    send({ type: 'state', pages: pages.map(state) });
  } else if (m.type === 'arm') {
    const live = pages.filter((p) => p.live);
    for (const p of pages) p.arrived = undefined;
    const done = (): void => {
      clearTimeout(timer);
      armed = undefined;
      const got = live.filter((p) => p.arrived !== undefined);
      const without = got.filter((p) => statusIn(p.frame!, m.code) !== m.status);
      send({ type: 'arrived', times: got.map((p) => p.arrived!), missing: live.length - got.length, without: without.length, sample: (without[0] ?? got[0])?.frame ?? '' });
    };
    const timer = setTimeout(done, m.timeoutMs);
    armed = { left: live.length, done };
    if (live.length === 0) done();
  } else {
    closing = true;
    for (const p of pages) p.req?.destroy();
    process.exit(0);
  }
});
// The parent went away (a crashed test): nothing holds these pages any more.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
