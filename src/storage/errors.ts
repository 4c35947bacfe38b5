/**
 * Storage failures as the rest of the service needs to tell them apart, whichever engine runs: a database
 * that cannot be used right now (the pipeline answers 503 SERVICE_UNAVAILABLE and the process stays up)
 * versus anything else (a bug: masked as 500 and logged).
 */
import { describePostgresError, isPostgresUnavailable } from './postgres/errors.js';
import { isSqliteUnavailable } from './sqlite/errors.js';

/** True for a failure of the database itself (either engine), not of the code using it. */
export function isStorageUnavailable(err: unknown): boolean {
  return isSqliteUnavailable(err) || isPostgresUnavailable(err);
}

/** Opening, migrating or loading the database failed; the message names the engine and where the data lives. */
export class StorageOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageOpenError';
  }
}

/**
 * `mustExist` was asked and there is no database where the configuration points: no SQLite file in
 * DATA_DIR, or a Postgres database without this project's schema. Nothing was created.
 */
export class NoDatabaseError extends StorageOpenError {
  constructor(message: string) {
    super(message);
    this.name = 'NoDatabaseError';
  }
}

/**
 * The underlying cause of a storage failure for logs and operator messages (wrappers such as drizzle's
 * `Failed query: …` and AggregateError unwrapped down to the socket or server error: address, port, code).
 */
export function describeStorageFailure(err: unknown): string {
  return describePostgresError(err);
}
