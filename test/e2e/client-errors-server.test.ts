/**
 * The real server (`npm start`) logs and counts the answers Node gives outside the pipeline
 * (src/pipeline/transport/client-errors.ts, installed by src/app/server.ts). An unparsable request is answered at once, so
 * it stands for the 408s too (those are driven in test/integration/client-errors.test.ts with short
 * time-outs; the server's own are 70 s and more).
 *
 * One pass (npm test): Node's answers outside the pipeline are its subject, not the engine.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealServer, type RealServer } from '../helpers/real-server.js';

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
}, 60_000);
afterAll(() => server?.stop());

function rawExchange(bytes: string): Promise<string> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let got = '';
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('answers Node gives outside the pipeline, on the real server', () => {
  it('an unparsable request: 400, one request-log line, counted in /metrics', async () => {
    expect(await rawExchange('NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^http_requests_total\{method="OTHER",route="unmatched",status="400"\} 1$/m);
    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.msg === 'request' && l.status === 400 && l.errorCode === 'INVALID_REQUEST' && l.clientError === 'HPE_INVALID_METHOD')).toHaveLength(1);
  });
});
