/**
 * The process logger: pino, JSON lines by default (one object per line, for
 * log collectors), human-readable through pino-pretty for development.
 *
 * `LOG_FORMAT=auto` (default) picks pretty output when stdout is a terminal
 * and JSON otherwise, so `npm start` in a shell is readable and the same
 * command under a supervisor or in a container logs JSON.
 *
 * What is logged never includes a secret, a signature or a request body:
 * the request line (src/pipeline/plugins/use-request-context.ts) carries only ids,
 * route, status, timing and error code, and `redact` below censors the
 * usual suspects should anything ever pass such an object to the logger.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

/** Paths censored wherever they appear (defence in depth; nothing logs them today). */
export const REDACTED_PATHS = [
  'apiSecret',
  'secret',
  'signature',
  'body',
  'headers',
  '*.apiSecret',
  '*.secret',
  '*.signature',
  '*.body',
  '*.headers',
];

/** The output format `auto` resolves to for a stdout that is (not) a terminal. */
export function resolveLogFormat(format: Config['logFormat'], isTTY: boolean): 'json' | 'pretty' {
  return format === 'auto' ? (isTTY ? 'pretty' : 'json') : format;
}

export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: DestinationStream): Logger {
  const options = { level: config.logLevel, base: { service: 'payment-gateway' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  const format = resolveLogFormat(config.logFormat, Boolean(process.stdout.isTTY));
  if (format === 'pretty') {
    return pino(options, pretty({ colorize: Boolean(process.stdout.isTTY), sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', singleLine: true, destination: destination ?? 1 }));
  }
  return pino(options, destination ?? new TurnBatchedDestination(1));
}

/** A field of a {@link writeInfoLine} line: scalars only (an undefined field is left out, as pino leaves it out). */
export type LineFields = Record<string, string | number | boolean | undefined>;

/** Per logger: what precedes its lines' time and what follows it (its bindings), worked out once. */
const linePrefixes = new WeakMap<Logger, { stream: DestinationStream; bindings: string }>();

/**
 * An `info` line of scalar fields, written as pino writes `logger.info(fields, msg)` (same keys, same order:
 * level, time, the logger's bindings, the fields, msg; test/unit/logger.test.ts compares the two) but
 * serialised by `JSON.stringify`, and without the redaction pass.
 *
 * Why: on Node 24 pino escapes every key and string value with a loop over its characters (`charCodeAt`
 * through a megamorphic property load each), about 150 machine instructions a character; the request line
 * (src/pipeline/plugins/use-request-context.ts) has some 170 of them, a tenth of a cached request's work,
 * and a traced line's two ids 48 more. `JSON.stringify` does the same escaping in C++ (and escapes a lone
 * surrogate, which the loop passes through as invalid UTF-8).
 *
 * Only for loggers made by {@link createLogger} (pino's own level, time and message keys; bindings set when a
 * child is made, never changed after) and for lines whose fields are never secrets, headers or bodies:
 * redaction (REDACTED_PATHS) is not applied.
 * The line goes to the logger's own destination (`pino.symbols.streamSym`, pino's documented hook for
 * integrations), so a pretty logger prettifies it and a test's destination receives it like any other line.
 *
 * `members`: more fields already serialised, each as `,"key":value`, written after `fields`; only for values
 * that need no escaping by construction (a trace's hex ids), which then cost a concatenation, not a pass.
 */
export function writeInfoLine(logger: Logger, fields: LineFields, msg: string, members = ''): void {
  if (!logger.isLevelEnabled('info')) return;
  let prefix = linePrefixes.get(logger);
  if (prefix === undefined) {
    const bindings = JSON.stringify(logger.bindings());
    prefix = { stream: (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!, bindings: bindings === '{}' ? '' : `,${bindings.slice(1, -1)}` };
    linePrefixes.set(logger, prefix);
  }
  const body = JSON.stringify(fields);
  prefix.stream.write(`{"level":30,"time":${Date.now()}${prefix.bindings}${body === '{}' ? '' : `,${body.slice(1, -1)}`}${members},"msg":${JSON.stringify(msg)}}\n`);
}

/** Destinations with lines not yet written, flushed when the process exits (one listener for all). */
const unflushed = new Set<TurnBatchedDestination>();
let exitHook = false;

/**
 * Log lines of one event-loop turn written together, in one synchronous write at the end of the turn
 * (`setImmediate`). Under load a turn serves dozens of requests, so the request log costs one `write(2)` per
 * turn instead of a write per line or a thread-pool round trip per asynchronous write.
 *
 * Measured on the Yoga floor server under 50 connections (bench/results/2026-11-23-throughput-runs.md), CPU per
 * request: one pino line to sonic-boom's asynchronous destination +22–27 µs, synchronous per line +12 µs,
 * batched per turn +5 µs.
 *
 * Invariants: a line is on stdout at the latest at the end of the turn that logged it (no timer, no size
 * threshold, so nothing waits on later traffic); every pending line is written on `exit`, whatever ended the
 * process (exit(), exitCode, uncaught throw); lines keep their order. The write itself is sonic-boom's
 * synchronous one (partial writes and EAGAIN retried): a stalled log consumer slows the process down, it
 * never loses lines or buffers them without bound.
 */
export class TurnBatchedDestination implements DestinationStream {
  readonly #out: DestinationStream;
  /** Lines not yet written; the first one of a batch schedules its write. */
  #lines: string[] = [];
  constructor(fd: number) {
    this.#out = pino.destination({ dest: fd, sync: true });
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const d of unflushed) d.flushSync();
      });
    }
  }
  write(line: string): void {
    // After an early flush an immediate may already be pending; a second one then finds nothing to write.
    if (this.#lines.push(line) > 1) return;
    unflushed.add(this);
    setImmediate(this.#endOfTurn);
  }
  readonly #endOfTurn = (): void => this.flushSync();
  /** `logger.flush(cb)`: pending lines written now, then `cb`. */
  flush(cb: (err?: Error) => void): void {
    this.flushSync();
    cb();
  }
  /** Write every pending line now (end of turn, `flush`, process exit). */
  flushSync(): void {
    unflushed.delete(this);
    if (this.#lines.length === 0) return;
    const text = this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join('');
    this.#lines = [];
    this.#out.write(text);
  }
}
