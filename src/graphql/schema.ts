/**
 * The executable schema: the SDL kept beside each domain module (src/modules/<domain>/*.graphql) and the
 * shared scalars (src/graphql/*.graphql), plus the resolvers. codegen.ts reads the same files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { projectPath } from '../shared/paths.js';
import { resolvers } from './resolvers.js';

/** Folders holding SDL files: this one and every domain module's. */
function sdlFolders(): string[] {
  const modules = projectPath('src', 'modules');
  const domains = fs.readdirSync(modules, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(modules, d.name));
  return [projectPath('src', 'graphql'), ...domains];
}

/** The SDL files' contents, ordered by file name (the order types are defined in, so introspection is stable). */
export function loadTypeDefs(): string[] {
  return sdlFolders()
    .flatMap((dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.graphql')).map((f) => path.join(dir, f)))
    .sort((a, b) => path.basename(a).localeCompare(path.basename(b)))
    .map((file) => fs.readFileSync(file, 'utf8'));
}

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers, resolverValidationOptions: { requireResolversToMatchSchema: 'error' } });
}
