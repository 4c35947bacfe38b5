/**
 * The process logger: pino, JSON lines by default (one object per line, for
 * log collectors), human-readable through pino-pretty for development.
 *
 * `LOG_FORMAT=auto` (default) picks pretty output when stdout is a terminal
 * and JSON otherwise, so `npm start` in a shell is readable and the same
 * command under a supervisor or in a container logs JSON.
 *
 * What is logged never includes a secret, a signature or a request body:
 * the request line (src/plugins/use-request-context.ts) carries only ids,
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
  return pino(options, destination ?? bufferedDestination(1));
}

/** Bytes of log lines gathered before one write to stdout (sonic-boom's `minLength`; below its 16 KiB `maxWrite`). */
export const LOG_BUFFER_BYTES = 8192;
/** Longest a log line waits in that buffer when traffic is too low to fill it. */
export const LOG_FLUSH_MS = 50;

/**
 * Stdout (or `dest`, a file descriptor or path) for JSON lines, written asynchronously in batches of {@link LOG_BUFFER_BYTES}, and at least every
 * {@link LOG_FLUSH_MS} ms. Measured with `npm start` under load (bench/pipeline.ts's notes in
 * docs/PERFORMANCE.md): one write per event-loop turn (a few lines each) cost 20–30 µs of CPU per request,
 * a quarter of a cached answer; batches of ~35 lines make it a few µs.
 *
 * What it trades: lines reach stdout up to 50 ms later. Nothing is lost on an orderly exit (SIGTERM,
 * `process.exit`, a fatal error): pino flushes this destination synchronously on exit. A process killed
 * outright (SIGKILL, OOM) loses at most its last 50 ms / 8 KiB of lines, which the request logs of any
 * asynchronous logger risk; nothing durable is in them (the database holds the state).
 */
export function bufferedDestination(dest: number | string): DestinationStream {
  const stream = pino.destination({ dest, sync: false, minLength: LOG_BUFFER_BYTES });
  // unref: the timer never keeps a finished process alive; the exit flush writes what is left.
  setInterval(() => {
    if (!(stream as unknown as { destroyed: boolean }).destroyed) stream.flush();
  }, LOG_FLUSH_MS).unref();
  return stream;
}
