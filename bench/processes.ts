/**
 * Server child processes for the benchmarks (bench.ts, ab.ts, profile.ts): start one and wait for its port,
 * read its CPU time and resident set from /proc, stop it. One copy, so every bench measures the same way.
 *
 * Output goes to a file, never a pipe: a pipe would make the load generator (this process) drain the server's
 * log, and its CPU would then count against the load generator of a 2-core machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/**
 * The per-key rate limit (default 50 req/s, src/shared/config.ts) raised for every measured project server: the load
 * generator drives one demo key far beyond it, and a benchmark of 429 answers measures nothing. The limiter
 * still runs on every request (its cost is included); only its threshold changes.
 */
export const BENCH_LIMITS = { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' };

/** A started server: its process, the port it announced and where its output goes. */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  logFile: string;
  /** The server's pid and its direct children's (cluster workers): CPU and RSS are summed over them. */
  pids: () => number[];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The arguments `npm start` gives node (package.json's `start` script, `node <flags…> dist/main.mjs`): a bench
 * that measures the server as `npm start` runs it starts it with exactly these, V8 flags included.
 */
export function npmStartArgs(root: string): string[] {
  const script = (JSON.parse(fs.readFileSync(`${root}/package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [command, ...args] = script.trim().split(/\s+/);
  if (command !== 'node' || args.at(-1) !== 'dist/main.mjs') throw new Error(`package.json's start script is not "node … dist/main.mjs": ${script}`);
  return args;
}

/**
 * Start `node <args>` in `cwd` (this process's Node, or `opts.node`) with `env` (on top of this process's environment), output to `logFile`, and
 * wait until it announces its port: a baseline's `BENCH_READY <port>` line or the project's `listening` line.
 * Throws with the end of its output when it exits first or takes over `timeoutMs` (30 s); the child is killed then.
 */
export async function startProcess(opts: { args: string[]; cwd: string; env: Record<string, string>; logFile: string; label: string; node?: string; timeoutMs?: number }): Promise<ServerProcess> {
  const out = fs.openSync(opts.logFile, 'w');
  const child = spawn(opts.node ?? process.execPath, opts.args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  for (const deadline = Date.now() + (opts.timeoutMs ?? 30_000); ; ) {
    const text = fs.readFileSync(opts.logFile, 'utf8');
    // The project's own port is the one of its `listening` line: an earlier line may name another local URL
    // (with tracing on, the OTLP collector's).
    const m = /BENCH_READY (\d+)/.exec(text) ?? /"baseUrl":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(text) ?? /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
    if (m) return { child, port: Number(m[1]), logFile: opts.logFile, pids: () => [child.pid!, ...childPids(child.pid!)] };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${opts.label} did not start:\n${text.slice(-2000)}`);
    }
    await sleep(100);
  }
}

/** SIGTERM (the server drains and exits), SIGKILL after 10 s. Resolves once it has exited. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10_000)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Direct children of a pid (cluster workers), from /proc. A pid that is gone has none. */
export function childPids(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms); NaN once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Resident set (VmRSS) of a process in MB, from /proc; NaN once it is gone. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}
