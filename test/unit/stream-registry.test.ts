/**
 * One heartbeat timer per process (contract §8b): however many event streams are open, the registry runs one
 * interval; it writes the heartbeat to every idle stream, and stops with the last stream.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExecutionResult } from 'graphql';
import { Response as PonyfillResponse } from '@whatwg-node/fetch';
import type { FetchAPI } from 'graphql-yoga';
import { eventStreamResponse, FIRST_BYTES_MS, LiveStreamRegistry } from '../../src/pipeline/live/event-stream.js';

/** A source that never yields until returned. */
function silent(): AsyncIterable<ExecutionResult> {
  let release: (() => void) | undefined;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => new Promise<IteratorResult<ExecutionResult>>((resolve) => (release = () => resolve({ done: true, value: undefined }))),
      return: () => {
        release?.();
        return Promise.resolve({ done: true as const, value: undefined });
      },
    }),
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('LiveStreamRegistry', () => {
  it('runs ONE interval for 200 streams, heartbeats each of them, and stops with the last', async () => {
    vi.useFakeTimers();
    const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const registry = new LiveStreamRegistry({ heartbeatMs: 15_000, maxPendingBytes: 65_536 });
    const fetchAPI = { Response: PonyfillResponse } as unknown as FetchAPI;
    const heartbeats: number[] = Array(200).fill(0);
    const closed: string[] = [];
    const readers = Array.from({ length: 200 }, (_, i) =>
      eventStreamResponse(silent(), fetchAPI, { registry, requestId: `r${i}`, onHeartbeat: () => (heartbeats[i]! += 1), onClose: (end) => closed.push(end), onUnexpected: () => undefined }).body!.getReader(),
    );
    expect(registry.size).toBe(200);
    expect(registry.ticking).toBe(true);
    expect(setIntervalSpy).toHaveBeenCalledTimes(1);
    // A stream with no first event yet sends its headers with a comment after FIRST_BYTES_MS (one timer for
    // all of them); then one heartbeat per interval.
    expect(setTimeoutSpy).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(FIRST_BYTES_MS);
    for (const r of readers) expect(new TextDecoder().decode((await r.read()).value)).toBe(': heartbeat\n\n');
    await vi.advanceTimersByTimeAsync(15_000 - FIRST_BYTES_MS);
    expect(heartbeats.every((n) => n === 1)).toBe(true);
    for (const r of readers) expect(new TextDecoder().decode((await r.read()).value)).toBe(': heartbeat\n\n');
    for (const r of readers) await r.cancel();
    expect(closed).toHaveLength(200);
    expect(registry.size).toBe(0);
    expect(registry.ticking).toBe(false);
  });
});

describe('first bytes', () => {
  it('sends a stream\'s first event as its first bytes (no comment before it), and nothing else is waiting', async () => {
    const registry = new LiveStreamRegistry({ heartbeatMs: 15_000, maxPendingBytes: 65_536, firstBytesMs: 60_000 });
    const fetchAPI = { Response: PonyfillResponse } as unknown as FetchAPI;
    async function* once(): AsyncIterable<ExecutionResult> {
      yield { data: { n: 1 } };
      await new Promise(() => undefined);
    }
    const reader = eventStreamResponse(once(), fetchAPI, { registry, requestId: 'r', onClose: () => undefined, onUnexpected: () => undefined }).body!.getReader();
    // The first-bytes timer is a minute here: the first read can only be the event itself.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: next\ndata: {"data":{"n":1}}\n\n');
    await reader.cancel();
    expect(registry.size).toBe(0);
  });
});
