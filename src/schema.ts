/** The executable schema: SDL from schema/*.graphql plus the resolvers. */
import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { projectPath } from './paths.js';
import { resolvers } from './resolvers/index.js';

/** Absolute path of the SDL folder. */
export const SCHEMA_DIR = projectPath('schema');

/** The SDL files' contents, in name order. */
export function loadTypeDefs(): string[] {
  return fs
    .readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8'));
}

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers, resolverValidationOptions: { requireResolversToMatchSchema: 'error' } });
}
