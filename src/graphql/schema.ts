/**
 * The executable schema: the SDL in the top-level `schema/` folder (one file per domain: the contract with
 * frontends, where every client team finds it), plus the resolvers. codegen.ts and the GraphQL Inspector
 * guard (`npm run schema:check`) read the same files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { projectPath } from '../shared/paths.js';
import { resolvers } from './resolvers.js';

/** The SDL files' contents, ordered by file name (the order types are defined in, so introspection is stable). */
export function loadTypeDefs(): string[] {
  const dir = projectPath('schema');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort((a, b) => a.localeCompare(b))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
}

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers, resolverValidationOptions: { requireResolversToMatchSchema: 'error' } });
}
