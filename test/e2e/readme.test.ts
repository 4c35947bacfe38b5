/**
 * The README's examples, run as a newcomer would paste them, against a real
 * server: the openssl signing snippet and the `npm run sign` curl commands.
 *
 * One pass (npm test): the README as a new user follows it, on the default engine.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { PROJECT_ROOT, startServer, type RunningServer } from '../helpers/server.js';

const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
let workDir: string;
let server: RunningServer;

beforeAll(async () => {
  workDir = makeTempDir('pgw-readme-');
  server = await startServer(path.join(workDir, 'data'));
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

function block(marker: string): string {
  const m = new RegExp(`<!-- readme-test:${marker} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!m) throw new Error(`README block ${marker} not found`);
  return m[1]!;
}

describe('README examples work when pasted', () => {
  it('the openssl signing snippet returns the contract sample result', () => {
    const out = execFileSync('bash', ['-euo', 'pipefail', '-c', block('sign-shell')], { cwd: workDir, env: { ...process.env, BASE_URL: server.baseUrl }, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });
  });

  it.each(
    [...readme.matchAll(/^npm run --silent sign -- (.+)$/gm)].map((m) => [m[1]!]),
  )('npm run sign -- %s prints a curl that answers 200', (args) => {
    const printed = execFileSync('bash', ['-c', `npm run --silent sign -- ${args}`], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATA_DIR: server.dataDir, BASE_URL: server.baseUrl },
      encoding: 'utf8',
    });
    const curl = printed.slice(printed.indexOf('curl:\n') + 'curl:\n'.length);
    const out = execFileSync('bash', ['-c', `${curl.trim()} -w '\\n%{http_code}'`], { encoding: 'utf8' });
    expect(out.trim().split('\n').pop()).toBe('200');
  });
});

describe('README structure a newcomer follows', () => {
  it('"First 5 minutes" announces as many ways in as it has subsections', () => {
    const section = readme.slice(readme.indexOf('## First 5 minutes'), readme.indexOf('\n## ', readme.indexOf('## First 5 minutes') + 3));
    const subsections = [...section.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six'];
    const announced = /^(\w+) ways in, one section each/m.exec(section);
    expect(announced, 'the intro sentence').not.toBeNull();
    expect(words.indexOf(announced![1]!.toLowerCase()), subsections.join(' | ')).toBe(subsections.length);
  });
});
