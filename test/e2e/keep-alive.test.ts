/**
 * Contract §6 KEEP_ALIVE_TIMEOUT_MS: the real server (started as the README says) keeps an idle kept-alive
 * client connection open longer than Node's old default of 5 s (a load balancer with a 60 s idle timeout
 * must never reuse a socket the service just closed), and the variable is honored.
 *
 * One pass (npm test): the server socket is its subject, not the engine.
 */
import http from 'node:http';
import net, { type Socket } from 'node:net';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  server = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (text: string, needle: string) => text.split(needle).length - 1;

/** Poll `condition` every 20 ms; throws after `timeoutMs`. */
async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}

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
    const { port } = new URL(server.baseUrl);
    // A raw socket: an http.Agent drops sockets on its own a second before the server's Keep-Alive hint, which
    // would hide who closed it.
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let endedByServer = false;
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('end', () => (endedByServer = true));
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const request = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
      socket.write(request);
      await waitFor(() => count(received, 'HTTP/1.1 200') === 1);
      expect(received).toMatch(/keep-alive: timeout=1\b/i);
      await sleep(400);
      socket.write(request); // same connection, within the timeout
      await waitFor(() => count(received, 'HTTP/1.1 200') === 2);
      // 1 s after the last response (checked about once a second) the server closes the idle connection;
      // the default 65 s would keep it.
      await waitFor(() => endedByServer, 4_000);
      expect(endedByServer).toBe(true);
    } finally {
      socket.destroy();
    }
  }, 40_000);
});
