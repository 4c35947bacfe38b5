/** The GraphQL execution context. */
import type { Principal } from './http/request-state.js';
import type { ChannelService } from './services/channels.js';
import type { FeeService } from './services/fees.js';

/** Services, built once per process. */
export interface Services {
  channels: ChannelService;
  fees: FeeService;
}

/** What every resolver receives. `principal` is always set: execution never starts unauthenticated. */
export interface GraphQLContext {
  principal: Principal;
  services: Services;
  requestId: string;
}
