/**
 * The project server exactly as `npm start` serves it (src/app/server.ts: configuration, logger, data, the one
 * pipeline on node:http), assembled around its pipeline with the plugins named in ABLATE (comma-separated) left
 * out. The subject of `npm run bench:ab -- --without <plugins>`, which bundles this file as `npm start`'s
 * bundle is built and runs it with and without ABLATE in alternating rounds: the difference is what those
 * plugins cost under load. A harness composed from the server's own parts; src/ reads no such variable.
 */
import { assembleApp, createAppParts } from '../../src/app/app.js';
import { appOptionsOf, listen, prepareServer } from '../../src/app/server.js';
import { withoutPlugins } from './ablation.js';

const start = await prepareServer();
const parts = createAppParts(appOptionsOf(start));
listen(start, assembleApp(parts, withoutPlugins(parts.pipeline, (process.env.ABLATE ?? '').split(',').filter(Boolean))));
