/**
 * Pulling a live stream's steps (src/shared/pull.ts): a waiting stream holds its receiver, no
 * promise chain. The change feed's watcher gives the same steps to a pull as to `next()`, never synchronously
 * inside `pull`, one pull at a time; an event stream over a pullable source pulls it and never calls `next()`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionResult } from 'graphql';
import { Response as PonyfillResponse } from '@whatwg-node/fetch';
import type { FetchAPI } from 'graphql-yoga';
import { ChangeFeed, type ChangeEvent } from '../../src/modules/live/change-feed.js';
import { eventStreamResponse, LiveStreamRegistry } from '../../src/pipeline/live/event-stream.js';
import { isPullSource, type PullReceiver, type PullSource } from '../../src/shared/pull.js';
import { FAKE_FEED_PRINCIPAL, fakeFeedStore } from '../helpers/fake-feed-store.js';

const principal = FAKE_FEED_PRINCIPAL;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Pull one step; fails the test if the step comes synchronously. */
function pullOnce<T>(source: PullSource<T>): Promise<IteratorResult<T>> {
  let synchronous = true;
  const step = new Promise<IteratorResult<T>>((resolve, reject) => {
    source.pull({
      pulled: (s) => (synchronous ? reject(new Error('pulled synchronously')) : resolve(s)),
      pullFailed: reject,
    });
  });
  synchronous = false;
  return step;
}

let feed: ChangeFeed | undefined;
afterEach(() => feed?.shutdown());

describe('pulling the change feed', () => {
  it('gives a pull the steps next() gives: the current state, each change once, the revocation, then the end', async () => {
    /** The same moves, with the watcher's steps taken by `take`. */
    const run = async (mode: 'pull' | 'next') => {
      const { store, change, revoke } = fakeFeedStore();
      const f = new ChangeFeed({ store: store as never, catchUpIntervalMs: 60_000 });
      const watcher = f.watch(principal);
      expect(isPullSource<ChangeEvent>(watcher)).toBe(true);
      const take = () => (mode === 'pull' ? pullOnce(watcher as unknown as PullSource<ChangeEvent>) : watcher.next());
      const steps: IteratorResult<ChangeEvent>[] = [await take()];
      let waiting = take();
      change('v2');
      await turn();
      steps.push(await waiting);
      waiting = take();
      // The same version again reports nothing; the revocation does.
      change('v2');
      await turn();
      revoke();
      await turn();
      steps.push(await waiting, await take());
      f.shutdown();
      return steps.map((s) => (s.done ? 'done' : `${s.value.kind}${s.value.kind === 'changed' ? `@${s.value.version}` : ''}`));
    };
    expect(await run('next')).toEqual(['changed@v1', 'changed@v2', 'revoked', 'done']);
    expect(await run('pull')).toEqual(['changed@v1', 'changed@v2', 'revoked', 'done']);
  });

  it('refuses a second pull while one waits; return() ends a waiting pull', async () => {
    const { store } = fakeFeedStore();
    feed = new ChangeFeed({ store: store as never, catchUpIntervalMs: 60_000 });
    const watcher = feed.watch(principal) as unknown as PullSource<ChangeEvent> & AsyncIterator<ChangeEvent>;
    await pullOnce(watcher);
    const waiting = pullOnce(watcher);
    expect(() => watcher.pull({ pulled: () => undefined, pullFailed: () => undefined })).toThrow(/already waiting/);
    await watcher.return!();
    expect((await waiting).done).toBe(true);
    expect(feed.size).toBe(0);
  });
});

describe('an event stream over a pullable source', () => {
  it('pulls it and never calls next(): each event is delivered, the end completes the stream', async () => {
    const registry = new LiveStreamRegistry({ heartbeatMs: 60_000, maxPendingBytes: 65_536, firstBytesMs: 60_000 });
    const events: ExecutionResult[] = [{ data: { n: 1 } }, { data: { n: 2 } }];
    let pulls = 0;
    const source: AsyncIterableIterator<ExecutionResult> & PullSource<ExecutionResult> = {
      next: () => Promise.reject(new Error('next() must not be called on a pullable source')),
      pull(receiver: PullReceiver<ExecutionResult>) {
        pulls += 1;
        const event = events.shift();
        queueMicrotask(() => receiver.pulled(event ? { done: false, value: event } : { done: true, value: undefined }));
      },
      return: () => Promise.resolve({ done: true, value: undefined }),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    const closed: string[] = [];
    const body = eventStreamResponse(source, { Response: PonyfillResponse } as unknown as FetchAPI, { registry, requestId: 'r', onClose: (end) => closed.push(end), onUnexpected: () => undefined }).body!;
    const text = await new Response(body as ReadableStream).text();
    expect(text).toBe('event: next\ndata: {"data":{"n":1}}\n\nevent: next\ndata: {"data":{"n":2}}\n\nevent: complete\ndata:\n\n');
    expect(pulls).toBe(3);
    expect(closed).toEqual(['complete']);
  });
});
