/**
 * The production log destination (src/logger.ts: asynchronous stdout, lines gathered while a write is in
 * flight): none is lost when the process ends on its own, however it ends.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('asynchronous log destination', () => {
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
