/**
 * The README's "Checkout in the browser" walkthrough stays true to the code it names: every `npm run`
 * command is a script of package.json (`npm run admin -- …` included), the reference merchant's default
 * origin is one the demo merchant allows, and the component path is the one the gateway serves. The
 * walkthrough itself runs in test/e2e/checkout-browser.test.ts (same processes, free ports).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_CHECKOUT_ORIGINS } from '../../src/modules/admin/demo-seed.js';
import { CHECKOUT_COMPONENT_PATH } from '../../src/shared/routes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const section = /### Checkout in the browser\n([\s\S]*?)\n##/.exec(readme)?.[1] ?? '';
const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const merchantServer = fs.readFileSync(path.join(ROOT, 'docs/examples/checkout-merchant/server.ts'), 'utf8');

describe('README: Checkout in the browser', () => {
  it('exists and names only npm scripts that exist', () => {
    expect(section.length).toBeGreaterThan(500);
    const used = [...section.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(used).toEqual(expect.arrayContaining(['example:checkout', 'admin']));
    for (const name of used) expect(scripts[name], name).toBeDefined();
    expect(scripts['example:checkout']).toBe('tsx docs/examples/checkout-merchant/server.ts');
  });

  it('opens the merchant page on an origin the demo merchant allows, loading the component from its served path', () => {
    expect(section).toContain('http://127.0.0.1:4100/');
    expect(merchantServer).toMatch(/process\.env\.MERCHANT_PORT \?\? 4100/);
    expect(merchantServer).toMatch(/process\.env\.MERCHANT_HOST \?\? '127\.0\.0\.1'/);
    expect(DEMO_CHECKOUT_ORIGINS).toContain('http://127.0.0.1:4100');
    expect(section).toContain(`http://127.0.0.1:4000${CHECKOUT_COMPONENT_PATH}`);
    expect(merchantServer).toContain('/checkout/v1/checkout.js');
  });
});
