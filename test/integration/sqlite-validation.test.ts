/**
 * A SQLite file found replaced, restored or repaired is validated in a worker thread before the monitored
 * connection switches to it (src/storage/sqlite/database.ts): the main thread keeps turning meanwhile, and
 * - a file that fails the checks is refused: the handle is down, the old connection kept, a repaired file taken;
 * - a worker that gives no answer in time, crashes or exits is stopped: not validated, logged, tried again later;
 * - a file replaced again while it was validated is not opened: the next check validates what is there now;
 * - closing the handle stops a validation under way.
 * Stand-in workers (`validationWorker`, as data: URLs) make the worker's faults and timing deterministic.
 *
 * One pass (npm test): faults of the SQLite file itself, whatever TEST_DB says.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openMonitoredSqlite, type MonitoredSqlite } from '../../src/storage/index.js';
import { makeTempDir } from '../helpers/app.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A worker module from its source (builtins only: a data: URL resolves no packages). */
const standIn = (source: string) => new URL(`data:text/javascript,${encodeURIComponent(source)}`);

interface Opened {
  handle: MonitoredSqlite;
  file: string;
  dir: string;
  logs: { level: number; msg: string; cause?: string }[];
}

/** A migrated database with one merchant, named `name`, behind a monitored connection. */
function open(name: string, options: Parameters<typeof openMonitoredSqlite>[1] = {}): Opened {
  const dir = makeTempDir('pgw-validation-');
  const file = path.join(dir, 'gateway.db');
  const logs: Opened['logs'] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Opened['logs'][number]) });
  const handle = openMonitoredSqlite(file, { retryIntervalMs: 0, logger, ...options });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => handle.close());
  handle.sqlite.prepare(`insert into merchants (id, name, kyc_status) values ('m-1', ?, 'approved')`).run(name);
  handle.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  // As the store's: the file still holds what was loaded (here: the one merchant) → its own checkpoint, no validation.
  handle.setContinuity((fresh) => fresh.prepare(`select name from merchants where id = 'm-1'`).pluck().get() === name);
  return { handle, file, dir, logs };
}

/** A backup of the handle's database at `to`, its merchant renamed `name` (a backup taken and edited elsewhere). */
function backupNamed(handle: MonitoredSqlite, to: string, name: string): void {
  handle.sqlite.prepare('vacuum into ?').run(to);
  const copy = new Database(to);
  try {
    copy.prepare(`update merchants set name = ? where id = 'm-1'`).run(name);
  } finally {
    copy.close();
  }
}

/** Put `from` at `file` as a restore does: the old file unlinked, a new inode in its place. */
function restore(from: string, file: string): void {
  fs.unlinkSync(file);
  fs.copyFileSync(from, file);
}

/**
 * {@link open}, then a backup (its merchant renamed `restored`) restored over the file and noticed: the
 * validation has started. Returns the handle's counters from before the restore.
 */
async function restoredWhileOpen(options: Parameters<typeof openMonitoredSqlite>[1]): Promise<Opened & { generation: number; replacements: number }> {
  const opened = open('original', options);
  const { handle, file, dir } = opened;
  backupNamed(handle, path.join(dir, 'backup.db'), 'restored');
  expect(handle.check().ok).toBe(true);
  const { generation, replacements } = handle;
  restore(path.join(dir, 'backup.db'), file);
  await turn();
  expect(handle.check().ok).toBe(false);
  expect(handle.validating).toBe(true);
  return { ...opened, generation, replacements };
}

const nameIn = (handle: MonitoredSqlite) => handle.sqlite.prepare(`select name from merchants where id = 'm-1'`).pluck().get();

describe('a replaced SQLite file is validated in a worker before use', () => {
  it('a file that fails the checks is refused, the old connection kept; once repaired it is taken', async () => {
    const { handle, file } = open('original');
    expect(handle.check().ok).toBe(true);
    const { generation, replacements } = handle;
    const connection = handle.sqlite;
    // Every byte overwritten in place: same inode, same size, nothing SQLite can read.
    const original = fs.readFileSync(file);
    const fd = fs.openSync(file, 'r+');
    cleanups.push(() => fs.closeSync(fd));
    fs.writeSync(fd, randomBytes(original.length), 0, original.length, 0);
    await turn();

    expect(handle.check()).toMatchObject({ ok: false, reason: expect.stringMatching(/validating/) });
    expect(handle.probe().ok).toBe(false);
    expect(await handle.validation()).toBe(false);
    expect(handle.validating).toBe(false);
    expect(handle.check()).toMatchObject({ ok: false, reason: expect.stringMatching(/failed validation/) });
    // Refused: the connection the handle had is still the one it has, open; nothing moved.
    expect(handle.sqlite).toBe(connection);
    expect(connection.open).toBe(true);
    expect(handle.generation).toBe(generation);
    expect(handle.replacements).toBe(replacements);

    fs.writeSync(fd, original, 0, original.length, 0);
    await turn();
    expect(handle.check().ok).toBe(false); // validating the repaired file
    expect(await handle.validation()).toBe(true);
    expect(handle.check().ok).toBe(true);
    expect(handle.generation).toBe(generation + 1);
    expect(handle.replacements).toBe(replacements + 1);
    expect(nameIn(handle)).toBe('original');
  });

  it.each([
    // Only the worker that hangs meets the time limit; the others answer (by failing) whatever the machine's load.
    ['gives no answer', 'setInterval(() => {}, 1000);', 200, /no answer within 200 ms/],
    ['crashes', "throw new Error('boom');", 60_000, /validation worker failed: boom/],
    ['exits without an answer', 'process.exit(3);', 60_000, /exited \(code 3\) without an answer/],
  ])('a worker that %s: not validated, logged, the handle down until a later check validates again', async (_what, source, validationTimeoutMs, cause) => {
    const { handle, logs, generation, replacements } = await restoredWhileOpen({ validationWorker: standIn(source), validationTimeoutMs });
    expect(await handle.validation()).toBe(false);
    expect(handle.check()).toMatchObject({ ok: false });
    expect(handle.generation).toBe(generation);
    expect(handle.replacements).toBe(replacements);
    const errors = logs.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.msg).toMatch(/database validation did not complete/);
    expect(errors[0]!.cause).toMatch(cause);
    // Tried again (retryIntervalMs 0 here): a new validation, not a file taken without one.
    await turn();
    expect(handle.check().ok).toBe(false);
    expect(handle.validating).toBe(true);
  });

  it('a file replaced again while it is validated is not opened; the next check validates the file there now', async () => {
    // Validates nothing: it notes the file's identity, says so, and answers "ok" for it once told to go.
    const worker = standIn(`
      import fs from 'node:fs';
      import { parentPort, workerData } from 'node:worker_threads';
      const { dev, ino, birthtimeNs } = fs.statSync(workerData.file, { bigint: true });
      fs.writeFileSync(workerData.file + '.looked', '');
      const wait = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(workerData.file + '.go')) Atomics.wait(wait, 0, 0, 5);
      parentPort.postMessage({ ok: true, stat: { dev, ino, birthtimeNs } });
    `);
    const { handle, file, dir } = open('original', { validationWorker: worker });
    backupNamed(handle, path.join(dir, 'first.db'), 'first restore');
    backupNamed(handle, path.join(dir, 'second.db'), 'second restore');
    expect(handle.check().ok).toBe(true);
    const { generation, replacements } = handle;

    restore(path.join(dir, 'first.db'), file);
    await turn();
    expect(handle.check().ok).toBe(false);
    const first = handle.validation();
    while (!fs.existsSync(`${file}.looked`)) await new Promise((resolve) => setTimeout(resolve, 5));
    // The worker has the first restore's identity; the second replaces it before the answer (often with the
    // inode number just freed: the creation time tells the two apart).
    restore(path.join(dir, 'second.db'), file);
    fs.writeFileSync(`${file}.go`, '');
    expect(await first).toBe(false);
    expect(handle.generation).toBe(generation);
    expect(handle.replacements).toBe(replacements);

    // The next check validates the file at the path now, and that is the one opened.
    expect(handle.check().ok).toBe(false);
    expect(handle.validating).toBe(true);
    expect(await handle.validation()).toBe(true);
    expect(handle.check().ok).toBe(true);
    expect(handle.replacements).toBe(replacements + 1);
    expect(nameIn(handle)).toBe('second restore');
  });

  it('closing the handle stops a validation under way', async () => {
    const { handle } = await restoredWhileOpen({ validationWorker: standIn('setInterval(() => {}, 1000);') });
    const validation = handle.validation();
    handle.close();
    expect(await validation).toBe(false);
    expect(handle.validating).toBe(false);
  });
});
