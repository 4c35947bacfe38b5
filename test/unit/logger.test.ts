/**
 * The production log destination (src/shared/logger.ts: lines of one event-loop turn written together at the end of
 * that turn): none is lost when the process ends on its own, however it ends, and none waits for later traffic.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import pino, { type DestinationStream } from 'pino';
import { createLogger, TurnBatchedDestination, writeInfoLine, type LineFields } from '../../src/shared/logger.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('turn-batched log destination', () => {
  it.each(['process.exit(0)', 'process.exitCode = 3', 'throw new Error("boom")'])('every line reaches stdout when the process ends with %s', async (ending) => {
    const script = `
      import { createLogger } from './src/shared/logger.ts';
      const logger = createLogger({ logLevel: 'info', logFormat: 'json' });
      for (let i = 0; i < 500; i++) logger.info({ n: i }, 'request');
      ${ending};`;
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    const { stdout } = await run.catch((err: { stdout: string }) => err);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { n: number });
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('writes the lines of a turn together at the end of that turn, in order, without waiting for more', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-log-'));
    const file = path.join(dir, 'out.log');
    const fd = fs.openSync(file, 'w');
    try {
      const dest = new TurnBatchedDestination(fd);
      dest.write('a\n');
      dest.write('b\n');
      // Nothing is written during the turn that logged (one write per turn, not one per line)...
      expect(fs.readFileSync(file, 'utf8')).toBe('');
      // ...and everything is written when the turn ends: no timer, no size threshold.
      await new Promise((r) => setImmediate(r));
      expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\n');
      dest.write('c\n');
      // logger.flush(cb) writes what is pending before calling back.
      await new Promise<void>((resolve) => dest.flush(() => resolve()));
      expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\nc\n');
      await new Promise((r) => setImmediate(r));
      expect(fs.readFileSync(file, 'utf8')).toBe('a\nb\nc\n');
    } finally {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('writeInfoLine (the request line, serialised by JSON.stringify)', () => {
  /** Lines written to a destination, as written. */
  const capture = () => {
    const lines: string[] = [];
    const dest: DestinationStream = { write: (line: string) => void lines.push(line) };
    return { lines, dest };
  };
  const withoutTime = (line: string) => {
    const { time, ...rest } = JSON.parse(line) as { time: number };
    expect(Number.isInteger(time)).toBe(true);
    return rest;
  };

  const cases: [string, LineFields][] = [
    ['a request line', { requestId: 'c0ffee', method: 'GET', route: '/v1/payments/channel', clientAddress: '203.0.113.7', status: 200, durationMs: 1.25, merchantId: 'M1', sessionId: undefined, errorCode: undefined, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' }],
    ['quotes, backslashes, control characters and non-ASCII in values', { route: '/v1/"a"\\b\u0001\n\u2028é漢😀', status: 404, ok: false }],
    ['no fields', {}],
    ['only undefined fields', { a: undefined }],
  ];
  it.each(cases)('writes the line pino writes for %s (same keys, same order, same values)', (_name, fields) => {
    const ours = capture();
    const theirs = capture();
    writeInfoLine(createLogger({ logLevel: 'info', logFormat: 'json' }, ours.dest), fields, 'request');
    createLogger({ logLevel: 'info', logFormat: 'json' }, theirs.dest).info(fields, 'request');
    expect(ours.lines).toHaveLength(1);
    expect(ours.lines[0]!.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(ours.lines[0]!) as object)).toEqual(Object.keys(JSON.parse(theirs.lines[0]!) as object));
    expect(withoutTime(ours.lines[0]!)).toEqual(withoutTime(theirs.lines[0]!));
  });

  it('writes serialised members after the fields, where pino writes those fields', () => {
    const ours = capture();
    const theirs = capture();
    const ids = { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' };
    writeInfoLine(createLogger({ logLevel: 'info', logFormat: 'json' }, ours.dest), { status: 200, merchantId: undefined }, 'request', `,"trace_id":"${ids.trace_id}","span_id":"${ids.span_id}"`);
    createLogger({ logLevel: 'info', logFormat: 'json' }, theirs.dest).info({ status: 200, merchantId: undefined, ...ids }, 'request');
    expect(Object.keys(JSON.parse(ours.lines[0]!) as object)).toEqual(Object.keys(JSON.parse(theirs.lines[0]!) as object));
    expect(withoutTime(ours.lines[0]!)).toEqual(withoutTime(theirs.lines[0]!));
  });

  it("carries a child logger's bindings, as pino does", () => {
    const ours = capture();
    const theirs = capture();
    writeInfoLine(createLogger({ logLevel: 'info', logFormat: 'json' }, ours.dest).child({ worker: 3, role: 'replica' }), { status: 200 }, 'request');
    createLogger({ logLevel: 'info', logFormat: 'json' }, theirs.dest).child({ worker: 3, role: 'replica' }).info({ status: 200 }, 'request');
    expect(Object.keys(JSON.parse(ours.lines[0]!) as object)).toEqual(['level', 'time', 'service', 'worker', 'role', 'status', 'msg']);
    expect(withoutTime(ours.lines[0]!)).toEqual(withoutTime(theirs.lines[0]!));
  });

  it('escapes a lone surrogate (pino on Node 24 writes it raw: invalid UTF-8)', () => {
    const ours = capture();
    writeInfoLine(createLogger({ logLevel: 'info', logFormat: 'json' }, ours.dest), { route: '/\ud800' }, 'request');
    expect(ours.lines[0]).toContain('"route":"/\\ud800"');
    expect(Buffer.from(ours.lines[0]!, 'utf8').toString('utf8')).toBe(ours.lines[0]);
  });

  it('writes nothing when info is not enabled', () => {
    const ours = capture();
    writeInfoLine(createLogger({ logLevel: 'warn', logFormat: 'json' }, ours.dest), { status: 200 }, 'request');
    writeInfoLine(pino({ level: 'silent' }, ours.dest), { status: 200 }, 'request');
    expect(ours.lines).toEqual([]);
  });
});
