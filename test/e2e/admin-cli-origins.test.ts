/**
 * `merchant origins add|remove|list` (contract §9) as an operator runs it: validation and normalisation,
 * the demo seed's origins, audit records, `--json`, and the error paths (stderr, non-zero exit).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { admin, adminJson } from '../helpers/ops.js';
import { DEMO_APPROVED_MERCHANT_ID as M } from '../../src/modules/admin/demo-seed.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = makeTempDir('pgw-cli-origins-');
  // The CLI acts only on an existing database: create it (with the demo data) as the server's first start would.
  expect((await admin(dataDir, ['init'])).code).toBe(0);
}, 60_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('admin CLI: merchant origins', () => {
  it('the demo seed allows the reference integration for the approved demo merchant', async () => {
    expect(await adminJson(dataDir, ['merchant', 'origins', 'list', M])).toEqual({ merchantId: M, origins: ['http://127.0.0.1:4100', 'http://localhost:4100'] });
    const human = await admin(dataDir, ['merchant', 'origins', 'list', M]);
    expect(human.stdout).toBe('http://127.0.0.1:4100\nhttp://localhost:4100\n');
  }, 60_000);

  it('add normalises (lower-case host, default port dropped) and audits; remove undoes it', async () => {
    const added = await adminJson<{ origin: string; origins: string[] }>(dataDir, ['merchant', 'origins', 'add', M, 'HTTPS://Shop.Example:443', '--actor', 'ops-test']);
    expect(added.origin).toBe('https://shop.example');
    expect(added.origins).toContain('https://shop.example');
    const again = await admin(dataDir, ['merchant', 'origins', 'add', M, 'https://shop.example/']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already an allowed origin');
    expect((await adminJson<{ origin: string }>(dataDir, ['merchant', 'origins', 'add', M, 'https://shop.example:8443'])).origin).toBe('https://shop.example:8443');

    const audit = await adminJson<{ action: string; actor: string; after: string }[]>(dataDir, ['audit', 'list', '--entity', M]);
    const record = audit.find((r) => r.action === 'merchant.origin-add' && r.actor === 'ops-test');
    expect(record).toBeDefined();
    expect(JSON.stringify(record)).toContain('https://shop.example');

    const removed = await adminJson<{ origins: string[] }>(dataDir, ['merchant', 'origins', 'remove', M, 'https://SHOP.example']);
    expect(removed.origins).not.toContain('https://shop.example');
    expect((await adminJson<{ action: string }[]>(dataDir, ['audit', 'list', '--entity', M]))[0]!.action).toBe('merchant.origin-remove');
    const gone = await admin(dataDir, ['merchant', 'origins', 'remove', M, 'https://shop.example']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('is not an allowed origin');
  }, 60_000);

  it.each([
    ['https://shop.example/path', 'path, query or fragment'],
    ['https://shop.example?x=1', 'path, query or fragment'],
    ['https://shop.example#frag', 'path, query or fragment'],
    ['https://user:pw@shop.example', 'user information'],
    ['shop.example', 'not an origin'],
    ['ftp://shop.example', 'scheme must be https'],
    ['http://shop.example', 'http is allowed only for localhost and 127.0.0.1'],
    ['https://*.example.com', 'wildcards are not supported; an origin is matched exactly'],
  ])('refuses %s (%s), exit 1', async (origin, message) => {
    const res = await admin(dataDir, ['merchant', 'origins', 'add', M, origin]);
    expect(res.code, res.stdout).toBe(1);
    expect(res.stderr).toContain(message);
  }, 60_000);

  it('plain http elsewhere only with --allow-insecure-http; localhost http is fine; usage errors exit 2', async () => {
    expect((await adminJson<{ origin: string }>(dataDir, ['merchant', 'origins', 'add', M, 'http://shop.test', '--allow-insecure-http'])).origin).toBe('http://shop.test');
    expect((await adminJson<{ origin: string }>(dataDir, ['merchant', 'origins', 'add', M, 'http://LOCALHOST:3000'])).origin).toBe('http://localhost:3000');
    expect((await admin(dataDir, ['merchant', 'origins', 'frob', M])).code).toBe(2);
    expect((await admin(dataDir, ['merchant', 'origins', 'add', M])).code).toBe(2);
    const unknown = await admin(dataDir, ['merchant', 'origins', 'list', '00000000-0000-0000-0000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no merchant');
  }, 60_000);

  it('takes an international host only as typed punycode, showing its Unicode form to confirm', async () => {
    const lookalike = await admin(dataDir, ['merchant', 'origins', 'add', M, 'https://\u0430pple.com']);
    expect(lookalike.code).toBe(1);
    expect(lookalike.stderr).toContain('contains U+0430');
    expect(lookalike.stderr).toContain('https://xn--pple-43d.com');
    expect(await adminJson<{ origins: string[] }>(dataDir, ['merchant', 'origins', 'list', M])).not.toEqual(expect.objectContaining({ origins: expect.arrayContaining(['https://xn--pple-43d.com']) }));
    const typed = await admin(dataDir, ['merchant', 'origins', 'add', M, 'https://xn--pple-43d.com']);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout).toBe(`https://xn--pple-43d.com (in Unicode: https://\u0430pple.com; check it is the host you mean) is now an allowed origin of merchant ${M}.\n`);
    expect(await adminJson<{ origin: string; unicode: string }>(dataDir, ['merchant', 'origins', 'remove', M, 'https://xn--pple-43d.com'])).toMatchObject({ origin: 'https://xn--pple-43d.com' });
  }, 60_000);

  it.each([
    ['https://shop.exa\tmple', 'contains U+0009'],
    ['https://evil.example\\@shop.example', 'contains a backslash'],
    ['https://shop.example\\', 'contains a backslash'],
    ['https://shop.example:0', 'port 0'],
    ['https://shop.example\u001b[31m', 'contains U+001B'],
    ['https://0x7f.1', 'not as typed'],
  ])('refuses %j instead of rewriting it, exit 1, nothing stored', async (origin, message) => {
    const before = (await adminJson<{ origins: string[] }>(dataDir, ['merchant', 'origins', 'list', M])).origins;
    const res = await admin(dataDir, ['merchant', 'origins', 'add', M, origin]);
    expect(res.code, res.stdout).toBe(1);
    expect(res.stderr).toContain(message);
    expect(res.stderr).not.toMatch(/(?!\n)[\p{Cc}\p{Cf}]/u);
    expect((await adminJson<{ origins: string[] }>(dataDir, ['merchant', 'origins', 'list', M])).origins).toEqual(before);
  }, 60_000);
});
