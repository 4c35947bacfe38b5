/**
 * The SDL as files: the top-level `schema/` folder, one `.graphql` file per domain, read in file-name order.
 * The server (graphql/schema.ts), codegen.ts (`schema/*.graphql`), the schema lint (eslint.config.js) and
 * the breaking-change guard (scripts/schema-guard.ts, `npm run schema:check`) all read exactly these files.
 * Sub-folders are not part of the schema: `schema/published/` holds the published baseline.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectPath } from '../shared/paths.js';

/** The folder of the SDL files. */
export const SCHEMA_DIR = projectPath('schema');

/** The SDL files' contents, ordered by file name (the order types are defined in, so introspection is stable). */
export function loadTypeDefs(dir: string = SCHEMA_DIR): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((f) => f.isFile() && f.name.endsWith('.graphql'))
    .map((f) => f.name)
    .sort((a, b) => a.localeCompare(b))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
}
