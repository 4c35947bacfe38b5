import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module). Node, and therefore Yoga at run time, loads the CJS build;
    // Vite would hand our sources the ESM build, giving two GraphQLError classes and breaking `instanceof`.
    // Resolve it the way Node does so tests run the same module graph as production.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // One throwaway Postgres per run (TEST_DATABASE_URL for every worker); see the file.
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // e2e tests start real servers on free ports; files run in parallel workers.
    pool: 'forks',
  },
});
