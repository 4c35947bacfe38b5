/**
 * Builds the publishable SDK from the repository's src/client (`npm run build` here; `npm pack` runs it as
 * `prepack`):
 * - dist/index.js: one ES module (esbuild), the SDK and the two repository files it uses (the error table,
 *   the SVC1 layout) bundled in; `graphql-sse` and `jose` stay imports, dependencies npm installs with the package;
 * - dist/types/: `.d.ts` files from `tsc --emitDeclarationOnly` (tsconfig.build.json), so editors and `tsc`
 *   see the same types the repository is checked against.
 * No Node built-in is imported (dependency-cruiser's client rules), so the same file serves bundlers and
 * browsers as well as plain `node`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const dist = path.join(here, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [path.join(here, '../../src/client/index.ts')],
  outfile: path.join(dist, 'index.js'),
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  external: ['graphql-sse', 'jose'],
  legalComments: 'none',
  logLevel: 'warning',
});
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
if (tsc.status !== 0) {
  process.stderr.write('build failed: tsc could not emit the declarations\n');
  process.exit(1);
}
