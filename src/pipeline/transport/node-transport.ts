/**
 * The Node `request` listener of the service: ONE request path.
 *
 * Every request — GraphQL, REST, GraphiQL, health, metrics, docs, images,
 * event streams, every error — goes through `yoga.handleRequest`, i.e. the
 * same Yoga server-adapter pipeline that `yoga.fetch` (the in-process tests)
 * runs: every plugin's `onRequest`, Yoga's request parsing, `onParams`,
 * envelop's parse/validate/execute, `onResultProcess`, every `onResponse`.
 * No plugin is called from anywhere else and no route is answered outside
 * it, so a plugin cannot run on one path and not on another.
 *
 * What this file does differently from the stock `yoga.requestListener` is
 * only the transport: the Request handed to the pipeline is a
 * {@link NodeRequest} over Node's own request (no URL/header copies, no
 * AbortController unless asked for, the body read once as bytes), and the
 * Response is written in one `end()` with its Content-Length when its bytes
 * are in memory, straight to the socket for an event stream (writeEventStream),
 * and by @whatwg-node/server's `sendNodeResponse` (streaming) otherwise.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { sendNodeResponse } from '@whatwg-node/server';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { GraphQLContext } from '../../graphql/context.js';
import { AppError, problemDetails } from '../../shared/errors.js';
import { EVERY_ANSWER, NOT_A_PAGE_POLICY } from '../../shared/security-headers.js';
import type { FairLanes } from './fair-lanes.js';
import { NodeRequest } from './node-request.js';
import { ponyfillBodyBytes } from './ponyfill-body.js';
import type { ServerSpans } from '../tracing.js';
import { EVENT_STREAM, RESPONSE_BYTES, type ResponseWithBytes, type ResponseWithEventStream } from '../responses.js';

/** The whole body of a response whose bytes are already in memory, or null for a stream. */
function bytesOf(response: Response): Buffer | null {
  return (response as ResponseWithBytes)[RESPONSE_BYTES] ?? ponyfillBodyBytes(response);
}

/**
 * An answer given before the request body was read to its end (413 past the body limit, or a route that
 * never reads its body) leaves the rest of that body on the socket: the connection cannot carry another
 * request, so it is closed after this response instead of kept alive.
 */
function closeIfUnread(req: IncomingMessage, head: Record<string, string>): void {
  if (bodyLeftUnread(req)) head.connection = 'close';
}

/**
 * True while part of the request's body may still be on the socket. A request without a body (no
 * Transfer-Encoding, no or a zero Content-Length) has nothing left to read even before Node has marked it
 * `complete` (which happens after the `request` event, so an answer written synchronously sees it false).
 */
function bodyLeftUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const h = req.headers;
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

/**
 * Write an in-memory response in one go: status, headers and a Content-Length with the body, one `end()`
 * (one socket write for a small answer; without a length Node would send it chunked, in two writes).
 * Returns false when the response must be streamed (or carries Set-Cookie) and was not written.
 */
function writeWhole(req: IncomingMessage, res: ServerResponse, response: Response): boolean {
  const bytes = bytesOf(response);
  if (bytes === null) return false;
  const head: Record<string, string> = {};
  let cookies = false;
  response.headers.forEach((value, name) => {
    const key = name.toLowerCase();
    if (key === 'set-cookie') cookies = true;
    head[key] = value;
  });
  if (cookies) return false;
  const status = response.status;
  if (status === 204 || status === 304) delete head['content-length'];
  // A HEAD answer declares the length its GET would send (responses.ts, getOrHeadAnswer); Node sends no body for HEAD.
  else if (!(req.method === 'HEAD' && bytes.length === 0 && head['content-length'] !== undefined)) head['content-length'] = String(bytes.length);
  closeIfUnread(req, head);
  res.writeHead(status, head);
  res.end(status === 204 || status === 304 ? undefined : bytes);
  return true;
}

/**
 * An event stream written straight to the client's socket (contract §8b): the status and headers, then each
 * event as one `write` as soon as the stream has it; the stream reads the socket's backlog
 * (`writableLength`) to cut off a client that stopped reading, and learns of a client gone from `close`.
 * Why not `sendNodeResponse`: its pump reads a web ReadableStream chunk by chunk, two promise hops and a web
 * stream per open stream; written directly an event costs what a `node:http` write costs (the floor of
 * `npm run bench:streams`) and an idle stream holds no stream objects.
 */
function writeEventStream(res: ServerResponse, response: Response, stream: NonNullable<ResponseWithEventStream[typeof EVENT_STREAM]>, firstWrite?: () => void): void {
  const head: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    head[name.toLowerCase()] = value;
  });
  res.writeHead(response.status, head);
  flattenHead(res);
  // Traced (contract §13): the request's SERVER span ends with the stream's first event, not with the stream.
  let first = firstWrite;
  const closed = stream.attach({
    write:
      first === undefined
        ? (bytes) => void res.write(bytes)
        : (bytes) => {
            res.write(bytes);
            // A comment line (`:` first: the heartbeat that may carry the headers before the first event) is not an event.
            if (first !== undefined && (typeof bytes === 'string' ? bytes.charCodeAt(0) : bytes[0]) !== 0x3a) {
              first();
              first = undefined;
            }
          },
    pending: () => res.writableLength,
    end: () => res.end(),
    cutOff: () => res.destroy(),
  });
  // After a normal end this is a no-op (the stream has ended); before it, the client went away.
  res.once('close', () => closed('aborted'));
  // A client gone while the pipeline ran (its 'close' already emitted) ends the stream now: its slot is freed.
  if (res.destroyed || res.socket === null || res.socket.destroyed) closed('aborted');
}

/**
 * Node builds a response's head by concatenating its lines and keeps the string (`_header`) for the response's
 * life. A concatenated string is a tree of its pieces: an event stream's head took 2.1 KB of heap in 63 strings
 * (heap snapshot: memory per open stream), its text in one piece 0.44 KB. Replaced here, before anything is
 * sent, by the same text in one piece (every head character is one byte: Node refuses others). `_header` is
 * Node's own field (what `headersSent` reads, sent with the first write); anything but a string is left alone.
 */
function flattenHead(res: ServerResponse): void {
  const own = res as unknown as { _header?: unknown };
  if (typeof own._header === 'string') own._header = Buffer.from(own._header, 'latin1').toString('latin1');
}

/** A Node `request` listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Options of {@link createNodeListener}. */
export interface NodeListenerOptions {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  logger: Logger;
  /**
   * Fair turns (fair-lanes.ts): `laneOf` names the lane of a request that must wait for its turn (checkout
   * sessions: their merchant), or null for one that starts at once. Absent: every request starts at once.
   */
  fairness?: { lanes: FairLanes; laneOf: (req: IncomingMessage) => string | null };
  /**
   * Contract §13, only while tracing is on: each request's SERVER span, started on arrival (a fair turn's
   * wait is inside it) and ended when its answer is written. Absent: nothing of tracing runs per request.
   */
  serverSpans?: ServerSpans;
}

/** The answer to a request shed by the fair lanes (their bound): contract §4, retry in a second. */
const SHED_BODY = JSON.stringify(
  problemDetails('SERVICE_UNAVAILABLE', 'The service is at capacity for checkout session requests; retry after 1 s.', { retryAfter: 1 }, ''),
);

export function createNodeListener(options: NodeListenerOptions): NodeHandler {
  const { yoga, logger, serverSpans } = options;
  // Read once: the Yoga instance is a proxy whose property reads are not free.
  const handleRequest = yoga.handleRequest;

  function fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    // Only a bug outside every plugin can get here (each plugin answers its own failures, and Yoga masks
    // execution errors): log it, answer the contract's INTERNAL_ERROR, never leave the socket hanging.
    logger.error({ err }, 'request pipeline failed');
    serverSpans?.end(req, res.headersSent ? res.statusCode : 500, 'INTERNAL_ERROR');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const error = new AppError('INTERNAL_ERROR', 'Unexpected error.');
    res.writeHead(error.status, { 'Content-Type': 'application/problem+json', ...EVERY_ANSWER, 'Content-Security-Policy': NOT_A_PAGE_POLICY });
    res.end(JSON.stringify(problemDetails(error.code, error.message, error.details, '')));
  }

  function shed(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent || res.destroyed) return;
    serverSpans?.end(req, 503, 'SERVICE_UNAVAILABLE');
    const head: Record<string, string> = {
      'content-type': 'application/problem+json',
      'retry-after': '1',
      'content-length': String(Buffer.byteLength(SHED_BODY)),
      ...EVERY_ANSWER,
      'content-security-policy': NOT_A_PAGE_POLICY,
    };
    closeIfUnread(req, head);
    res.writeHead(503, head);
    res.end(SHED_BODY);
  }

  function run(req: IncomingMessage, res: ServerResponse): void {
    const request = new NodeRequest(req, res);
    let pending: Response | Promise<Response>;
    try {
      // No server context of our own: the adapter then starts each request with a fresh `{ waitUntil }`
      // instead of copying ours property by property (measured: 5 % of a cached answer's CPU). The Node
      // request and response are reached through the request (`nodeRequestOf`).
      pending = handleRequest(request as unknown as Request, undefined as never);
    } catch (err) {
      fail(req, res, err);
      return;
    }
    const send = (response: Response) => {
      if (writeWhole(req, res, response)) return;
      const stream = (response as ResponseWithEventStream)[EVENT_STREAM];
      if (stream !== undefined) {
        // Only a recording SERVER span has an end to wait for (an unsampled request's has nothing to end).
        if (serverSpans?.contextOf(req) === undefined) writeEventStream(res, response, stream);
        else writeEventStream(res, response, stream, () => serverSpans.end(req, response.status));
        return;
      }
      if (bodyLeftUnread(req)) res.setHeader('connection', 'close');
      const sent = sendNodeResponse(response, res, req, true);
      if (sent && typeof (sent).then === 'function') (sent).catch((err: unknown) => fail(req, res, err));
    };
    if (pending instanceof Promise) pending.then(send, (err: unknown) => fail(req, res, err));
    else send(pending);
  }

  // Traced: a sampled request's pipeline runs in its context (its SERVER span active), also when it starts
  // later, from another request's completion (a fair turn), so a Redis command's span finds the right parent.
  // An unsampled request's runs in the root context (nothing under it makes a span): the 'request' event's own;
  // a fair turn may start it inside the context that completed the request before it, so it is entered there.
  const start: NodeHandler =
    serverSpans === undefined
      ? run
      : (req, res) => {
          const own = serverSpans.contextOf(req);
          if (own !== undefined) context.with(own, run, undefined, req, res);
          else run(req, res);
        };
  const startInTurn: NodeHandler =
    serverSpans === undefined
      ? start
      : (req, res) => {
          if (serverSpans.contextOf(req) !== undefined || context.active() === ROOT_CONTEXT) start(req, res);
          else context.with(ROOT_CONTEXT, start, undefined, req, res);
        };
  const fairness = options.fairness;
  const handler: NodeHandler = fairness === undefined ? start : fairHandler(fairness, start, startInTurn);
  if (serverSpans === undefined) return handler;
  return (req, res) => {
    // Sampling is decided here, once per request; an unsampled request costs its ids and nothing else.
    // 'close' follows the last byte written, or a client gone first; an event stream's span ended earlier.
    if (serverSpans.start(req) !== undefined) res.once('close', () => serverSpans.end(req, res.statusCode));
    handler(req, res);
  };

  function fairHandler({ lanes, laneOf }: NonNullable<NodeListenerOptions['fairness']>, run: NodeHandler, runInTurn: NodeHandler): NodeHandler {
    return (req, res) => {
      let lane: string | null;
      try {
        lane = laneOf(req);
      } catch (err) {
        // A bug in choosing the lane must not take the process down (this runs in Node's 'request' event) nor
        // lose the request: log it, and let the pipeline judge the request at once.
        logger.error({ err }, 'choosing the fair lane of a request failed');
        lane = null;
      }
      if (lane === null) {
        run(req, res);
        return;
      }
      lanes.submit(lane, { start: () => runInTurn(req, res), shed: () => shed(req, res), gone: () => req.socket.destroyed });
    };
  }
}
