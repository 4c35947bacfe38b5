/**
 * `Subscription.paymentChannelsChanged` (contract §8): the merchant's
 * channel list on open and after every change of it.
 *
 * `subscribe` turns the change feed (src/modules/live/change-feed.ts) into payloads;
 * `resolve` builds the list exactly as `Query.paymentChannels` does (the same
 * service call with the same filter), so both always agree. Suppressing
 * events that would not change what the client selected is the event
 * stream's job (src/pipeline/live/event-stream.ts).
 */
import type { ChangeEvent } from '../modules/live/change-feed.js';
import type { SubscriptionPaymentChannelsChangedArgs, SubscriptionResolvers } from './generated.js';
import type { GraphQLContext } from './context.js';
import { AppError } from '../shared/errors.js';

/** What the subscription's source yields: a feed event. */
export type ChannelsChangedPayload = ChangeEvent;

export const paymentChannelsChanged: NonNullable<SubscriptionResolvers['paymentChannelsChanged']> = {
  subscribe: (_parent, { filter }, ctx) => {
    // A bad filter fails the request before any stream opens (INVALID_REQUEST, no event stream). Without a
    // filter there is nothing to check (the list is the key's, or the session's own): a checkout page opens
    // without one, and this list was a second one per page opened (≥ 1,500 pages a second).
    if (filter != null) ctx.services.channels.search(ctx.principal, filter);
    return ctx.services.changes.watch(ctx.principal);
  },
  resolve: (payload: ChannelsChangedPayload, { filter }: SubscriptionPaymentChannelsChangedArgs, ctx: GraphQLContext) => {
    if (payload.kind === 'expired') throw new AppError('SESSION_EXPIRED', 'The checkout session of this stream expired; the stream ends.');
    if (payload.kind === 'revoked') {
      if (ctx.principal.session) throw new AppError('SESSION_INVALID', 'The checkout session of this stream ended (its API key was revoked); the stream ends.');
      throw new AppError('INVALID_API_KEY', 'The API key of this stream was revoked; the stream ends.');
    }
    // A stream outlives the state it was opened with: the fields of this event (availability, KYC gating)
    // must see the key's merchant as it is now, so the stream's context follows the feed's principal.
    ctx.principal = payload.principal;
    return ctx.services.channels.search(ctx.principal, filter);
  },
};
