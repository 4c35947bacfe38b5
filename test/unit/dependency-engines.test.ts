/**
 * Every installed package supports the Node this project runs on (package.json `engines`). The pins in
 * `overrides` exist for this (docs/DEPENDENCIES.md); without them `npm ci` resolves majors that need Node 22.
 * Read from package-lock.json, which `npm ci` installs exactly.
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

it('no installed package requires a Node newer than the one running', () => {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
  };
  const tooNew: string[] = [];
  let checked = 0;
  for (const [where, pkg] of Object.entries(lock.packages)) {
    const wanted = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (!where || !wanted) continue;
    // Optional packages that are not installed here (other platforms) do not count.
    if (pkg.optional && !fs.existsSync(path.join(ROOT, where))) continue;
    checked++;
    if (!semver.satisfies(process.version, wanted, { includePrerelease: true })) tooNew.push(`${where}@${pkg.version}: node ${wanted}`);
  }
  expect(checked).toBeGreaterThan(100);
  expect(tooNew, `these need another Node than ${process.version}; pin them in package.json overrides (docs/DEPENDENCIES.md)`).toEqual([]);
});
