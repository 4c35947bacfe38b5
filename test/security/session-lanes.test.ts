/**
 * Through the Node transport of a real server: checkout-session requests wait for their
 * merchant's turn in bounded lanes (src/pipeline/transport/fair-lanes.ts). Driven past the bound with
 * pipelined requests on one connection (Node hands all of them to the listener in one go, so the queueing
 * does not depend on timing): every request gets exactly one answer, those past the bound a 503 with
 * Retry-After in the contract's problem format, the shed ones are counted, and signed calls and other
 * sessions are served meanwhile.
 */
import { createServer } from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { FairLanes } from '../../src/pipeline/transport/fair-lanes.js';
import { createNodeListener } from '../../src/pipeline/transport/node-transport.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Send `count` copies of one request, pipelined on one connection, and read the `count` answers in order. */
function pipelined(port: number, request: string, count: number): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const answers: Answer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`only ${answers.length} of ${count} answers within 15 s`));
    }, 15_000);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length']);
        if (!Number.isInteger(length)) return reject(new Error(`answer without a Content-Length: ${statusLine}`));
        if (buffer.length < end + 4 + length) return;
        answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: buffer.subarray(end + 4, end + 4 + length).toString('utf8') });
        buffer = buffer.subarray(end + 4 + length);
        if (answers.length === count) {
          clearTimeout(timer);
          socket.end();
          resolve(answers);
          return;
        }
      }
    });
    socket.write(request.repeat(count));
  });
}

describe('checkout-session requests take turns in bounded lanes', () => {
  it('past the bound the newest requests of the longest lane get 503 + Retry-After; every request is answered once; signed calls are served', async () => {
    const maxQueued = 5;
    t = await createTestApp({ transport: 'node', app: { maxQueuedSessionRequests: maxQueued } });
    const app = t;
    const created = await app.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: app.approved.merchantId, amount: 150000, currency: 'IDR' }) });
    expect(created.status).toBe(201);
    const secret = ((await created.json()) as { clientSecret: string }).clientSecret;
    // GET: a request without a body, so a shed answer keeps the connection (one whose body was not read yet
    // closes it after the answer, node-transport.ts `closeIfUnread`, and the pipelined rest would go unanswered).
    const request = `GET /graphql?query=${encodeURIComponent('{ paymentChannels { code status } }')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\nAccept: application/json\r\n\r\n`;
    const count = 30;

    // Signed calls of the merchant's server alongside: never queued, never shed.
    const [answers, ...signed] = await Promise.all([pipelined(app.port!, request, count), ...Array.from({ length: 5 }, () => app.signedFetch('/v1/payments/channel'))]);
    for (const res of signed) expect(res.status).toBe(200);

    expect(answers).toHaveLength(count);
    const served = answers.filter((a) => a.status === 200);
    const shed = answers.filter((a) => a.status === 503);
    // The first starts at once, `maxQueued` wait their turn; the others are shed (or, if the client's writes
    // were split across polls, also served: never fewer served than that).
    expect(served.length).toBeGreaterThanOrEqual(1 + maxQueued);
    expect(served.length + shed.length).toBe(count);
    expect(shed.length).toBeGreaterThan(0);
    for (const a of served) expect((JSON.parse(a.body) as { data: { paymentChannels: unknown[] } }).data.paymentChannels.length).toBeGreaterThan(0);
    for (const a of shed) {
      expect(a.headers['retry-after']).toBe('1');
      expect(a.headers['content-type']).toBe('application/problem+json');
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(a.body)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: 1 });
    }
    const metric = await app.app.metricsRegistry.getSingleMetricAsString('gateway_session_requests_shed_total');
    expect(metric).toMatch(new RegExp(`gateway_session_requests_shed_total ${shed.length}\\b`));

    // Once the queue drained, the same session is served again.
    const again = await pipelined(app.port!, request, 1);
    expect(again[0]!.status).toBe(200);
  });

  it('a session request\'s client secret is verified once: authentication takes the claims its fair lane verified', async () => {
    t = await createTestApp({ transport: 'node' });
    const app = t;
    const created = await app.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: app.approved.merchantId, amount: 150000, currency: 'IDR' }) });
    const secret = ((await created.json()) as { clientSecret: string }).clientSecret;
    const sessions = app.app.services.sessions;
    const verify = vi.spyOn(sessions, 'authenticClaims');
    const res = await fetch(`http://127.0.0.1:${app.port!}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{"query":"{ paymentChannels { code } }"}' });
    expect(res.status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(1);
    // A forged secret is judged once too, and refused.
    const forged = await fetch(`http://127.0.0.1:${app.port!}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${secret.slice(0, -2)}${secret.at(-2) === 'x' ? 'y' : 'x'}${secret.at(-1)}`, 'content-type': 'application/json' }, body: '{"query":"{ paymentChannels { code } }"}' });
    expect(forged.status).toBe(401);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('a failure in choosing a lane is logged and the request still goes through the pipeline (the process stays up)', async () => {
    t = await createTestApp({ transport: 'in-process' });
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const listener = createNodeListener({
      yoga: t.app.yoga,
      logger,
      fairness: {
        lanes: new FairLanes(),
        laneOf: () => {
          throw new Error('lane bug');
        },
      },
    });
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { authorization: 'Bearer cs_0_secret_x', 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
      expect(res.status).toBe(401);
      expect(lines.some((l) => l.includes('choosing the fair lane of a request failed') && l.includes('lane bug'))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
