/**
 * Contract §6 KEEP_ALIVE_TIMEOUT_MS: the real server (started as the README says) keeps an idle kept-alive
 * client connection open longer than Node's old default of 5 s (a load balancer with a 60 s idle timeout
 * must never reuse a socket the service just closed), and the variable is honored.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /health through `agent`; resolves with the status and the socket that carried it. */
function get(agent: http.Agent, baseUrl: string): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}/health`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket! }));
    });
    req.on('error', reject);
  });
}

describe('keep-alive of client connections', () => {
  it('by default an idle kept-alive socket is still open after 7.5 s and serves the next request', async () => {
    server = await startServer(makeTempDir('pgw-keepalive-'));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent, server.baseUrl);
      expect(first.status).toBe(200);
      let closed = false;
      first.socket.once('close', () => (closed = true));
      // Node's former default (5 s) closes such a socket about 5-6 s after the response; wait clearly longer.
      await sleep(7_500);
      expect(closed).toBe(false);
      const second = await get(agent, server.baseUrl);
      expect(second.status).toBe(200);
      expect(second.socket).toBe(first.socket); // the same connection, reused
    } finally {
      agent.destroy();
    }
  }, 40_000);

  it('KEEP_ALIVE_TIMEOUT_MS is honored: reused within it, closed by the server after it', async () => {
    server = await startServer(makeTempDir('pgw-keepalive-'), { KEEP_ALIVE_TIMEOUT_MS: '1000' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent, server.baseUrl);
      await sleep(400);
      const second = await get(agent, server.baseUrl);
      expect(second.socket).toBe(first.socket);

      let closed = false;
      second.socket.once('close', () => (closed = true));
      // 1 s after the last response (checked about once a second) the server closes the idle socket; the
      // default 65 s would keep it.
      await sleep(3_500);
      expect(closed).toBe(true);
      const third = await get(agent, server.baseUrl);
      expect(third.status).toBe(200);
      expect(third.socket).not.toBe(first.socket);
    } finally {
      agent.destroy();
    }
  }, 40_000);
});
