/** Apollo Server 5 (standalone, node:http), same schema/resolvers/data, no auth. */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { announce, baselineSetup } from './common.js';

const setup = await baselineSetup();
const server = new ApolloServer({ schema: setup.schema });
const { url } = await startStandaloneServer(server, {
  listen: { port: 0, host: '127.0.0.1' },
  context: () => Promise.resolve(setup.context()),
});
announce(Number(new URL(url).port));
