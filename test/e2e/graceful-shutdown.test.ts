/**
 * Graceful shutdown of the real server: SIGTERM arrives while a request is
 * in flight (its body is still being uploaded). /ready turns 503 first, the
 * listener then closes (new connections refused), the in-flight request
 * still completes with its normal answer, and the process exits 0.
 * Ordering is observed through the server's own log lines, not timing.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { makeTempDir } from '../helpers/app.js';
import { startServer, type RunningServer } from '../helpers/ops.js';

let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = makeTempDir('pgw-stop-');
  // A long not-ready window and a long in-flight allowance, so the test never races the server's timers.
  server = await startServer(dataDir, { SHUTDOWN_DELAY_MS: '5000', SHUTDOWN_TIMEOUT_MS: '4500' });
}, 60_000);

afterAll(async () => {
  await server?.stop('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function connectRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM: not ready first, then no new connections, the in-flight request completes, exit 0', async () => {
    const creds = JSON.parse(fs.readFileSync(`${dataDir}/demo-credentials.json`, 'utf8')) as { merchants: DemoMerchantCredentials[] };
    const who = creds.merchants.find((m) => m.kyc === 'approved')!;
    const url = new URL(server.baseUrl);
    const port = Number(url.port);
    const target = '/v1/payments/calculate';
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: who.merchantId, chargeFeeToCustomer: true });

    // Start the request and send only half of its body.
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: target,
      headers: { ...signatureHeaders(who.apiKey, who.apiSecret, { method: 'POST', target, body }), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
    });
    const connected = new Promise<void>((resolve) => req.on('socket', (s) => (s.connecting ? s.once('connect', () => resolve()) : resolve())));
    req.write(body.slice(0, 20));
    req.flushHeaders();
    await connected;
    // The server has the request once its connection shows up; a /ready round trip orders us after that.
    expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);

    server.child.kill('SIGTERM');
    await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('shutting down'));
    const ready = await fetch(`${server.baseUrl}/ready`, { headers: { connection: 'close' } });
    expect(ready.status).toBe(503);

    await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('listener closed'));
    expect(await connectRefused(port)).toBe(true);
    expect(server.child.exitCode).toBeNull(); // still waiting for the in-flight request

    req.end(body.slice(20));
    const done = await response;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });

    expect(await server.exited).toBe(0);
    const messages = server.logLines().map((l) => l.msg);
    expect(messages.indexOf('stopped')).toBeGreaterThan(messages.lastIndexOf('request'));
  }, 60_000);
});

describe('graceful shutdown with the default settings (behind a health-checking balancer)', () => {
  let defaultsDir: string | undefined;
  afterAll(() => {
    if (defaultsDir) fs.rmSync(defaultsDir, { recursive: true, force: true });
  });

  it('SIGTERM: /ready 503 at once, yet new connections are still served for SHUTDOWN_DELAY_MS (3 s) so the balancer can notice; exit 0', async () => {
    defaultsDir = makeTempDir('pgw-stop-defaults-');
    const running = await startServer(defaultsDir);
    try {
      const creds = JSON.parse(fs.readFileSync(`${defaultsDir}/demo-credentials.json`, 'utf8')) as { merchants: DemoMerchantCredentials[] };
      const who = creds.merchants.find((m) => m.kyc === 'approved')!;
      running.child.kill('SIGTERM');
      const line = await running.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('shutting down'));
      expect(line.delayMs).toBe(3000);
      // Not ready, but serving: what a balancer that has not yet noticed sends still gets its answer.
      expect((await fetch(`${running.baseUrl}/ready`, { headers: { connection: 'close' } })).status).toBe(503);
      const target = '/v1/payments/channel';
      const res = await fetch(`${running.baseUrl}${target}`, { headers: { ...signatureHeaders(who.apiKey, who.apiSecret, { method: 'GET', target, body: '' }), connection: 'close' } });
      expect(res.status).toBe(200);
      expect(running.logLines().some((l) => typeof l.msg === 'string' && l.msg.startsWith('listener closed'))).toBe(false);
      expect(await running.exited).toBe(0);
    } finally {
      await running.stop('SIGKILL');
    }
  }, 60_000);

  it('SIGINT (Ctrl-C: a person waits, no balancer) skips the delay', async () => {
    const running = await startServer(defaultsDir!);
    try {
      running.child.kill('SIGINT');
      const line = await running.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('shutting down'));
      expect(line.delayMs).toBe(0);
      expect(await running.exited).toBe(0);
    } finally {
      await running.stop('SIGKILL');
    }
  }, 60_000);
});
