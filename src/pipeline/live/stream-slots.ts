/**
 * Open event-stream slots (contract §8: `SUBSCRIPTIONS_PER_KEY` per API key;
 * §9: 2 per checkout session), counted in this process, or, with the shared
 * rate-limit store (REDIS_URL), in Redis across every replica.
 *
 * Shared slots: one sorted set per owner (`gateway:streams:key:<apiKeyId>`,
 * `gateway:streams:session:<sessionId>`) whose members are the open streams
 * (a random id each), scored by their lease expiry in ms on the Redis
 * server's clock (so replicas' clocks need not agree).
 * - Taking a slot is one Lua script, atomic in Redis: drop expired members,
 *   count, add the new member if under the limit, and make the set's TTL at
 *   least one lease (an owner with no open stream leaves nothing behind).
 * - The stream's heartbeat renews its lease; its close removes its member
 *   (ZREM). A member whose replica died, or whose ZREM failed, expires with its
 *   lease: a dead replica's streams count against their owner for at most
 *   one lease (default 3 heartbeats, 45 s).
 *
 * Invariants:
 * - Redis trouble never fails or stalls a request: commands go to Redis only
 *   while the store is up (fail fast while disconnected, bounded by the
 *   store's command timeout while unresponsive); a failure marks the store
 *   down, and slots are then decided on this process's own count until its
 *   probe finds Redis again (the rate budgets' fallback).
 * - The local count holds every slot open in this process, however it was
 *   taken, and is what decides while Redis is down; a slot is freed locally
 *   exactly once. A slot taken locally during an outage joins the shared set
 *   at its first heartbeat once Redis is back (the shared count converges on
 *   the streams really open).
 * - Bounds: the local map holds only owners with open streams (entries at 0
 *   are deleted; every entry is an open connection); a Redis set holds at
 *   most `limit` members taken by the script (plus streams that rejoin after
 *   an outage) and expires one lease after its last take or renewal. Owners
 *   are verified principals (an API key or a checkout session), never raw
 *   client input.
 */
import { randomBytes } from 'node:crypto';
import type { Result } from 'ioredis';
import type { SharedRateLimitStore } from '../budgets/rate-limit-budgets.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** See TAKE_SCRIPT: [1, held] when taken, [0, held] when refused. */
    gatewayStreamSlotTake(key: string, member: string, leaseMs: number, limit: number): Result<[number, number], Context>;
    /** See RENEW_SCRIPT. */
    gatewayStreamSlotRenew(key: string, member: string, leaseMs: number): Result<number, Context>;
  }
}

/** The Redis server's clock in ms (scripts are replicated by their effects, so TIME is allowed). */
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])`;
/** The set lives at least one lease past its newest member's (re)start. */
const KEEP_SET = `if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end`;

/** KEYS[1]: the owner's set; ARGV: member, lease ms, limit. */
const TAKE_SCRIPT = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[3]) then return {0, held} end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
${KEEP_SET}
return {1, held + 1}`;

/** KEYS[1]: the owner's set; ARGV: member, lease ms. Re-adds a member that expired or was taken locally: its stream is open. */
const RENEW_SCRIPT = `${NOW_MS}
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
${KEEP_SET}
return 1`;

/** Whose slots: an API key's or a checkout session's (separate budgets). */
export interface SlotOwner {
  kind: 'key' | 'session';
  id: string;
}

/** A slot held by one stream. */
export interface HeldSlot {
  /** Extend the lease (the stream's heartbeat); a no-op without Redis. */
  renew(): void;
  /** Free the slot; true the first time, false after (idempotent). */
  release(): boolean;
}

/** The answer to {@link StreamSlots.take}. */
export type SlotDecision = { taken: true; slot: HeldSlot } | { taken: false; held: number };

/** Options of {@link StreamSlots}. */
export interface StreamSlotsOptions {
  /** The shared rate-limit store (REDIS_URL); absent or null: slots are per process. */
  store?: SharedRateLimitStore | null;
  /** Lease of a shared slot in ms; renewed by every heartbeat, so it must outlast at least two. */
  leaseMs: number;
}

export class StreamSlots {
  /** `kind:id` → slots held in this process. Entries at 0 are deleted. */
  readonly #local = new Map<string, number>();
  readonly #store: SharedRateLimitStore | null;
  readonly #leaseMs: number;
  /**
   * A slot's member in its owner's Redis set (a slot taken locally may be added later, when Redis is back): unique
   * across replicas by a random prefix drawn once per process, and within it by a counter. Not random bytes per
   * slot: a synchronous `randomBytes` per opened stream was 3.6 % of the server's CPU when opening 15,000 pages
   *. A member is no secret: it only tells one stream's slot from another's.
   */
  readonly #memberPrefix = randomBytes(9).toString('base64url');
  #members = 0;

  constructor(options: StreamSlotsOptions) {
    if (!Number.isInteger(options.leaseMs) || options.leaseMs < 1) throw new Error('StreamSlots: leaseMs must be a positive integer');
    this.#leaseMs = options.leaseMs;
    this.#store = options.store ?? null;
    // Sent by EVALSHA, with EVAL when Redis does not know the script yet (after a restart).
    this.#store?.client.defineCommand('gatewayStreamSlotTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.#store?.client.defineCommand('gatewayStreamSlotRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
  }

  /** Slots of `owner` open in this process: what decides while Redis is down or not configured. */
  localCount(owner: SlotOwner): number {
    return this.#local.get(localKey(owner)) ?? 0;
  }

  /**
   * Take one of `owner`'s `limit` slots: synchronous when decided in this process (no Redis configured, or
   * Redis down), a promise when Redis decides. Never rejects.
   */
  take(owner: SlotOwner, limit: number): SlotDecision | Promise<SlotDecision> {
    const store = this.#store;
    if (store === null) return this.#takeLocally(owner, limit);
    if (!store.up) {
      store.countFallback('streams');
      return this.#takeLocally(owner, limit);
    }
    const member = this.#nextMember();
    return store.client.gatewayStreamSlotTake(redisKey(owner), member, this.#leaseMs, limit).then(
      ([taken, held]): SlotDecision => (taken === 1 ? { taken: true, slot: this.#held(owner, member, true) } : { taken: false, held }),
      (err: unknown): SlotDecision => {
        // A take that timed out may still run in Redis later: that member expires with its lease.
        store.markDown(err);
        store.countFallback('streams');
        return this.#takeLocally(owner, limit);
      },
    );
  }

  #takeLocally(owner: SlotOwner, limit: number): SlotDecision {
    const held = this.localCount(owner);
    if (held >= limit) return { taken: false, held };
    return { taken: true, slot: this.#held(owner, this.#nextMember(), false) };
  }

  #nextMember(): string {
    this.#members += 1;
    return `${this.#memberPrefix}.${this.#members}`;
  }

  /** Count a taken slot locally and hand it out. `inRedis`: its member is (or may be) in the shared set. */
  #held(owner: SlotOwner, member: string, inRedis: boolean): HeldSlot {
    const local = localKey(owner);
    this.#local.set(local, (this.#local.get(local) ?? 0) + 1);
    let released = false;
    return {
      renew: () => {
        const store = this.#store;
        if (released || store === null || !store.up) return;
        // Sent: even if its answer is lost, the member may be in the set now, so the close must remove it.
        inRedis = true;
        store.client.gatewayStreamSlotRenew(redisKey(owner), member, this.#leaseMs).catch((err: unknown) => store.markDown(err));
      },
      release: () => {
        if (released) return false;
        released = true;
        const left = (this.#local.get(local) ?? 1) - 1;
        if (left > 0) this.#local.set(local, left);
        else this.#local.delete(local);
        const store = this.#store;
        // Redis down: the member expires with its lease (sending now would fail at once or stall nothing but itself).
        if (inRedis && store !== null && store.up) store.client.zrem(redisKey(owner), member).catch((err: unknown) => store.markDown(err));
        return true;
      },
    };
  }
}

function localKey(owner: SlotOwner): string {
  return `${owner.kind}:${owner.id}`;
}

function redisKey(owner: SlotOwner): string {
  return `gateway:streams:${owner.kind}:${owner.id}`;
}
