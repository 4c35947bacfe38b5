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

/**
 * The underlying cause of a Postgres failure for logs and operator messages: drizzle's `Failed query: …`
 * wrapper and pg's AggregateError (one connection attempt per resolved address) are unwrapped down to the
 * socket error (address, port, errno code) or the server's error (message and SQLSTATE).
 */
export function describePostgresError(err: unknown): string {
  const seen = new Set<unknown>();
  let root: unknown = err;
  while (root instanceof Error && root.cause !== undefined && !seen.has(root.cause)) {
    seen.add(root);
    root = root.cause;
  }
  const leaves = root instanceof AggregateError && root.errors.length > 0 ? root.errors : [root];
  return [...new Set(leaves.map(describeOne))].join('; ');
}

function describeOne(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { code, address, port } = err as { code?: unknown; address?: unknown; port?: unknown };
  let text = err.message || err.name;
  // Socket errors carry the address in the message already ("connect ECONNREFUSED 127.0.0.1:5432"); add it when they do not.
  if (typeof address === 'string' && !text.includes(address)) text += ` (${address}${typeof port === 'number' ? `:${port}` : ''})`;
  if (typeof code === 'string' && !text.includes(code)) text += ` [${/^[0-9A-Z]{5}$/.test(code) ? 'SQLSTATE ' : ''}${code}]`;
  return text;
}
