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
import { TurnBatchedDestination } from '../../src/shared/logger.js';

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
