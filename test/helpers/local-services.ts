/**
 * Throwaway Postgres / Redis for tests (scripts/lib/local-services.ts), plus the skip rule: without the
 * Debian packages a test needing them is skipped with the reason printed, except in CI (CI=true), where
 * .ci/run installs them and a missing server must FAIL the suite instead of silently skipping it.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { missingLocalServices, startRedis, type LocalService, type LocalServiceName } from '../../scripts/lib/local-services.js';

export * from '../../scripts/lib/local-services.js';

/**
 * Null when the services can be started here; otherwise the reason to skip (printed once). With CI=true a
 * missing service throws, failing the test file.
 */
export function localServicesSkipReason(...needs: LocalServiceName[]): string | null {
  const missing = missingLocalServices(needs);
  if (missing.length === 0) return null;
  const reason = `missing ${missing.join('; ')}`;
  if (process.env.CI === 'true') throw new Error(`${reason}: CI must run these tests (.ci/run installs the packages)`);
  console.warn(`[local services] tests skipped: ${reason}`);
  return reason;
}

/**
 * One throwaway Redis for the calling test file (started before its tests unless `skip`, stopped after), emptied
 * before each test: the demo keys are the same in every test database, so each test starts with no shared
 * budget or stream slot. `current` is undefined when skipped.
 */
export function throwawayRedisPerFile(skip: string | null): { current: LocalService | undefined } {
  const holder: { current: LocalService | undefined } = { current: undefined };
  beforeAll(async () => {
    if (!skip) holder.current = await startRedis();
  });
  afterAll(async () => {
    await holder.current?.stop();
  });
  beforeEach(async () => {
    if (!holder.current) return;
    const client = new Redis(holder.current.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      await client.flushall();
    } finally {
      client.disconnect();
    }
  });
  return holder;
}
