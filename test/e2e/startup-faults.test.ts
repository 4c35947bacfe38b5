/**
 * Start-up with a DATA_DIR that cannot take writes: a clear
 * message on stderr and a non-zero exit, never a half-started server.
 * Runs `npm start`'s entry point (tsx src/main.ts) as a real process.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const isRoot = process.getuid?.() === 0;
/** Private mount namespaces let the test mount a tiny tmpfs without touching the host's mounts. */
const canMountTmpfs = isRoot && spawnSync('unshare', ['-m', 'true']).status === 0;
/**
 * As root the unwritable-directory case runs the server as "nobody", which must be able to reach the
 * checkout: a clone inside a 0700 directory (e.g. under /root or a `mktemp -d`) is not, and the server would
 * fail for that reason instead (module not found), proving nothing.
 */
const nobodyCanRunServer = !isRoot || spawnSync(process.execPath, ['--import', 'tsx', '-e', '0'], { cwd: ROOT, uid: 65534, gid: 65534 }).status === 0;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    fs.chmodSync(d, 0o755);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
}

function run(command: string, args: string[], env: Record<string, string>, uid?: number): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit (it must refuse to start)\n${stdout}\n${stderr}`));
    }, 50_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

const SERVER = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/main.ts')];

describe('start-up with a DATA_DIR that takes no writes', () => {
  it.skipIf(!nobodyCanRunServer)('unwritable DATA_DIR → clear message, non-zero exit', async () => {
    const parent = makeTempDir('pgw-ro-');
    dirs.push(parent);
    fs.chmodSync(parent, 0o755);
    const dataDir = path.join(parent, 'data');
    fs.mkdirSync(dataDir, { mode: 0o555 });
    fs.chmodSync(dataDir, 0o555);
    // root ignores permission bits, so as root the server runs as "nobody" here.
    const result = await run(SERVER[0]!, SERVER.slice(1), { DATA_DIR: dataDir, HOME: parent }, isRoot ? 65534 : undefined);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/DATA_DIR .*data (cannot be created or )?is not writable/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 60_000);

  it.skipIf(!canMountTmpfs)('full DATA_DIR → clear message, non-zero exit', async () => {
    const dataDir = makeTempDir('pgw-full-');
    dirs.push(dataDir);
    // A 64 KiB tmpfs mounted over DATA_DIR in a private mount namespace, only for the server process.
    const script = 'mount -t tmpfs -o size=64k tmpfs "$1" && shift && exec "$@"';
    const result = await run('unshare', ['-m', 'sh', '-c', script, 'sh', dataDir, ...SERVER], { DATA_DIR: dataDir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/DATA_DIR .* is full/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
