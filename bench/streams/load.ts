/**
 * A load-generating child of `npm run bench:streams` (bench/streams.ts): holds its share of the open checkout
 * pages, each an SSE request on its own TCP connection, and reports times on the machine's wall clock (epoch ms
 * with sub-ms precision, so the parent can compare them with its commit time and other children's).
 *
 * Separate processes because a process may hold at most 20,000 descriptors here, and so that the pages' CPU is
 * not the server's. Protocol (IPC): parent → `open` {port, requests}; child → `opened` {first, failures, cpuMs};
 * parent → `arm` (the next event of every page is the change; once per change); child → `arrived` {times,
 * bytes, missing};
 * parent → `close`.
 *
 * Why raw sockets and not node:http's client: on this 2-core machine the load generators share the cores with
 * the server they measure, and node:http's client (a parser, an IncomingMessage, string decoding per chunk)
 * spent about 350 µs of CPU per page opened, half of what the server spent answering it (run F). A
 * page here is one pre-built request written once and a scan of the raw bytes for `event: next`, which is what
 * the benchmark needs to know: when each page's first event and its change's event arrived. The status line is
 * checked (anything but 200 is a failure); headers and chunked framing are otherwise not parsed (the marker is
 * one write of the server, never split by a chunk header; a marker split between two TCP reads is found by
 * keeping the end of the previous read).
 */
import net from 'node:net';

interface OpenMessage {
  type: 'open';
  port: number;
  path: string;
  requests: { headers: Record<string, string>; body: string }[];
  concurrency: number;
}
type Message = OpenMessage | { type: 'arm'; timeoutMs: number } | { type: 'close' };

const now = (): number => performance.timeOrigin + performance.now();
const MARKER = Buffer.from('event: next\n');
const STATUS_OK = Buffer.from('HTTP/1.1 200 ');
const FRAME_END = Buffer.from('\n\n');

interface Page {
  socket: net.Socket;
  ok: boolean;
  events: number;
  arrived?: number;
  bytes: number;
}
const pages: Page[] = [];
let armed = false;
let onArrival: (() => void) | undefined;

function requestBytes(port: number, path: string, r: { headers: Record<string, string>; body: string }): Buffer {
  const body = Buffer.from(r.body);
  let head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`;
  for (const [name, value] of Object.entries(r.headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

function open(port: number, path: string, r: { headers: Record<string, string>; body: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
    const page: Page = { socket, ok: false, events: 0, bytes: 0 };
    pages.push(page);
    let head: Buffer | undefined;
    // The end of the previous read, where a marker split across two reads begins.
    let tail: Buffer | undefined;
    socket.on('data', (chunk: Buffer) => {
      let text = chunk;
      if (!page.ok) {
        head = head ? Buffer.concat([head, chunk]) : chunk;
        if (head.length < STATUS_OK.length) return;
        if (head.compare(STATUS_OK, 0, STATUS_OK.length, 0, STATUS_OK.length) !== 0) {
          reject(new Error(`status ${head.subarray(0, 40).toString('latin1').split('\r\n')[0]}`));
          socket.destroy();
          return;
        }
        page.ok = true;
        text = head;
        head = undefined;
      } else if (tail) {
        text = Buffer.concat([tail, chunk]);
      }
      let from = 0;
      for (let at = text.indexOf(MARKER, from); at >= 0; at = text.indexOf(MARKER, from)) {
        from = at + MARKER.length;
        page.events += 1;
        const t = now();
        if (page.events === 1) resolve(t);
        else if (armed && page.arrived === undefined) {
          page.arrived = t;
          const end = text.indexOf(FRAME_END, from);
          // The frame's size when it came in one read (one page with it is enough for the report).
          page.bytes = end >= 0 ? end - at : 0;
          onArrival?.();
        }
      }
      const keep = Math.max(from, text.length - (MARKER.length - 1));
      tail = keep < text.length ? Buffer.from(text.subarray(keep)) : undefined;
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('closed before the first event')));
    socket.write(requestBytes(port, path, r));
  });
}

process.on('message', (m: Message) => {
  if (m.type === 'open') {
    void (async () => {
      const first: number[] = [];
      let failures = 0;
      let next = 0;
      // This process's own CPU for the opening: on a shared 2-core machine the clients compete with the server.
      const cpu0 = process.cpuUsage();
      const worker = async (): Promise<void> => {
        while (next < m.requests.length) {
          const r = m.requests[next++]!;
          try {
            first.push(await open(m.port, m.path, r));
          } catch {
            failures += 1;
          }
        }
      };
      await Promise.all(Array.from({ length: m.concurrency }, worker));
      const cpu = process.cpuUsage(cpu0);
      process.send!({ type: 'opened', first, failures, cpuMs: (cpu.user + cpu.system) / 1000 });
    })();
  } else if (m.type === 'arm') {
    armed = true;
    const live = pages.filter((p) => p.ok && p.events > 0);
    // Each arm times the next change: what the previous one left is forgotten.
    for (const p of live) {
      p.arrived = undefined;
      p.bytes = 0;
    }
    const done = (): void => {
      const times = live.filter((p) => p.arrived !== undefined).map((p) => p.arrived!);
      const bytes = live.find((p) => p.bytes > 0)?.bytes ?? 0;
      process.send!({ type: 'arrived', times, bytes, missing: live.length - times.length });
    };
    let left = live.length;
    const timer = setTimeout(done, m.timeoutMs);
    onArrival = () => {
      left -= 1;
      if (left === 0) {
        clearTimeout(timer);
        // Let the parent read the server's CPU before anything else happens.
        done();
      }
    };
    if (left === 0) {
      clearTimeout(timer);
      done();
    }
  } else {
    for (const p of pages) p.socket.destroy();
    process.exit(0);
  }
});
process.send!({ type: 'ready' });
