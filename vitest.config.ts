import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

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
    // `npm run test:node` and `test:pg` repeat the suite through a real server and on Postgres. Unit tests
    // start neither an app nor a database (those that do live in test/integration), so they would only
    // repeat what `npm test` ran: they run once, there.
    exclude: [...configDefaults.exclude, ...(process.env.TEST_TRANSPORT || process.env.TEST_DB ? ['test/unit/**'] : [])],
    // One throwaway Postgres per run (TEST_DATABASE_URL for every worker); see the file.
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // e2e tests start real servers on free ports; files run in parallel workers.
    pool: 'forks',
  },
});
