/**
 * An OTLP/HTTP trace receiver inside the test (there is no collector package to run): a node:http server on
 * loopback that accepts `POST /v1/traces`, keeps every body's raw bytes (what a secret scan reads) and decodes
 * http/json bodies into spans. Protobuf bodies are kept as bytes only (strings are their UTF-8 bytes in
 * protobuf, so a scan of the raw bytes sees them). `failWith` makes it answer every export with that status
 * (a collector in trouble).
 */
import { createServer, type Server } from 'node:http';

/** One span as OTLP/JSON has it, flattened with its resource's service name. */
export interface ReceivedSpan {
  service: string;
  /** The resource's attributes (service.instance.id tells replicas apart). */
  resource: Record<string, string | number | boolean>;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number };
}

export interface OtlpReceiver {
  url: string;
  /** Every export body received, raw, with its content type. */
  bodies: { contentType: string; bytes: Buffer }[];
  /** The spans of every http/json export so far. */
  spans(): ReceivedSpan[];
  /** Resolves once `predicate` holds of the spans (polls; rejects after `timeoutMs`). */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  failWith: number | null;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? '';
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

interface JsonExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: { key: string; value: AnyValue }[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

export function decodeJsonExport(text: string): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (JSON.parse(text) as JsonExport).resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    const service = String(resource['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          service,
          resource,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          status: s.status ?? {},
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: OtlpReceiver['bodies'] = [];
  let decoded: ReceivedSpan[] = [];
  const receiver: OtlpReceiver = {
    url: '',
    bodies,
    failWith: null,
    spans: () => decoded,
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(decoded)) {
        if (Date.now() > deadline) throw new Error(`spans not received within ${timeoutMs} ms; got: ${decoded.map((s) => s.name).join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return decoded;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (receiver.failWith !== null) {
        res.writeHead(receiver.failWith).end();
        return;
      }
      const bytes = Buffer.concat(chunks);
      const contentType = req.headers['content-type'] ?? '';
      bodies.push({ contentType, bytes });
      if (contentType.startsWith('application/json')) decoded = decoded.concat(decodeJsonExport(bytes.toString('utf8')));
      res.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
      res.end(contentType.startsWith('application/json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // Keep-alive sockets from the exporter would hold close() open.
  const close = receiver.close;
  receiver.close = () => {
    server.closeAllConnections();
    return close();
  };
  return receiver;
}
