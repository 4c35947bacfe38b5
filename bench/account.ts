/**
 * Per-request CPU account of a V8 `.cpuprofile`: every sample is charged to the innermost
 * frame of its stack that belongs to a known cost centre (a source file of the project, a package, a Node
 * subsystem), so the table adds up to the whole process and each row answers "what does this part cost per
 * request". Frames without a home of their own (native builtins such as `writev`, `JSON.parse`, `Hmac`) are
 * charged to their caller's centre. Samples of start-up and shutdown (module loading) are left out.
 */
import fs from 'node:fs';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
/** The parts of a `.cpuprofile` the account reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Source-file ranges of an esbuild bundle (`// src/x.ts` markers at every module start). */
function bundleMap(bundleFile: string): { line: number; file: string }[] {
  const lines = fs.readFileSync(bundleFile, 'utf8').split('\n');
  const out: { line: number; file: string }[] = [];
  lines.forEach((text, i) => {
    const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text);
    if (m) out.push({ line: i, file: m[1]! });
  });
  return out;
}

/** Cost centres by source file of the project (first match wins). */
const PROJECT_CENTRES: [RegExp, string][] = [
  [/src\/http\/node-(transport|request)\.ts/, 'Node transport: request view, response write'],
  [/src\/plugins\/use-answer-cache\.ts/, 'answer cache: key, lookup, keep'],
  [/src\/plugins\/use-signature-auth\.ts|src\/auth\//, 'SVC1 signature (headers, SHA-256 of body, HMAC)'],
  [/src\/plugins\/use-metrics\.ts/, 'metrics (labels, counter, histogram)'],
  [/src\/plugins\/use-request-context\.ts|src\/logger\.ts/, 'request log line (pino)'],
  [/src\/plugins\/use-http-caching\.ts/, 'ETag / conditional requests'],
  [/src\/plugins\/use-rate-limit\.ts|src\/http\/rate-limit\.ts/, 'rate limits'],
  [/src\/plugins\/use-database-health\.ts|src\/db\//, 'database health, catalogue, version token'],
  [/src\/http\/request-state\.ts/, 'request state (request id)'],
  [/src\/cache\//, 'caches (versioned LRU)'],
  [/src\/plugins\/use-rest-adapter\.ts|src\/rest\//, 'REST adapter (body checks, wire format)'],
  [/src\/services\/|src\/domain\/|src\/resolvers\/|src\/repositories\//, 'resolvers, fee service, decimal arithmetic'],
  [/src\/plugins\/use-abuse-limits\.ts|src\/plugins\/use-standard-variable-coercion\.ts/, 'GraphQL engine (yoga, envelop, graphql-js, jit)'],
];

/** Cost centres by URL (packages and Node subsystems). */
const URL_CENTRES: [RegExp, string][] = [
  [/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped)\//, 'request log line (pino)'],
  [/node_modules\/prom-client\//, 'metrics (labels, counter, histogram)'],
  [/node_modules\/rate-limiter-flexible\//, 'rate limits'],
  [/node_modules\/big\.js\//, 'resolvers, fee service, decimal arithmetic'],
  [/node_modules\/zod\//, 'REST adapter (body checks, wire format)'],
  [/node_modules\/(graphql|graphql-jit|@envelop|graphql-yoga|@graphql-yoga|@whatwg-node|lru-cache|@escape\.tech|fast-json-stringify|generate-function|lodash\.)/, 'GraphQL engine (yoga, envelop, graphql-js, jit)'],
  [/node:internal\/crypto\/random/, 'request state (request id)'],
  [/node:internal\/crypto\//, 'SVC1 signature (headers, SHA-256 of body, HMAC)'],
  [/node:_http_outgoing|node:net|node:internal\/stream_base_commons|node:internal\/streams|node:stream/, 'socket write and response framing (node:http)'],
  [/node:_http_server|node:_http_incoming|node:_http_common|node:events/, 'request parsing and dispatch (node:http)'],
  [/node:internal\/process\/task_queues|node:internal\/timers|node:timers/, 'promise / tick scheduling'],
];

/** Module loading: samples under these frames are start-up, not requests. */
const STARTUP = /node:internal\/modules|node:internal\/main\/|node:internal\/bootstrap/;

/** The account: µs per request by cost centre, largest first. */
export function account(profile: CpuProfile, requests: number, bundleFile: string): { centre: string; usPerRequest: number; share: number }[] {
  const map = bundleMap(bundleFile);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const centreOfFrame = (f: Frame): string | null => {
    if (f.functionName === '(garbage collector)') return 'garbage collection';
    if (f.functionName === '(idle)') return '(idle)';
    if (f.functionName === '(program)') return 'V8 / native, unattributed';
    if (f.functionName === 'runMicrotasks') return 'promise / tick scheduling';
    if (f.url.endsWith('dist/main.mjs')) {
      let file = 'src/?';
      for (const r of map) if (r.line <= f.lineNumber) file = r.file;
      for (const [re, c] of PROJECT_CENTRES) if (re.test(file)) return c;
      return `other project code (${file})`;
    }
    for (const [re, c] of URL_CENTRES) if (re.test(f.url)) return c;
    return f.url === '' || f.url.startsWith('node:') ? null : `other (${f.url.replace(/^.*node_modules\//, '')})`;
  };
  const startupMemo = new Map<number, boolean>();
  const isStartup = (id: number): boolean => {
    let known = startupMemo.get(id);
    if (known === undefined) {
      const p = parent.get(id);
      known = STARTUP.test(byId.get(id)!.callFrame.url) || (p !== undefined && isStartup(p));
      startupMemo.set(id, known);
    }
    return known;
  };
  const memo = new Map<number, string>();
  const centreOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    // Generic helpers (fs, url, buffer, primordials, ...) are charged to whoever called them: `node:fs` under
    // the log line is the log line's write, under the database check it is the check's `stat`.
    const own = isStartup(id) ? '(start-up)' : centreOfFrame(byId.get(id)!.callFrame);
    const p = parent.get(id);
    const c = own ?? (p === undefined ? 'V8 / native, unattributed' : centreOf(p));
    memo.set(id, c);
    return c;
  };
  const us = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const c = centreOf(id);
    us.set(c, (us.get(c) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  us.delete('(idle)');
  us.delete('(start-up)');
  const total = [...us.values()].reduce((a, b) => a + b, 0);
  return [...us.entries()].map(([centre, t]) => ({ centre, usPerRequest: t / requests, share: t / total })).sort((a, b) => b.usPerRequest - a.usPerRequest);
}
