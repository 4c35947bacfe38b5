/**
 * Comparing a live event with the matching query's answer (tests of live updates): the subscription
 * document made a query, and both answers in one comparable form.
 */
import type { EventStreamReader } from './sse.js';

/** The query asking what a subscription asks (`paymentChannelsChanged` read as `paymentChannels`). */
export const queryOf = (subscription: string): string => subscription.replace(/^subscription/, 'query').replace('paymentChannelsChanged', 'paymentChannels');

/**
 * An answer with its root read as `root` (an alias or either field name), the request id dropped from its errors
 * (each request has its own) and only whether an error has locations kept (the two documents differ in text).
 */
export function comparable(result: any): unknown {
  const data = result.data ? { root: Object.values(result.data)[0] } : result.data;
  const errors = result.errors?.map((e: any) => {
    const { requestId: _r, ...extensions } = e.extensions ?? {};
    return { ...e, path: e.path ? ['root', ...e.path.slice(1)] : e.path, extensions, locations: e.locations === undefined ? undefined : 'present' };
  });
  return { data, ...(errors ? { errors } : {}) };
}

/** `next` events a stream got so far. */
export const nexts = (s: EventStreamReader): number => s.events.filter((e) => e.event === 'next').length;
