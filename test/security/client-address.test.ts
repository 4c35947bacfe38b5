/**
 * Contract §6 "Client addresses behind the balancer", directly against a real server
 * (`npm start`), with connections bound to 127.0.0.5 and 127.0.0.6 (`localAddress`):
 *
 * - without TRUSTED_PROXIES, or from a peer it does not name, a forged `X-Forwarded-For` changes nothing:
 *   neither the address in the request log (its lines and the summaries of repeated refusals) nor the address
 *   budget a bad signature spends;
 * - from a peer it names, the last untrusted hop of `X-Forwarded-For` is the client.
 *
 * Through the real HAProxy (`option forwardfor`): test/e2e/cluster-local.test.ts. Parsing: test/unit/client-address.test.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { makeTempDir } from '../helpers/app.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  server = undefined;
});

/** One signed GET /v1/payments/channel from `localAddress`, with a wrong secret unless `good`; resolves with the status. */
function send(from: string, headers: Record<string, string> = {}, good = false): Promise<number> {
  const merchant = server!.credentials().find((m) => m.kyc === 'approved')!;
  const signed = signatureHeaders(merchant.apiKey, good ? merchant.apiSecret : 'sk_test_wrong_secret', { method: 'GET', target: '/v1/payments/channel', body: '' });
  const url = new URL('/v1/payments/channel', server!.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { localAddress: from, headers: { ...signed, ...headers, connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The requests the log accounts for, by client address: a request line counts one, and a `refusals repeated`
 * line (repeated refusals of one kind from one address are summarised, src/pipeline/refusal-log.ts) its `count`.
 * Both kinds name the client address.
 */
function accounted(): Map<string, number> {
  const byAddress = new Map<string, number>();
  for (const l of server!.output().split('\n')) {
    if (!l.startsWith('{')) continue;
    const line = JSON.parse(l) as { msg?: string; clientAddress?: string; count?: number };
    const n = line.msg === 'request' ? 1 : line.msg === 'refusals repeated' ? (line.count ?? 0) : 0;
    if (n > 0) byAddress.set(line.clientAddress ?? '-', (byAddress.get(line.clientAddress ?? '-') ?? 0) + n);
  }
  return byAddress;
}

/** Waits (summaries are written at most once a second) until the log accounts for `n` requests. */
async function waitForAccounted(n: number): Promise<Map<string, number>> {
  const total = () => [...accounted().values()].reduce((a, b) => a + b, 0);
  for (let i = 0; i < 150 && total() < n; i++) await new Promise((r) => setTimeout(r, 20));
  return accounted();
}

describe.each([
  ['TRUSTED_PROXIES unset', {}],
  ['TRUSTED_PROXIES naming another address', { TRUSTED_PROXIES: '10.9.9.9, 192.168.0.0/16' }],
])('%s: a forged X-Forwarded-For changes nothing', (_name, env) => {
  it('the log names the socket address, and 20 failures with 20 different forged addresses spend that one budget', async () => {
    server = await startServer(makeTempDir('pgw-client-address-'), { ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', AUTH_FAILURES_PER_MINUTE: '20' });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push(await send('127.0.0.5', { 'x-forwarded-for': `203.0.113.${i + 1}` }));
    expect(statuses).toEqual([...Array<number>(20).fill(401), 429]);
    expect(await waitForAccounted(21)).toEqual(new Map([['127.0.0.5', 21]]));
    // Another address has its own budget; a forged header naming the spent address changes nothing either.
    expect(await send('127.0.0.6', { 'x-forwarded-for': '127.0.0.5' })).toBe(401);
    // A verified request from the spent address is served (contract §6 "Address budget").
    expect(await send('127.0.0.5', { 'x-forwarded-for': '203.0.113.200' }, true)).toBe(200);
  }, 60_000);
});

describe('TRUSTED_PROXIES naming the peer', () => {
  it('the last untrusted hop of its X-Forwarded-For is the client; the same header from another peer is ignored', async () => {
    server = await startServer(makeTempDir('pgw-client-address-'), { TRUSTED_PROXIES: '127.0.0.5', LOG_LEVEL: 'info', LOG_FORMAT: 'json', AUTH_FAILURES_PER_MINUTE: '3' });
    // From the trusted "balancer" 127.0.0.5: each forwarded client has its own budget.
    const a: number[] = [];
    for (let i = 0; i < 4; i++) a.push(await send('127.0.0.5', { 'x-forwarded-for': '9.9.9.9, 198.51.100.7' }));
    expect(a).toEqual([401, 401, 401, 429]);
    expect(await send('127.0.0.5', { 'x-forwarded-for': '198.51.100.8' })).toBe(401);
    // Without the header, the balancer's own address.
    expect(await send('127.0.0.5')).toBe(401);
    // From 127.0.0.6 (not trusted) the header naming a fresh address is ignored: its own budget, by its socket.
    const b: number[] = [];
    for (let i = 0; i < 4; i++) b.push(await send('127.0.0.6', { 'x-forwarded-for': `198.51.100.${50 + i}` }));
    expect(b).toEqual([401, 401, 401, 429]);
    expect(await waitForAccounted(10)).toEqual(
      new Map([
        ['198.51.100.7', 4],
        ['198.51.100.8', 1],
        ['127.0.0.5', 1],
        ['127.0.0.6', 4],
      ]),
    );
  }, 60_000);
});
