#!/usr/bin/env node
// `payment-gateway-admin <command>` and `npm run admin`: the admin CLI (src/cli/admin.ts) as the bundle
// scripts/build.mjs writes, dist/admin.mjs, under plain node: no TypeScript compiled at run time, so a call
// starts in a fraction of a second (docs/OPERATIONS.md). In a checkout the bundle is rebuilt first when it is
// missing or older than a source file or the build script (git checkouts and edits move mtimes forward);
// without src/ (a packed copy) the shipped bundle runs as it is.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'admin.mjs');
const sources = path.join(root, 'src');
const buildScript = path.join(root, 'scripts', 'build.mjs');

/**
 * The newest modification time under `dir` (milliseconds).
 * @param {string} dir
 */
function newest(dir) {
  let latest = 0;
  for (const relative of fs.readdirSync(dir, { encoding: 'utf8', recursive: true })) {
    latest = Math.max(latest, fs.statSync(path.join(dir, relative)).mtimeMs);
  }
  return latest;
}

const built = fs.statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
if (fs.existsSync(sources) && (built === undefined || Math.max(newest(sources), fs.statSync(buildScript).mtimeMs) > built)) {
  // stdout stays the command's own (--json); esbuild's diagnostics go to stderr.
  try {
    execFileSync(process.execPath, [buildScript, 'src/cli/admin.ts', 'dist/admin.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch {
    // build.mjs has printed why on stderr.
    process.stderr.write('payment-gateway-admin: building dist/admin.mjs failed\n');
    process.exit(1);
  }
} else if (built === undefined) {
  process.stderr.write(`payment-gateway-admin: ${bundle} is missing; run npm run build in ${root}\n`);
  process.exit(1);
}
await import(pathToFileURL(bundle).href);
