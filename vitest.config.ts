import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** The line a test file's header carries when `npm test` is the one pass it needs (README "Which tests run where"). */
const ONE_PASS = ' * One pass (npm test): ';

/**
 * Which files `npm run test:pg` leaves out, because there it would only repeat what `npm test` ran:
 * - test/unit: unit tests start neither an app nor a database (those that do live in test/integration);
 * - the files whose header says `One pass (npm test): <why>`: their subject is not the engine or the transport
 *   (a browser page, the SDK, the harness), or they choose their engines themselves (Postgres-only cluster
 *   tests, both engines in one file), so TEST_DB changes nothing for them.
 * Everything else runs twice: in `npm test` on SQLite (test apps through yoga.fetch) and in `test:pg` on
 * Postgres through a real server's Node transport. `npm run test:node` (the Node transport on SQLite) is for
 * a developer changing the transport; CI does not run it, as test:pg covers that transport.
 */
function repeatedPassExcludes(): string[] {
  if (!process.env.TEST_TRANSPORT && !process.env.TEST_DB) return [];
  const onePass = ['test/integration', 'test/security', 'test/e2e'].flatMap((dir) =>
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts') && fs.readFileSync(`${dir}/${f}`, 'utf8').includes(ONE_PASS))
      .map((f) => `${dir}/${f}`),
  );
  return ['test/unit/**', ...onePass];
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
    server: {
      deps: {
        // Loaded through Vite, not Node's loader: Node 22+ parses drizzle-orm's 179 KB package.json `exports`
        // again for each of its ~300 modules (nodejs/node#58126), 1.3 s of CPU in every test file that opens a
        // store (0.26 s on Node 20); scripts/build.mjs bundles it for the same reason.
        inline: ['drizzle-orm'],
      },
    },
    // `npm run test:node` and `test:pg` repeat the suite through a real server and on Postgres (see above).
    exclude: [...configDefaults.exclude, ...repeatedPassExcludes()],
    // One throwaway Postgres per run (TEST_DATABASE_URL for every worker); see the file.
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // e2e tests start real servers on free ports; files run in parallel workers.
    pool: 'forks',
    // At least two files at a time: most of an end-to-end file's time is spent waiting for its processes
    // (servers, the admin CLI, Postgres, a browser), and vitest's default (cores − 1) runs one file at a time
    // on a 2-core machine. Measured on a shared 2-core machine (load 8–9): `npm test` 37 min with one, 19 with two.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
