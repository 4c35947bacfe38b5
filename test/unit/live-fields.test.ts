/**
 * The classification the event templates rest on (src/graphql/live-fields.ts): every field of the
 * live list's item type says whether a stream's own amount can change it. A field added to the schema fails
 * here until it is classified, so it is never templated by accident.
 */
import { isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/graphql/schema.js';
import { LIVE_LIST, PAYMENT_FIELDS, SCOPE_FIELDS } from '../../src/graphql/live-fields.js';

describe('live-fields: what a live event answer depends on', () => {
  const schema = buildSchema();
  const item = schema.getType(LIVE_LIST.itemType);

  it('names the subscription field and its list item type', () => {
    expect(schema.getSubscriptionType()?.getFields()[LIVE_LIST.field]).toBeDefined();
    expect(isObjectType(item)).toBe(true);
  });

  it('classifies every field of the item exactly once, and names no field that does not exist', () => {
    const fields = Object.keys(isObjectType(item) ? item.getFields() : {});
    for (const f of fields) expect([PAYMENT_FIELDS.has(f), SCOPE_FIELDS.has(f)], f).toSatisfy(([a, b]: boolean[]) => a !== b);
    for (const f of [...PAYMENT_FIELDS, ...SCOPE_FIELDS]) expect(f === '__typename' || fields.includes(f), f).toBe(true);
  });
});
