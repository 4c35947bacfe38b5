/**
 * Raw HTTP/1.1 against a real server: the request target and header bytes
 * go out exactly as given (fetch would normalise the URL and refuse odd
 * header values), which is what signature and hostile-input tests need.
 */
import { createServer, request, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RawServer {
  port: number;
  send(method: string, target: string, headers: OutgoingHttpHeaders | [string, string][], body?: string | Buffer): Promise<RawResponse>;
  close(): Promise<void>;
}

/** How long one raw request may wait for its complete answer (an event stream: its first event). */
const RAW_ANSWER_MS = 15_000;

/** Serve the test app on a free loopback port. */
export async function serveRaw(t: TestApp): Promise<RawServer> {
  // The service's own Node listener (src/pipeline/transport/node-transport.ts): the transport `npm start` serves.
  const server: Server = createServer(t.app.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    send(method, target, headers, body) {
      return new Promise((resolve, reject) => {
        // Raw header pairs (duplicates kept) bypass the client's automatic Host header.
        const flat = Array.isArray(headers) ? [['Host', `127.0.0.1:${port}`], ...headers].flat() : headers;
        // A request that gets no complete answer within the bound fails, naming itself, rather than holding
        // the test until its own (long) timeout.
        const timer = setTimeout(() => {
          req.destroy();
          reject(new Error(`raw ${method} ${target.slice(0, 200)}: no complete answer within ${RAW_ANSWER_MS} ms`));
        }, RAW_ANSWER_MS);
        const req = request({ host: '127.0.0.1', port, method, path: target, headers: flat as OutgoingHttpHeaders, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          const done = () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
          };
          // An event stream never ends by itself: its answer is what arrived up to its first event, then the
          // connection is closed (which frees the stream's slot on the server).
          const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            if (stream && Buffer.concat(chunks).includes('\n\n')) {
              done();
              req.destroy();
            }
          });
          res.on('end', done);
          res.on('error', (err) => {
            clearTimeout(timer);
            reject(err);
          });
        });
        req.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        if (body !== undefined && body.length > 0) req.end(body);
        else req.end();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Marks of an internal error leaking: stack frames, source paths, SQL, driver names. */
export const LEAK = /\n\s+at |node_modules|\.ts:\d|SQLITE|sqlite|select .* from|TypeError|RangeError|ReferenceError/i;
