/**
 * Every installed package supports both Nodes involved (docs/DEPENDENCIES.md):
 * - the runtime, node_modules/.bin/node (Node.js 24, installed by `npm ci` itself), which runs the tests;
 * - the Node that runs npm, often the machine's own and older (v20 on Debian's image): `npm ci` checks each
 *   package's `engines` against it and prints EBADENGINE for any it excludes. Under `npm test`, npm names that
 *   Node in npm_node_execpath.
 * The pins in `overrides` keep lines that would exclude the second out; NEED_THE_RUNTIME names the only
 * exceptions. Read from package-lock.json, which
 * `npm ci` installs exactly.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Packages that may exclude the Node running npm (npm prints one EBADENGINE line for each), because the
 * runtime needs them: better-sqlite3 13 (`>=22`) is the first line that does not abort Node 24 when a statement
 * is garbage-collected (test/unit/native-modules.test.ts).
 */
const NEED_THE_RUNTIME = new Set(['node_modules/better-sqlite3']);

const npmsNode = process.env.npm_node_execpath;
const nodes = [process.versions.node, ...(npmsNode ? [execFileSync(npmsNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()] : [])];

it(`no installed package excludes the Nodes in use (${nodes.join(', ')})`, () => {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
  };
  const excluded: string[] = [];
  let checked = 0;
  for (const [where, pkg] of Object.entries(lock.packages)) {
    const wanted = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    // The project itself ('') states its runtime in devEngines, which npm install does not check (package.json).
    if (!where || !wanted) continue;
    // Optional packages that are not installed here (other platforms) do not count.
    if (pkg.optional && !fs.existsSync(path.join(ROOT, where))) continue;
    checked++;
    for (const version of NEED_THE_RUNTIME.has(where) ? nodes.slice(0, 1) : nodes) {
      if (!semver.satisfies(version, wanted, { includePrerelease: true })) excluded.push(`${where}@${pkg.version}: node ${wanted} excludes ${version}`);
    }
  }
  expect(checked).toBeGreaterThan(100);
  expect(excluded, 'pin these in package.json overrides or choose another line (docs/DEPENDENCIES.md)').toEqual([]);
});
