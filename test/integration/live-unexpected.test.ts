/**
 * Contract §4 for live events: an unexpected failure inside an event's execution is masked ("Unexpected
 * error.", INTERNAL_ERROR, the stream's request id) and logged once with that request id and the original,
 * while the rest of the event is sent. Events are masked by the live-streams plugin itself (they bypass
 * envelop's result hooks: shared-executions.ts LIVE_EVENTS), so this is what proves they still are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { openEventStream } from '../helpers/sse.js';

let t: TestApp;
const logLines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ logLines });
});
afterAll(async () => {
  await t?.close();
});

describe('an unexpected failure in a live event', () => {
  it('is masked in the event, with the request id, and logged with its original', async () => {
    const channels = t.app.services.channels;
    const nameOf = channels.nameOf.bind(channels);
    channels.nameOf = (principal, channel, requested) => {
      if (channel.code === 'ovo') throw new TypeError('name table broken (test)');
      return nameOf(principal, channel, requested);
    };
    try {
      const stream = await openEventStream('subscription { paymentChannelsChanged { code name } }', { as: t.approved, fetch: t.streamFetch });
      expect(stream.status).toBe(200);
      await stream.waitFor((s) => s.events.some((e) => e.event === 'next'), 3000, 'the first event');
      const event = stream.results()[0];
      await stream.close();
      const requestId = stream.headers.get('x-request-id');
      expect(event.errors).toEqual([{ message: 'Unexpected error.', path: ['paymentChannelsChanged', expect.any(Number), 'name'], extensions: { code: 'INTERNAL_ERROR', requestId } }]);
      // The failing channel (its name is non-null) is null in the list; its original never reaches the client.
      expect(JSON.stringify(event)).not.toContain('name table broken');
      const logged = logLines.map((l) => JSON.parse(l) as { msg: string; requestId?: string; err?: { message: string } }).filter((l) => l.msg === 'stream event failed unexpectedly');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ requestId, err: { message: 'name table broken (test)' } });
    } finally {
      channels.nameOf = nameOf;
    }
  });
});
