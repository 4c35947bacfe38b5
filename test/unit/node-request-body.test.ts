/**
 * A request body read by the Node transport (src/pipeline/transport/node-request.ts) leaves no listener on
 * the request: an event stream's request lives as long as the stream, and listeners left on it kept the
 * body's bytes (memory per open stream, contract §8b). Both ways a read ends: the whole body, and past the limit.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { ClientClosedRequest } from '../../src/pipeline/transport/body.js';
import { NodeRequest } from '../../src/pipeline/transport/node-request.js';

let server: http.Server;
let port: number;
const seen: { outcome: string; listeners: Record<string, number> }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const limit = Number(req.headers['x-limit']);
    const listeners = () => ({ data: req.listenerCount('data'), end: req.listenerCount('end'), error: req.listenerCount('error') });
    new NodeRequest(req, res).readBytes(limit).then(
      (bytes) => {
        seen.push({ outcome: `read ${bytes.byteLength}`, listeners: listeners() });
        res.end('ok');
      },
      (err: Error) => {
        seen.push({ outcome: err instanceof ClientClosedRequest ? 'client closed' : err.message.includes('bytes') ? 'too large' : err.message, listeners: listeners() });
        res.end('too large');
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const post = (body: string, limit: number) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers: { 'x-limit': String(limit) } }).then((r) => r.text());

describe('reading a request body', () => {
  it('removes its listeners once the body is read', async () => {
    await post('x'.repeat(3000), 10_000);
    expect(seen.at(-1)).toEqual({ outcome: 'read 3000', listeners: { data: 0, end: 0, error: 0 } });
  });

  it('removes its listeners when the body is past the limit', async () => {
    await post('x'.repeat(3000), 100);
    expect(seen.at(-1)).toEqual({ outcome: 'too large', listeners: { data: 0, end: 0, error: 0 } });
  });

  it('a body the client aborts is ClientClosedRequest, and its listeners are removed', async () => {
    const count = seen.length;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nx-limit: 10000\r\nContent-Length: 100\r\n\r\n0123456789');
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await expect.poll(() => seen.length).toBe(count + 1);
    expect(seen.at(-1)).toEqual({ outcome: 'client closed', listeners: { data: 0, end: 0, error: 0 } });
  });
});
