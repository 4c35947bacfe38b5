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
  // Asynchronous stdout (lines written in one tick go out in one write; pino flushes it synchronously on
  // exit): a synchronous write per request log line cost ~6 % of CPU on the hot paths (bench/profile.ts).
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
