/**
 * The floor of `npm run bench:streams`: plain node:http holding Server-Sent Events streams and writing ONE
 * pre-serialised event (FLOOR_EVENT_BYTES long, the size of the project's event) to every open stream on
 * `POST /change`: what delivering a change costs with no GraphQL, no authentication and no per-stream work.
 * Every other request opens a stream and gets that event at once (as the project sends the current list).
 */
import http from 'node:http';
import { announce } from './common.js';

const size = Number(process.env.FLOOR_EVENT_BYTES ?? 3000);
const data = JSON.stringify({ data: { paymentChannelsChanged: 'x'.repeat(Math.max(0, size - 60)) } });
const event = Buffer.from(`event: next\ndata: ${data}\n\n`);
const open = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/change') {
    req.resume();
    for (const r of open) r.write(event);
    res.writeHead(204).end();
    return;
  }
  req.resume();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(': heartbeat\n\n');
  res.write(event);
  open.add(res);
  res.on('close', () => open.delete(res));
});
server.keepAliveTimeout = 0;
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
