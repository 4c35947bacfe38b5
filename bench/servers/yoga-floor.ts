/**
 * Reference "Yoga floor": GraphQL Yoga's server adapter answering the project's exact REST
 * channel-list bytes (REST_ANSWER_FILE, as raw-mem does) from an `onRequest` hook with `endResponse`, served
 * through the project's own Node transport (src/pipeline/transport/node-transport.ts). No signature, no log line, no
 * metrics, no cache lookup: only the adapter, the hook loop and the transport, i.e. the least any design
 * with Yoga's adapter as the one pipeline can cost. The project's cached answers cost this plus the work of
 * its own hooks; the difference between this and raw-mem is what the adapter itself costs.
 *
 * `FLOOR_HOOKS=n` puts n no-op plugins (an `onRequest` and an `onResponse` each) before the answering one:
 * the project's pipeline has ≈ 15 of each, so `yoga-floor-hooks` (n = 15) prices the hook loop alone.
 */
import { createServer } from 'node:http';
import pino from 'pino';
import { createYoga, type Plugin } from 'graphql-yoga';
import { buildSchema } from '../../src/graphql/schema.js';
import { createNodeListener } from '../../src/pipeline/transport/node-transport.js';
import { responseHeaders } from '../../src/pipeline/responses.js';
import { announce } from './common.js';
import { restAnswer } from './memory.js';

const bytes = restAnswer().bytes;
const hooks = Number(process.env.FLOOR_HOOKS ?? '0');
if (!Number.isInteger(hooks) || hooks < 0) throw new Error(`FLOOR_HOOKS must be a non-negative integer, not ${process.env.FLOOR_HOOKS}`);
const noop: Plugin[] = Array.from({ length: hooks }, () => ({ onRequest() {}, onResponse() {} }));
const answer: Plugin = {
  onRequest({ endResponse, fetchAPI }) {
    endResponse(new fetchAPI.Response(bytes as unknown as BodyInit, { status: 200, headers: responseHeaders({ 'content-type': 'application/json; charset=utf-8' }) }));
  },
};
const yoga = createYoga({ schema: buildSchema(), landingPage: false, graphiql: false, logging: false, plugins: [...noop, answer] });
const server = createServer(createNodeListener({ yoga: yoga as never, logger: pino({ level: 'silent' }) }));
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
