/**
 * Requests that need current data are answered 503 SERVICE_UNAVAILABLE
 * (problem+json on REST, a GraphQL error on /graphql) while the store reports
 * its catalogue unusable, without touching the database: not loaded yet, or
 * the database unreachable for longer than MAX_STALENESS_SECONDS (within
 * that bound the store reports ok and the last catalogue is served,
 * src/storage/model/freshness.ts). Any
 * 503 triggers a probe, so a fault first seen by a query (a lock held by
 * another process) also switches the service to fail-fast until it clears.
 * Health changes are logged once per transition.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Store } from '../../storage/index.js';
import { AppError } from '../../shared/errors.js';
import { requestStateOf } from '../request-state.js';
import { errorResponseFor } from '../responses.js';

/** Options of {@link useDatabaseHealth}. */
export interface DatabaseHealthOptions {
  database: Pick<Store, 'check' | 'probe'>;
  /** Public paths that also read the database (channel images). */
  publicPathNeedsDatabase: (pathname: string) => boolean;
  logger: Logger;
}

export function useDatabaseHealth(options: DatabaseHealthOptions): Plugin {
  const { database, logger } = options;
  let healthy = true;
  const transition = (ok: boolean, reason?: string) => {
    if (ok === healthy) return;
    healthy = ok;
    if (ok) logger.info('database available again');
    else logger.error({ reason }, 'database unavailable');
  };

  return {
    onRequest({ url, serverContext, endResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state || (state.surface === 'public' && !options.publicPathNeedsDatabase(url.pathname))) return;
      const status = database.check();
      transition(status.ok, status.reason);
      if (!status.ok) {
        const error = new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry later.', {}, { 'Retry-After': '1' });
        endResponse(errorResponseFor(fetchAPI.Response, state, error));
      }
    },
    onResponse({ serverContext }) {
      const state = requestStateOf(serverContext);
      if (state?.errorCode !== 'SERVICE_UNAVAILABLE' || !healthy) return;
      const status = database.probe();
      transition(status.ok, status.reason);
    },
  };
}
