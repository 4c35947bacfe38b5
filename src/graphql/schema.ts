/**
 * The executable schema: the SDL in the top-level `schema/` folder (one file per domain: the contract with
 * frontends, where every client team finds it), plus the resolvers. codegen.ts and the GraphQL Inspector
 * guard (`npm run schema:check`) read the same files.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers.js';
import { loadTypeDefs } from './sdl.js';

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers, resolverValidationOptions: { requireResolversToMatchSchema: 'error' } });
}
