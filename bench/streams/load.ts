/**
 * A load-generating child of `npm run bench:streams` (bench/streams.ts): holds its share of the open checkout
 * pages, each a plain node:http SSE request, and reports times on the machine's wall clock (epoch ms with
 * sub-ms precision, so the parent can compare them with its commit time and other children's).
 *
 * Separate processes because a process may hold at most 20,000 descriptors here, and so that the pages' CPU is
 * not the server's. Protocol (IPC): parent → `open` {port, requests}; child → `opened` {first, failures, cpuMs};
 * parent → `arm` (the next event of every page is the change); child → `arrived` {times, bytes, missing};
 * parent → `close`.
 */
import http from 'node:http';

interface OpenMessage {
  type: 'open';
  port: number;
  path: string;
  requests: { headers: Record<string, string>; body: string }[];
  concurrency: number;
}
type Message = OpenMessage | { type: 'arm'; timeoutMs: number } | { type: 'close' };

const now = (): number => performance.timeOrigin + performance.now();
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

interface Page {
  req: http.ClientRequest;
  res?: http.IncomingMessage;
  events: number;
  armedAt: number;
  arrived?: number;
  bytes: number;
}
const pages: Page[] = [];
let armed = false;
let onArrival: (() => void) | undefined;

function open(port: number, path: string, r: { headers: Record<string, string>; body: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const page: Page = { req: undefined as never, events: 0, armedAt: 0, bytes: 0 };
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { ...r.headers, 'content-length': Buffer.byteLength(r.body) } }, (res) => {
      page.res = res;
      if (res.statusCode !== 200) {
        reject(new Error(`status ${res.statusCode}`));
        res.resume();
        return;
      }
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        // Count whole `event: next` frames; a frame may span chunks.
        const text = tail + chunk;
        let from = 0;
        for (let cut = text.indexOf('\n\n', from); cut >= 0; cut = text.indexOf('\n\n', from)) {
          const frame = text.slice(from, cut);
          from = cut + 2;
          if (!frame.startsWith('event: next')) continue;
          page.events += 1;
          const at = now();
          if (page.events === 1) resolve(at);
          else if (armed && page.arrived === undefined) {
            page.arrived = at;
            page.bytes = frame.length;
            onArrival?.();
          }
        }
        tail = text.slice(from);
      });
      res.on('error', () => undefined);
    });
    page.req = req;
    req.on('error', reject);
    req.end(r.body);
    pages.push(page);
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
    const live = pages.filter((p) => p.res?.statusCode === 200);
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
    for (const p of pages) p.req.destroy();
    process.exit(0);
  }
});
process.send!({ type: 'ready' });
