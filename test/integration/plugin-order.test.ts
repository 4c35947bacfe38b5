/**
 * The plugin order is data (src/app/pipeline-order.ts): the real list satisfies every constraint, a list
 * that breaks one is refused with the reason, and every constraint names plugins the pipeline has.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { assertPluginOrder, ORDER_CONSTRAINTS, orderViolations } from '../../src/app/pipeline-order.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** The names of the app's pipeline, in order, as createApp built it. */
function pipelineNames(app: App): string[] {
  return app.pluginNames.slice();
}

let t: TestApp;
afterAll(async () => {
  await t?.close();
});

describe('the plugin order', () => {
  it('the pipeline createApp builds satisfies every constraint, and every constraint names one of its plugins', async () => {
    t = await createTestApp();
    const names = pipelineNames(t.app);
    expect(orderViolations(names)).toEqual([]);
    for (const c of ORDER_CONSTRAINTS) {
      expect(names, `${c.before} → ${c.after}`).toContain(c.before);
      expect(names, `${c.before} → ${c.after}`).toContain(c.after);
      expect(c.why.length).toBeGreaterThan(20);
    }
  });

  it('refuses a list that breaks a constraint, naming it and its reason', () => {
    const names = pipelineNames(t.app);
    for (const c of ORDER_CONSTRAINTS) {
      const swapped = names.slice();
      const i = swapped.indexOf(c.before);
      const j = swapped.indexOf(c.after);
      [swapped[i], swapped[j]] = [swapped[j]!, swapped[i]!];
      expect(() => assertPluginOrder(swapped)).toThrow(`${c.before} must come before ${c.after}: ${c.why}`);
    }
  });

  it('refuses a constraint that names no plugin of the list', () => {
    expect(orderViolations(['a', 'b'], [{ before: 'a', after: 'nowhere', why: 'x' }])).toEqual(['constraint a → nowhere names a plugin that is not in the list']);
  });
});
