/**
 * A flood of refusals writes a summary, not a line per request (src/pipeline/refusal-log.ts), through the
 * whole pipeline: 1,000 requests with a garbage checkout-session Bearer secret from one address write at
 * most 100 log lines, and `/metrics` still counts every one of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const lines: string[] = [];
const fromHeader = (request: Request) => request.headers.get('x-test-client') ?? undefined;

beforeAll(async () => {
  t = await createTestApp({ logLines: lines, app: { clientAddress: fromHeader } });
});
afterAll(async () => {
  await t?.close();
});

async function refusedCount(): Promise<number> {
  const text = await (await t.fetch('/metrics')).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('http_requests_total{') && l.includes('route="/graphql"') && /status="4\d\d"/.test(l))
    .reduce((n, l) => n + Number(l.split(' ')[1]), 0);
}

const garbage = (address: string, i: number) =>
  t.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer cs_garbage_${i}`, 'x-test-client': address },
    body: '{"query":"{ paymentChannels { code } }"}',
  });

describe('a flood of refusals', () => {
  it('1,000 garbage Bearer requests write at most 100 lines, and every one is counted in /metrics', async () => {
    const counted = await refusedCount();
    const before = lines.length;
    for (let i = 0; i < 1000; i += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, j) => garbage('203.0.113.7', i + j)));
      for (const a of answers) expect(a.status).toBeGreaterThanOrEqual(400);
    }
    const written = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    const own = written.filter((l) => l.clientAddress === '203.0.113.7');
    expect(written.length).toBeLessThanOrEqual(100);
    // The first refusal has its full request line.
    expect(own[0]).toMatchObject({ msg: 'request', status: 401, route: '/graphql' });
    expect(await refusedCount()).toBe(counted + 1000);
  });

  it('another address still gets its own first line', async () => {
    const before = lines.length;
    expect((await garbage('198.51.100.9', 1)).status).toBe(401);
    expect(lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([expect.objectContaining({ msg: 'request', clientAddress: '198.51.100.9', status: 401 })]);
  });
});
