/**
 * The production log destination (src/logger.ts bufferedDestination): lines are batched, yet none is lost
 * when the process ends on its own, and a quiet server's line still shows within the flush interval.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { bufferedDestination, LOG_BUFFER_BYTES, LOG_FLUSH_MS } from '../../src/logger.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('buffered log destination', () => {
  it('a line written while traffic is low reaches the file within the flush interval', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-log-')), 'out.log');
    const logger = pino({ level: 'info' }, bufferedDestination(file));
    logger.info({ requestId: 'r-1' }, 'request');
    // Well under the batch size: held in the buffer, not written per line.
    expect(JSON.stringify({ requestId: 'r-1' }).length).toBeLessThan(LOG_BUFFER_BYTES);
    const deadline = Date.now() + LOG_FLUSH_MS * 20;
    while (!(fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"requestId":"r-1"'))) {
      if (Date.now() > deadline) throw new Error(`line not written within ${LOG_FLUSH_MS * 20} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  it.each(['process.exit(0)', 'process.exitCode = 3', 'throw new Error("boom")'])('every line reaches stdout when the process ends with %s', async (ending) => {
    const script = `
      import { createLogger } from './src/logger.ts';
      const logger = createLogger({ logLevel: 'info', logFormat: 'json' });
      for (let i = 0; i < 500; i++) logger.info({ n: i }, 'request');
      ${ending};`;
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    const { stdout } = await run.catch((err: { stdout: string }) => err);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { n: number });
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });
});
