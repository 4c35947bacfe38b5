/**
 * A Server-Sent Events reader for tests: opens a signed stream (fetch with
 * `Accept: text/event-stream`), parses frames as they arrive, and offers
 * bounded waits. Every wait has a deadline; nothing here sleeps blindly.
 */
import { signatureHeaders } from '../../src/modules/auth/svc1.js';

/** One SSE frame: `event:` name and `data:` text (comment-only frames are counted, not listed). */
export interface SseEvent {
  event: string;
  data: string;
  /** `performance.now()` when the frame was complete. */
  at: number;
}

/** An open stream. */
export interface EventStreamReader {
  status: number;
  headers: Headers;
  /** Every `event:` frame so far. */
  events: SseEvent[];
  /** Comment frames (heartbeats) so far. */
  comments: number;
  /** Resolves when the server ended the body (or it failed). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** The `next` payloads parsed as JSON. */
  results(): any[];
  /** Wait until `predicate` holds over the stream state; throws after `timeoutMs`. */
  waitFor(predicate: (s: EventStreamReader) => boolean, timeoutMs: number, what?: string): Promise<void>;
  /** Client side close: cancel the body and abort the request. */
  close(): Promise<void>;
}

/** Credentials to sign with. */
export interface Signer {
  apiKey: string;
  apiSecret: string;
}

/** Options of {@link openEventStream}. */
export interface OpenStreamOptions {
  as: Signer;
  /** How to send the request (a transport's unbuffered fetch). */
  fetch: (target: string, init: RequestInit) => Promise<Response>;
  /** Unix seconds for the signature (default now). */
  timestamp?: string;
  method?: 'POST' | 'GET';
  /** Send these headers instead of a valid signature (auth failure tests). */
  headers?: Record<string, string>;
  /** The `Accept` header (default `text/event-stream`); null sends none (as `fetch()` and curl may). */
  accept?: string | null;
}

/** The subscription document every test uses unless told otherwise. */
export const CHANNELS_SUBSCRIPTION = 'subscription { paymentChannelsChanged { code status feeInfo { feePercentage feeValue } } }';

/** Open a signed event stream for `query` (POST JSON body, or GET with the query in the target). */
export async function openEventStream(query: string, options: OpenStreamOptions, variables?: Record<string, unknown>): Promise<EventStreamReader> {
  const method = options.method ?? 'POST';
  const body = method === 'POST' ? JSON.stringify({ query, variables }) : '';
  const target = method === 'POST' ? '/graphql' : `/graphql?${new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) }).toString()}`;
  const accept = options.accept === undefined ? 'text/event-stream' : options.accept;
  const headers: Record<string, string> = {
    ...(accept === null ? {} : { accept }),
    ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
    ...(options.headers ?? signatureHeaders(options.as.apiKey, options.as.apiSecret, { method, target, body, timestamp: options.timestamp })),
  };
  const abort = new AbortController();
  const res = await options.fetch(target, { method, headers, body: body || undefined, signal: abort.signal });

  const events: SseEvent[] = [];
  let comments = 0;
  let ended = false;
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of waiters) w();
  };
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  const pump = async (): Promise<void> => {
    if (!reader) return;
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = frame.split('\n');
          const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          if (event !== undefined) events.push({ event, data, at: performance.now() });
          else if (lines.every((l) => l.startsWith(':'))) comments += 1;
          changed();
        }
      }
    } catch (err) {
      // Our own close() aborts the read; anything else is a real failure the test must see.
      if (!abort.signal.aborted) throw err;
    } finally {
      ended = true;
      changed();
    }
  };
  const endedPromise = pump();

  const stream: EventStreamReader = {
    status: res.status,
    headers: res.headers,
    events,
    get comments() {
      return comments;
    },
    ended: endedPromise,
    isEnded: () => ended,
    results: () => events.filter((e) => e.event === 'next').map((e) => JSON.parse(e.data)),
    waitFor(predicate, timeoutMs, what = 'condition') {
      if (predicate(stream)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(stream)) {
            cleanup();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events so far: ${JSON.stringify(events.map((e) => [e.event, e.data.slice(0, 200)]))}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    async close() {
      abort.abort();
      await reader?.cancel().catch(() => undefined);
      await endedPromise.catch(() => undefined);
    },
  };
  return stream;
}

/** Poll `check` until it holds (bounded), for state outside a stream (slot counts, metrics). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
