import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // e2e tests start real servers on free ports; files run in parallel workers.
    pool: 'forks',
  },
});
