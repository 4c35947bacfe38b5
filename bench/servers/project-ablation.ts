/**
 * The project server exactly as `npm start` serves it (src/app/server.ts: configuration, logger, data, the one
 * pipeline on node:http), with the pipeline plugins named in ABLATE (comma-separated) left out. The subject of
 * `npm run bench:ab -- --without <plugins>`, which bundles this file as `npm start`'s bundle is built and runs
 * it with and without ABLATE in alternating rounds: the difference is what those plugins cost under load.
 * A harness, never a way to serve: src/main.ts reads no such variable.
 */
import { serve } from '../../src/app/server.js';

await serve({ omitPlugins: (process.env.ABLATE ?? '').split(',').filter(Boolean) });
