/**
 * Slow and unparsable clients are answered by Node itself (408 / 400), outside the request pipeline;
 * src/pipeline/transport/client-errors.ts makes those answers appear in the request log and the metrics. Driven over a
 * real socket, against the app's own Node listener, with time-outs short enough for a test (the server's
 * are KEEP_ALIVE_TIMEOUT_MS + 5 s for headers and Node's 300 s for a whole request).
 */
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTemplateOf } from '../../src/shared/routes.js';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { observeClientErrors } from '../../src/pipeline/transport/client-errors.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let server: Server;
let port: number;
const lines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ transport: 'in-process', logLines: lines });
  // Node checks the time-outs every connectionsCheckingInterval (30 s by default).
  server = createServer({ connectionsCheckingInterval: 100, headersTimeout: 500, requestTimeout: 1_500 }, t.app.handler);
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  observeClientErrors(server, { logger, registry: t.app.metricsRegistry, routeOf: routeTemplateOf });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

/**
 * Write `bytes` and keep the connection open without sending more; resolves with all the server sent. Each
 * call comes from its own loopback address: repeated refusals of one address are summarised in the log
 * (src/pipeline/refusal-log.ts), and each case here looks for its own first line.
 */
let nextAddress = 10;
function stall(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${nextAddress++}` }, () => socket.write(bytes));
    let got = '';
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

const requestLines = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');

async function metric(name: string): Promise<number> {
  const text = await (await t.fetch('/metrics')).text();
  const row = text.split('\n').find((l) => l.startsWith(`${name} `));
  return row ? Number(row.split(' ')[1]) : 0;
}

describe('answers Node gives outside the pipeline', () => {
  it('slow headers: 408, one request-log line, counted', async () => {
    const before = requestLines().length;
    const got = await stall('GET /v1/payments/channel HTTP/1.1\r\nHost: 127.0.0.1\r\nX-SERVICE-API-Key: pk_');
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    // Like every answer (src/shared/security-headers.ts): never sniffed, never framed.
    expect(got).toContain('\r\nX-Content-Type-Options: nosniff\r\n');
    expect(got).toContain('\r\nX-Frame-Options: DENY\r\n');
    const logged = requestLines().slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ status: 408, errorCode: 'REQUEST_TIMEOUT', clientError: 'ERR_HTTP_REQUEST_TIMEOUT' });
    expect(logged[0]!.requestId).toEqual(expect.any(String));
    expect(await metric('http_requests_total{method="OTHER",route="unmatched",status="408"}')).toBe(1);
  });

  it('slow body: 408 and a request-log line with the route', async () => {
    const before = requestLines().length;
    // Signed, so that the pipeline reads the body (an unsigned request is refused before that).
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId });
    const signed = signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: '/v1/payments/calculate', body, timestamp: String(Math.floor(t.clock.now / 1000)) });
    const head = Object.entries(signed).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const got = await stall(`POST /v1/payments/calculate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${head}\r\n${body.slice(0, 10)}`);
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    // Let the pipeline finish the aborted request (it may log its own line for it).
    await new Promise((r) => setTimeout(r, 200));
    const logged = requestLines().slice(before);
    expect(logged.filter((l) => l.status === 408)).toEqual([expect.objectContaining({ method: 'POST', route: '/v1/payments/calculate', errorCode: 'REQUEST_TIMEOUT' })]);
    expect(await metric('http_requests_total{method="POST",route="/v1/payments/calculate",status="408"}')).toBe(1);
  });

  it('a body the client aborts: logged and counted as 499, never a 5xx', async () => {
    const counted = await metric('http_requests_total{method="POST",route="/v1/payments/calculate",status="499"}');
    const failed = await metric('http_requests_total{method="POST",route="/v1/payments/calculate",status="503"}');
    const before = requestLines().length;
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId });
    const signed = signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: '/v1/payments/calculate', body, timestamp: String(Math.floor(t.clock.now / 1000)) });
    const head = Object.entries(signed).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`POST /v1/payments/calculate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${head}\r\n${body.slice(0, 10)}`);
        // The body's first bytes are on their way; the client gives up before the rest.
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 300));
    const logged = requestLines().slice(before);
    expect(logged).toEqual([expect.objectContaining({ method: 'POST', route: '/v1/payments/calculate', status: 499, errorCode: 'INVALID_REQUEST' })]);
    expect(await metric('http_requests_total{method="POST",route="/v1/payments/calculate",status="499"}')).toBe(counted + 1);
    expect(await metric('http_requests_total{method="POST",route="/v1/payments/calculate",status="503"}')).toBe(failed);
  });

  it('an unparsable request: 400, logged and counted', async () => {
    const before = requestLines().length;
    const got = await stall('NOT HTTP AT ALL\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(requestLines().slice(before)).toEqual([expect.objectContaining({ status: 400, errorCode: 'INVALID_REQUEST' })]);
    expect(await metric('http_requests_total{method="OTHER",route="unmatched",status="400"}')).toBe(1);
  });
});
