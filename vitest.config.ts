import fs from 'node:fs';
import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Which files a repeated pass leaves out, because it would only repeat what `npm test` ran:
 * - `npm run test:node` and `test:pg` leave out test/unit: unit tests start neither an app nor a database
 *   (those that do live in test/integration);
 * - `test:node` (the Node transport on SQLite) also leaves out the end-to-end files that build no test app
 *   (`createTestApp`): they start real servers, which serve through the Node transport in every pass, so
 *   TEST_TRANSPORT changes nothing for them. `test:pg` keeps them: their servers use Postgres there.
 */
function repeatedPassExcludes(): string[] {
  if (!process.env.TEST_TRANSPORT && !process.env.TEST_DB) return [];
  if (process.env.TEST_DB) return ['test/unit/**'];
  const transportFree = fs
    .readdirSync('test/e2e')
    .filter((f) => f.endsWith('.test.ts') && !fs.readFileSync(`test/e2e/${f}`, 'utf8').includes('createTestApp('))
    .map((f) => `test/e2e/${f}`);
  return ['test/unit/**', ...transportFree];
}

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module). Node, and therefore Yoga at run time, loads the CJS build;
    // Vite would hand our sources the ESM build, giving two GraphQLError classes and breaking `instanceof`.
    // Resolve it the way Node does so tests run the same module graph as production.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // `npm run test:node` and `test:pg` repeat the suite through a real server and on Postgres (see above).
    exclude: [...configDefaults.exclude, ...repeatedPassExcludes()],
    // One throwaway Postgres per run (TEST_DATABASE_URL for every worker); see the file.
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // e2e tests start real servers on free ports; files run in parallel workers.
    pool: 'forks',
  },
});
