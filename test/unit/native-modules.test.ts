/**
 * better-sqlite3 in the project's Node: statements collected by the garbage collector after their database
 * closed, and at exit, must not abort the process. better-sqlite3 12 (node::ObjectWrap) built against Node
 * ≥ 24.19's headers fails exactly there (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook,
 * SIGABRT) on any idle GC; 13 is built on node-addon-api (docs/DEPENDENCIES.md).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

it('statements finalised by the GC, after close and at exit, leave the process running and exiting 0', () => {
  const script = `
    const Database = require('better-sqlite3');
    for (let round = 0; round < 3; round++) {
      const db = new Database(':memory:');
      for (let i = 0; i < 20000; i++) db.prepare('select ' + (i % 97) + ' as x').get();
      db.close();
      gc();
    }
    const left = new Database(':memory:');
    left.prepare('select 1').get();
    setTimeout(() => { gc(); console.log('alive'); }, 50);
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).not.toContain('Assertion failed');
  expect(r.signal).toBeNull();
  expect(r.status).toBe(0);
  expect(r.stdout.trim()).toBe('alive');
});
