/** Fastify + Mercurius with graphql-jit (jit: 1), same schema/resolvers/data, no auth. */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { announce, baselineSetup } from './common.js';

const setup = await baselineSetup();
const app = Fastify({ logger: false });
await app.register(mercurius, { schema: setup.schema, jit: 1, context: () => setup.context() });
await app.listen({ port: 0, host: '127.0.0.1' });
announce((app.server.address() as { port: number }).port);
