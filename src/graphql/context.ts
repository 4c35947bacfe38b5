/** The GraphQL execution context. */
import type { Principal } from '../modules/auth/principal.js';
import type { ChangeFeed } from '../modules/live/change-feed.js';
import type { ChannelService } from '../modules/channels/service.js';
import type { FeeService } from '../modules/pricing/service.js';
import type { InstructionService } from '../modules/channels/instructions.js';
import type { SessionService } from '../modules/sessions/service.js';
import type { QuoteService } from '../modules/quotes/service.js';

/** Services, built once per process. */
export interface Services {
  channels: ChannelService;
  fees: FeeService;
  /** Payment instructions (contract §14): rendered per request, kept per (set, language, values). */
  instructions: InstructionService;
  /** Change notifications per API key, for subscriptions (contract §8). */
  changes: ChangeFeed;
  /** Checkout sessions (contract §9). */
  sessions: SessionService;
  /** Fee quotes (contract §11): signing, verification, the published keys. */
  quotes: QuoteService;
}

/**
 * What every resolver receives. `principal` is always set: execution never starts unauthenticated. A
 * subscription's context lives as long as its stream; its `principal` is replaced by the key's current one
 * before every event (src/graphql/subscriptions.ts).
 */
export interface GraphQLContext {
  principal: Principal;
  services: Services;
  requestId: string;
  /**
   * Say that this answer depends on the clock, not only on the data (a quote expires; a new one is signed per
   * request): it must never be kept and replayed by the answer cache.
   */
  answerDependsOnClock(): void;
}
