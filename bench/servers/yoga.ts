/** Plain GraphQL Yoga with default settings, same schema/resolvers/data, no auth. */
import { createServer } from 'node:http';
import { createYoga } from 'graphql-yoga';
import { announce, baselineSetup } from './common.js';

const setup = await baselineSetup();
const yoga = createYoga({ schema: setup.schema, context: setup.context, logging: false });
// Yoga's instance is itself the Node listener; it handles its own errors, so its promise is not awaited.
const server = createServer((req, res) => void yoga(req, res));
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
