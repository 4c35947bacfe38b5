/**
 * `npm run build` (also run by `npm start` as its prestart step): bundles the
 * server's own code (src/main.ts and everything it imports from src/) into
 * dist/main.mjs, and the admin CLI (src/cli/admin.ts) into dist/admin.mjs,
 * with esbuild, and beside them the worker threads' modules they start
 * (WORKERS). Packages stay external (node_modules), except those in
 * BUNDLED_PACKAGES.
 *
 * Why: running the compiled bundle with plain `node` leaves out tsx's loader
 * thread and its per-module transpilation (≈35 MB of resident memory and the
 * `__name` helper calls it adds), which the benchmark showed on the hot path;
 * for the admin CLI it is most of a call's start-up (docs/OPERATIONS.md).
 * `npm run admin` and the package's bin (bin/payment-gateway-admin.mjs) run
 * dist/admin.mjs, rebuilding it first when a source file is newer.
 *
 * Each file is written under a temporary name and renamed into place, so a
 * process starting at the same moment (tests start several) never reads a
 * half-written bundle.
 *
 * `node scripts/build.mjs <entry.ts> <out.mjs>` bundles one entry the
 * same way (paths relative to the repository): the benchmark's ablation
 * server (bench/ab.ts) must be compiled exactly as `npm start`'s bundle is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [entryArg, outArg] = process.argv.slice(2);
if ((entryArg === undefined) !== (outArg === undefined)) {
  process.stderr.write('usage: node scripts/build.mjs [<entry.ts> <out.mjs>]\n');
  process.exit(2);
}
/**
 * Packages compiled into the bundles instead of resolved from node_modules at start-up.
 *
 * drizzle-orm: its package.json is 179 KB, almost all of it an `exports` map, and Node 22+ (C++ package.json
 * reader, nodejs/node#58126) parses that map again for each of the ~300 drizzle-orm modules an engine's
 * import loads. On Node 24.21 that was 1.1 s of CPU and 230 MB of garbage on every start of the server and of
 * every admin CLI call (2.2 s wall, 310 MB peak per `merchant list`; on Node 20 0.6 s). Bundled, a CLI call
 * takes 0.45 s and 88 MB (docs/PERFORMANCE.md, "The runtime"). Its own imports (better-sqlite3, pg) stay external.
 */
const BUNDLED_PACKAGES = new Set(['drizzle-orm']);
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const EXTERNAL = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.devDependencies })
  .filter((name) => !BUNDLED_PACKAGES.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/** The bundles `npm run build` writes: the server and the admin CLI. */
const DEFAULT_BUNDLES = [
  ['src/main.ts', 'dist/main.mjs'],
  ['src/cli/admin.ts', 'dist/admin.mjs'],
];

/**
 * Worker threads' modules, bundled beside every bundle written (same folder, this name): code that starts a
 * worker finds it next to the bundle it was bundled into (src/storage/sqlite/database.ts, VALIDATION_WORKER;
 * src/app/trace-export.ts, TRACE_EXPORT_WORKER).
 */
const WORKERS = [
  ['src/storage/sqlite/validation-worker.ts', 'sqlite-validation-worker.mjs'],
  ['src/app/trace-export-worker.ts', 'trace-export-worker.mjs'],
];

async function bundle(entryPath, outPath) {
  const entry = path.resolve(root, entryPath);
  const outFile = path.resolve(root, outPath);
  const outDir = path.dirname(outFile);
  const tmpFile = path.join(outDir, `.${path.basename(outFile, '.mjs')}.${process.pid}.${Date.now()}.mjs`);
  fs.mkdirSync(outDir, { recursive: true });
  try {
    await build({
      entryPoints: [entry],
      outfile: tmpFile,
      bundle: true,
      // Every other package stays in node_modules (native modules, and one copy of graphql for Yoga and us).
      external: EXTERNAL,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      legalComments: 'none',
      logLevel: 'warning',
    });
    fs.renameSync(tmpFile, outFile);
  } catch (err) {
    fs.rmSync(tmpFile, { force: true });
    throw err;
  }
}

const bundles = entryArg === undefined ? DEFAULT_BUNDLES : [[entryArg, outArg]];
const outDirs = [...new Set(bundles.map(([, out]) => path.dirname(path.resolve(root, out))))];
const workers = outDirs.flatMap((dir) => WORKERS.map(([entry, name]) => [entry, path.join(dir, name)]));
try {
  await Promise.all([...bundles, ...workers].map(([entry, out]) => bundle(entry, out)));
} catch (err) {
  // esbuild has already printed the diagnostics.
  process.stderr.write(`build failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}\n`);
  process.exit(1);
}
