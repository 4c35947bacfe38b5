/**
 * Answers Node gives outside the request pipeline, made visible: a connection whose headers (or body)
 * arrive too slowly is answered `408` by Node's `headersTimeout`/`requestTimeout`, a request Node cannot
 * parse `400`, headers over Node's size limit `431`. None of them reaches a `request` listener, so none
 * would be logged or counted. Listening for the server's 'clientError' takes over writing that answer:
 * the same bytes Node writes by default plus the security headers every answer carries, one request-log line and one `http_requests_total` count,
 * like every other answer. (No duration is observed: Node does not say when such a request began.)
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Counter, Registry } from 'prom-client';
import { EVERY_ANSWER, NOT_A_PAGE_POLICY } from '../../shared/security-headers.js';
import { plainAddress } from '../../shared/client-address.js';
import { refusalLogOf } from '../refusal-log.js';

/** Node's code of a client error → the status Node answers and the `errorCode` of the log line. */
const ANSWERS: Record<string, { status: number; code: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT' },
  HPE_HEADER_OVERFLOW: { status: 431, code: 'HEADERS_TOO_LARGE' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, code: 'PAYLOAD_TOO_LARGE' },
};
const BAD_REQUEST = { status: 400, code: 'INVALID_REQUEST' };
/** The security headers of every answer (src/shared/security-headers.ts), as raw header lines. */
const SECURITY_LINES = Object.entries({ ...EVERY_ANSWER, 'Content-Security-Policy': NOT_A_PAGE_POLICY })
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);


export interface ClientErrorOptions {
  logger: Logger;
  /** The registry of the app's `useMetrics` (its `http_requests_total` and duration histogram). */
  registry: Registry;
  /** Route template of a path, as the metrics label it (`unmatched` when the request line never arrived). */
  routeOf: (pathname: string) => string;
}

/** Install the handler on `server`. */
export function observeClientErrors(server: Server, options: ClientErrorOptions): void {
  const { logger, registry, routeOf } = options;
  // The request each socket last delivered to the listener, recorded through the public 'request' event
  // (a WeakMap: a closed socket's entry goes with it). Its response tells whether an answer is under way.
  const lastRequest = new WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    lastRequest.set(req.socket, { req, res });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const last = lastRequest.get(socket);
    // A finished exchange is history: the error belongs to a request that never reached the listener.
    const inFlight = last && !last.res.writableFinished ? last.res : null;
    // A peer that reset or already closed gets no answer, and nothing was answered: nothing to log. A peer
    // that closed in the middle of a body the listener is reading (HPE_INVALID_EOF_STATE) is the pipeline's
    // to log: its body read fails as ClientClosedRequest, one line and one count with status 499.
    const closedMidBody = inFlight !== null && err.code === 'HPE_INVALID_EOF_STATE';
    if (err.code === 'ECONNRESET' || closedMidBody || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = (err.code !== undefined && ANSWERS[err.code]) || BAD_REQUEST;
    // Read before the socket is destroyed (a destroyed socket no longer names its peer).
    const address = socket.remoteAddress === undefined ? undefined : plainAddress(socket.remoteAddress);
    socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${SECURITY_LINES}Connection: close\r\n\r\n`);
    socket.destroy();
    const req = inFlight ? last?.req : undefined;
    const method = req?.method !== undefined && METHODS.has(req.method) ? req.method : 'OTHER';
    const route = routeOf((req?.url ?? '').split('?')[0] ?? '');
    const labels = { method, route, status: String(answer.status) };
    (registry.getSingleMetric('http_requests_total') as Counter | undefined)?.inc(labels);
    // A refusal like the pipeline's: the first of its (address, code) gets its line, repeats a count a second.
    refusalLogOf(logger).record(address, answer.code, answer.status, () =>
      logger.info({ requestId: randomUUID(), method: req?.method, route: req?.url?.split('?')[0], clientAddress: address, status: answer.status, errorCode: answer.code, clientError: err.code }, 'request'),
    );
  });
}
