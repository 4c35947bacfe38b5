/**
 * `npm run trace:show FILE [TRACE_ID]`: a trace as a waterfall in the terminal, from an OTLP JSON capture,
 * for an operator without a tracing backend. FILE holds OTLP/JSON export requests (`{"resourceSpans": …}`),
 * one document or one per line (what an OpenTelemetry Collector's file exporter writes, or the capture of
 * test/e2e/cluster-local-tracing.test.ts). Without TRACE_ID every trace in the file is shown, oldest first.
 *
 * Each line: the span (indented under its parent, with its kind and replica), its start after the trace's
 * first span and its duration in milliseconds, and a bar on a common time scale.
 */
import fs from 'node:fs';

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

interface Row {
  span: OtlpSpan;
  instance: string;
  start: bigint;
  end: bigint;
}

const KINDS = ['', 'internal', 'server', 'client', 'producer', 'consumer'];
const BAR_WIDTH = 40;

function text(value: AnyValue | undefined): string {
  if (value === undefined) return '';
  return String(value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? '');
}

/** Every export request in `content`: one JSON document, or one per line. */
export function parseCapture(content: string): OtlpExport[] {
  const trimmed = content.trim();
  if (trimmed === '') return [];
  try {
    return [JSON.parse(trimmed) as OtlpExport];
  } catch {
    return trimmed
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        try {
          return JSON.parse(l) as OtlpExport;
        } catch (err) {
          throw new Error(`line ${i + 1} is not an OTLP JSON document: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      });
  }
}

/** The waterfall of every trace in `exports` (or only `traceId`), as lines of text. */
export function waterfall(exports: OtlpExport[], traceId?: string): string[] {
  const traces = new Map<string, Row[]>();
  for (const e of exports) {
    for (const rs of e.resourceSpans ?? []) {
      const attrs = new Map((rs.resource?.attributes ?? []).map((a) => [a.key, text(a.value)]));
      const instance = attrs.get('service.instance.id') ?? attrs.get('service.name') ?? '';
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          if (traceId !== undefined && span.traceId !== traceId) continue;
          const rows = traces.get(span.traceId) ?? [];
          rows.push({ span, instance, start: BigInt(span.startTimeUnixNano), end: BigInt(span.endTimeUnixNano) });
          traces.set(span.traceId, rows);
        }
      }
    }
  }
  const out: string[] = [];
  const ordered = [...traces.entries()].sort(([, a], [, b]) => (min(a) < min(b) ? -1 : 1));
  for (const [id, rows] of ordered) {
    const t0 = min(rows);
    const t1 = rows.reduce((m, r) => (r.end > m ? r.end : m), t0);
    const total = Number(t1 - t0) / 1e6 || 1;
    const ids = new Set(rows.map((r) => r.span.spanId));
    const children = new Map<string, Row[]>();
    const roots: Row[] = [];
    for (const r of rows) {
      const parent = r.span.parentSpanId ?? '';
      if (parent !== '' && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), r]);
      else roots.push(r);
    }
    const lines: [string, string, string, string][] = [];
    const visit = (r: Row, depth: number) => {
      const startMs = Number(r.start - t0) / 1e6;
      const durMs = Number(r.end - r.start) / 1e6;
      const from = Math.min(BAR_WIDTH - 1, Math.floor((startMs / total) * BAR_WIDTH));
      const width = Math.max(1, Math.round((durMs / total) * BAR_WIDTH));
      const failed = r.span.status?.code === 2 ? ' ERROR' : '';
      const label = `${'  '.repeat(depth)}${r.span.name} [${KINDS[r.span.kind ?? 0] ?? '?'}${r.instance ? `, ${r.instance}` : ''}]${failed}`;
      lines.push([label, startMs.toFixed(2), durMs.toFixed(2), `${' '.repeat(from)}${'█'.repeat(Math.min(width, BAR_WIDTH - from))}`]);
      for (const c of (children.get(r.span.spanId) ?? []).sort((a, b) => (a.start < b.start ? -1 : 1))) visit(c, depth + 1);
    };
    for (const r of roots.sort((a, b) => (a.start < b.start ? -1 : 1))) visit(r, 0);
    const firstParent = roots[0]?.span.parentSpanId;
    out.push(`trace ${id} (${total.toFixed(2)} ms${firstParent ? `, parent span ${firstParent} outside the capture: the balancer's` : ''})`);
    const w = Math.max(4, ...lines.map((l) => l[0].length));
    out.push(`${'span'.padEnd(w)}  ${'start ms'.padStart(9)}  ${'dur ms'.padStart(8)}  timeline`);
    for (const [label, start, dur, bar] of lines) out.push(`${label.padEnd(w)}  ${start.padStart(9)}  ${dur.padStart(8)}  |${bar.padEnd(BAR_WIDTH)}|`);
    out.push('');
  }
  return out;
}

function min(rows: Row[]): bigint {
  return rows.reduce((m, r) => (r.start < m ? r.start : m), rows[0]!.start);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, traceId] = process.argv.slice(2);
  if (file === undefined) {
    process.stderr.write('usage: npm run trace:show FILE [TRACE_ID]   (FILE: OTLP/JSON export requests, one document or one per line)\n');
    process.exit(2);
  }
  let lines: string[];
  try {
    lines = waterfall(parseCapture(fs.readFileSync(file, 'utf8')), traceId);
  } catch (err) {
    process.stderr.write(`trace:show: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  if (lines.length === 0) {
    process.stderr.write(`trace:show: no span${traceId ? ` of trace ${traceId}` : ''} in ${file}\n`);
    process.exit(1);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
