/**
 * `npm run trace:show` (scripts/trace-show.ts): the waterfall docs/OPERATIONS.md shows is the script's output
 * over the capture kept beside it, and the script nests spans under their parents on one time scale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parseCapture, waterfall } from '../../scripts/trace-show.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

it('docs/OPERATIONS.md shows exactly the waterfall of docs/traces/checkout-through-haproxy.jsonl', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/OPERATIONS.md'), 'utf8');
  const shown = waterfall(parseCapture(fs.readFileSync(path.join(ROOT, 'docs/traces/checkout-through-haproxy.jsonl'), 'utf8')));
  expect(shown.length).toBeGreaterThan(5);
  expect(doc).toContain(`\`\`\`\n${shown.join('\n').trimEnd()}\n\`\`\``);
});

it('nests a child under its parent, offsets it from the trace start and scales its bar', () => {
  const span = (spanId: string, parentSpanId: string, name: string, startMs: number, endMs: number) => ({
    traceId: 'a'.repeat(32),
    spanId,
    parentSpanId,
    name,
    kind: parentSpanId ? 1 : 2,
    startTimeUnixNano: String(BigInt(startMs) * 1_000_000n),
    endTimeUnixNano: String(BigInt(endMs) * 1_000_000n),
  });
  const lines = waterfall([{ resourceSpans: [{ scopeSpans: [{ spans: [span('c'.repeat(16), 'b'.repeat(16), 'graphql.execute', 1010, 1030), span('b'.repeat(16), '', 'POST /graphql', 1000, 1040)] }] }] }]);
  expect(lines[0]).toBe(`trace ${'a'.repeat(32)} (40.00 ms)`);
  expect(lines[2]).toMatch(/^POST \/graphql \[server\] +0\.00 +40\.00 +\|█{40}\|$/);
  expect(lines[3]).toMatch(/^ {2}graphql\.execute \[internal\] +10\.00 +20\.00 +\| {10}█{20} {10}\|$/);
});
