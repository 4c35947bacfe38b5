/**
 * The validation of a database file found replaced, restored or repaired (database.ts), run in a worker
 * thread: `quick_check` and a read of every table read the whole file (about a second at 100,000
 * merchants), which on the event loop would hold up every request. The file is opened read-only, so the
 * worker changes nothing whatever it finds; the main thread opens its own connection only after the answer.
 *
 * Input (`workerData`): `{ file }`. Output: one message, {@link ValidationAnswer}. `stat` is the file's
 * identity ({@link FileIdentity}) taken BEFORE it was opened here: what was validated is that file, so the
 * main thread compares it with what it opens (a file replaced again meanwhile is validated anew).
 *
 * This module imports only `node:` modules and packages, and only erasable TypeScript: from src/ Node runs it
 * as it is (type stripping; under tsx, tsx's loader); `npm run build` bundles it beside the server's bundle
 * (scripts/build.mjs).
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** The tables a validated file must have and be able to read from end to end. */
const TABLES = ['merchants', 'api_keys', 'channels', 'merchant_channels', 'currencies'];

/** How long the checks wait for another process's lock (ms): a busy file fails this attempt, a later one retries. */
const BUSY_TIMEOUT_MS = 2000;

/**
 * Which file was validated, taken before it was opened: device, inode and creation time (a file created in
 * place of a deleted one often gets its inode number at once; writes change neither).
 */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  birthtimeNs: bigint;
}

export type ValidationAnswer = { ok: true; stat: FileIdentity } | { ok: false; error: string };

function validate(file: string): ValidationAnswer {
  const { dev, ino, birthtimeNs } = fs.statSync(file, { bigint: true });
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const check = sqlite.pragma('quick_check(1)', { simple: true });
    if (check !== 'ok') throw new Error(`quick_check: ${String(check)}`);
    for (const table of TABLES) sqlite.prepare(`select count(*) from ${table}`).get();
  } finally {
    sqlite.close();
  }
  // A restored file is often a fresh copy whose pages are still on their way to the disk: flushed here, so
  // the main thread's first write to it (the switch to WAL as it opens the file, which syncs) does not wait
  // for them (35–190 ms for a 490 MB copy at 100,000 merchants).
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { ok: true, stat: { dev, ino, birthtimeNs } };
}

function describe(err: unknown): string {
  if (err instanceof Database.SqliteError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

if (parentPort !== null) {
  const { file } = workerData as { file: string };
  let answer: ValidationAnswer;
  try {
    answer = validate(file);
  } catch (err) {
    answer = { ok: false, error: describe(err) };
  }
  parentPort.postMessage(answer);
}
