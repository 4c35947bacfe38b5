/**
 * Where the project's files are at run time. Resolved from the project root
 * (the nearest ancestor holding this package's package.json), not from this
 * module's own depth: the same code runs from `src/` (tsx) and bundled into
 * `dist/main.mjs` (`npm start`, see scripts/build.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'payment-gateway') return dir;
    if (path.dirname(dir) === dir) throw new Error(`payment-gateway: project root not found above ${from}`);
  }
}

/** Absolute path of the project root (package.json, schema/, drizzle/, src/). */
export const PROJECT_ROOT = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Absolute path of a file or folder under the project root. */
export function projectPath(...segments: string[]): string {
  return path.join(PROJECT_ROOT, ...segments);
}
