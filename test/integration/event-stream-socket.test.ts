/**
 * The Node transport writes an event stream straight to the client's socket (contract §8b):
 * the real transport (createNodeListener) over a real loopback socket, a source that yields large events as
 * fast as it can. A client that stops reading is cut off (its connection closed, the stream ended `slow`)
 * once more than maxPendingBytes wait for it beyond the kernel's buffers; a client that reads gets every
 * event and keeps its stream; a client that goes away ends its stream (`aborted`) and returns its source.
 *
 * Events are 256 KiB so that the loopback socket's kernel buffers (a few MiB) fill after a few dozen of
 * them; in-process readers are covered by live-fanout.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionResult } from 'graphql';
import type { FetchAPI, YogaServerInstance } from 'graphql-yoga';
import { Response as PonyfillResponse } from '@whatwg-node/fetch';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { eventStreamResponse, LiveStreamRegistry, type StreamEnd } from '../../src/pipeline/live/event-stream.js';
import { createNodeListener } from '../../src/pipeline/transport/node-transport.js';
import type { GraphQLContext } from '../../src/graphql/context.js';

const EVENT = { data: { blob: 'x'.repeat(256 * 1024) } };
const MAX_PENDING = 64 * 1024;

interface Opened {
  ends: StreamEnd[];
  returned: number;
  yielded: number;
}

/**
 * A source yielding a fresh large result (a different one each time: no dedup) every turn, or every `gapMs`,
 * until `limit` or returned.
 */
function source(state: Opened, limit: number, gapMs: number): AsyncIterable<ExecutionResult> {
  let n = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        await new Promise((r) => (gapMs > 0 ? setTimeout(r, gapMs) : setImmediate(r)));
        if (n >= limit) return { done: true, value: undefined };
        n += 1;
        state.yielded += 1;
        return { done: false, value: { ...EVENT, extensions: { n } } };
      },
      return: () => {
        state.returned += 1;
        return Promise.resolve({ done: true as const, value: undefined });
      },
    }),
  };
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A real server whose every request is an event stream of `limit` events through the Node transport. */
async function start(limit: number, gapMs = 0, answerAfterMs = 0): Promise<{ port: number; opened: Opened[] }> {
  const registry = new LiveStreamRegistry({ heartbeatMs: 60_000, maxPendingBytes: MAX_PENDING });
  const fetchAPI = { Response: PonyfillResponse } as unknown as FetchAPI;
  const opened: Opened[] = [];
  const yoga = {
    handleRequest: async () => {
      const state: Opened = { ends: [], returned: 0, yielded: 0 };
      opened.push(state);
      // The pipeline's own time (a Redis slot decision, say) before the answer is there.
      if (answerAfterMs > 0) await new Promise((r) => setTimeout(r, answerAfterMs));
      return eventStreamResponse(source(state, limit, gapMs), fetchAPI, { registry, requestId: 'r', direct: true, onClose: (end) => state.ends.push(end), onUnexpected: () => undefined });
    },
  } as unknown as YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  server = http.createServer(createNodeListener({ yoga, logger: pino({ level: 'silent' }) }));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, opened };
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('event streams written straight to the socket', () => {
  it('a client that stops reading is cut off: its connection closes, its stream ends "slow", its source is returned', async () => {
    const { port, opened } = await start(1_000_000);
    let received = 0;
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/graphql' }, (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      res.once('data', (chunk: Buffer) => {
        received += chunk.length;
        // Stop reading: nothing more is taken from the socket.
        res.pause();
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end();
    await until(() => opened[0]?.ends.length === 1, 30_000, 'the stopped reader cut off');
    expect(opened[0]!.ends).toEqual(['slow']);
    expect(opened[0]!.returned).toBe(1);
    // The server dropped the connection (the paused client notices only when it reads again).
    let connections = -1;
    await until(() => {
      server!.getConnections((_err, n) => (connections = n));
      return connections === 0;
    }, 5000, "the client's connection closed by the server");
    req.destroy();
    expect(received).toBeGreaterThan(0);
    // Bounded: it was cut off after the kernel's buffers and 64 KiB filled, not after a million events.
    expect(opened[0]!.yielded).toBeLessThan(1000);
  });

  it('a client that reads gets every event and the end; one that leaves ends its stream "aborted"', async () => {
    // One event every 5 ms (50 MB/s): a reading client keeps up, so nothing waits for it beyond the kernel's buffers.
    const { port, opened } = await start(40, 5);
    const text = await new Promise<string>((resolve, reject) => {
      http
        .request({ host: '127.0.0.1', port, method: 'POST', path: '/graphql' }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(body));
        })
        .on('error', reject)
        .end();
    });
    expect(text.match(/^event: next$/gm)).toHaveLength(40);
    expect(text.endsWith('event: complete\ndata:\n\n')).toBe(true);
    expect(opened[0]!.ends).toEqual(['complete']);

    const { port: port2, opened: opened2 } = await start(1_000_000);
    const req = http.request({ host: '127.0.0.1', port: port2, method: 'POST', path: '/graphql' }, (res) => {
      res.once('data', () => req.destroy());
    });
    req.on('error', () => undefined);
    req.end();
    await until(() => opened2[0]?.ends.length === 1, 10_000, 'the stream of the client that left ended');
    expect(opened2[0]!.ends).toEqual(['aborted']);
    expect(opened2[0]!.returned).toBe(1);
  });

  it('a client gone before its stream was answered ends that stream at once (its slot is freed), nothing written', async () => {
    const { port, opened } = await start(1_000_000, 0, 200);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/graphql' });
    req.on('error', () => undefined);
    req.end();
    await until(() => opened.length === 1, 5000, 'the request in the pipeline');
    req.destroy();
    await until(() => opened[0]!.ends.length === 1, 5000, 'the stream of the client gone before the answer ended');
    expect(opened[0]!.ends).toEqual(['aborted']);
    expect(opened[0]!.returned).toBe(1);
  });
});
