/** Which Postgres failures mean "the database cannot be used right now" (503), as opposed to a bug. */

/**
 * SQLSTATE classes and codes of an unusable server: 08 connection exception, 53 insufficient resources,
 * 57P01–57P03 shutdown / cannot connect now, 25006 read-only transaction (a standby), 40001/40P01
 * serialization failure and deadlock (retryable).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-3]$|25006$|40001$|40P01$)/;

/** Node socket errors of a server that is gone or unreachable. */
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** node-postgres' own messages for a connection that ended or timed out (they carry no code). */
const UNAVAILABLE_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

export function isPostgresUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true;
  return UNAVAILABLE_MESSAGE.test(err.message);
}
