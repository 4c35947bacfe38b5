/**
 * Exactly one graphql-jit in the installed tree, and a fixed one (docs/OPERATIONS.md, "Memory bounds").
 *
 * graphql-jit before 0.8.9 keeps a process-wide memo (`joinOriginPaths`) keyed by arrays created anew on
 * every compile, so each distinct query text a client sends leaves about 1 KB on the heap for good.
 * @envelop/graphql-jit pins 0.8.7; package.json's `overrides` replaces that nested copy with the project's
 * own graphql-jit. This test fails when a dependency update brings a second copy (or an old one) back.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXED = [0, 8, 9];

interface LsNode {
  version?: string;
  dependencies?: Record<string, LsNode>;
}

function atLeast(version: string, min: number[]): boolean {
  const parts = version.split(/[.-]/).slice(0, 3).map(Number);
  for (let i = 0; i < 3; i++) {
    if (parts[i]! !== min[i]!) return parts[i]! > min[i]!;
  }
  return true;
}

/** Every graphql-jit version in the tree printed by `npm ls`, with the path that leads to it. */
function jitVersions(node: LsNode, trail: string[] = [], out: { at: string; version: string }[] = []) {
  for (const [name, child] of Object.entries(node.dependencies ?? {})) {
    if (name === 'graphql-jit' && child.version) out.push({ at: [...trail, name].join(' > '), version: child.version });
    jitVersions(child, [...trail, name], out);
  }
  return out;
}

describe('graphql-jit in the dependency tree', () => {
  it('npm ls shows a single version, at least 0.8.9', () => {
    // `npm ls` exits non-zero on an invalid tree; its JSON is printed either way and is what is judged.
    let stdout: string;
    try {
      stdout = execFileSync('npm', ['ls', 'graphql-jit', '--json', '--all'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch (err) {
      stdout = (err as { stdout: string }).stdout;
    }
    const found = jitVersions(JSON.parse(stdout) as LsNode);
    expect(found.length).toBeGreaterThan(0);
    const versions = [...new Set(found.map((f) => f.version))];
    expect(versions, JSON.stringify(found)).toHaveLength(1);
    expect(atLeast(versions[0]!, FIXED), `graphql-jit ${versions[0]} is older than 0.8.9`).toBe(true);
  });

  it('the copy @envelop/graphql-jit loads at run time is the project one', () => {
    const require = createRequire(path.join(ROOT, 'package.json'));
    const envelopDir = path.dirname(require.resolve('@envelop/graphql-jit/package.json'));
    const fromEnvelop = createRequire(path.join(envelopDir, 'package.json')).resolve('graphql-jit/package.json');
    expect(fromEnvelop).toBe(require.resolve('graphql-jit/package.json'));
    const { version } = require(fromEnvelop) as { version: string };
    expect(atLeast(version, FIXED)).toBe(true);
  });
});
