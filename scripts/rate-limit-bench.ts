/**
 * Micro-benchmark of the rate limiter's per-request cost on the memory store (`npx tsx
 * scripts/rate-limit-bench.ts`): the hooks a successful signed request runs — the per-key limit's
 * onRequest and the address budget's hooks — driven directly, as the pipeline calls them, for 100 API
 * keys round-robin, with limits that never refuse. Prints ns per request (median of 5 rounds).
 *
 * It uses only the plugin factory and the request state, so the same file also runs on an older tree
 * (the hand-written token buckets) for a before/after figure.
 */
import pino from 'pino';
import { initRequestState } from '../src/pipeline/request-state.js';
import { useRateLimit } from '../src/pipeline/plugins/use-rate-limit.js';

type Hook = (payload: unknown) => unknown;

const ROUNDS = 5;
const PER_ROUND = 200_000;
const KEYS = 100;

async function main(): Promise<void> {
  const options = { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9 };
  // The second argument is ignored by trees whose useRateLimit takes one.
  const plugins = (useRateLimit as unknown as (o: typeof options, env: unknown) => Record<string, Record<string, Hook | undefined>>)(options, { logger: pino({ level: 'silent' }) });
  const { addressGate, keyLimit } = plugins as { addressGate: Record<string, Hook | undefined>; keyLimit: Record<string, Hook | undefined> };

  // One prepared request per key (the pipeline builds these per request anyway; not what is measured).
  const requests = Array.from({ length: KEYS }, (_, i) => {
    const serverContext: Record<string, unknown> = { req: { socket: { remoteAddress: `10.0.${i >> 8}.${i & 255}` } } };
    const state = initRequestState(serverContext, { method: 'GET', headers: { get: () => null } }, '/v1/payments/channel');
    state.surface = 'rest';
    state.principal = { apiKeyId: `pk_test_${i}`, mode: 'test', merchantId: `m${i}`, merchantKyc: 'approved' };
    const request = { method: 'GET', headers: { get: () => null } };
    const endResponse = () => {
      throw new Error('benchmark limits must never refuse');
    };
    return {
      onRequest: { request, serverContext, endResponse, fetchAPI: { Response } },
      onResponse: { request, serverContext, response: { status: 200 }, setResponse: endResponse, fetchAPI: { Response } },
    };
  });

  const hooks: [Hook, 'onRequest' | 'onResponse'][] = [];
  if (addressGate.onRequest) hooks.push([addressGate.onRequest.bind(addressGate), 'onRequest']);
  if (keyLimit.onRequest) hooks.push([keyLimit.onRequest.bind(keyLimit), 'onRequest']);
  if (addressGate.onResponse) hooks.push([addressGate.onResponse.bind(addressGate), 'onResponse']);

  const perRequestNs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++) {
      const r = requests[i % KEYS]!;
      // As the pipeline does (@whatwg-node/promise-helpers): await only what returns a promise.
      for (const [hook, kind] of hooks) {
        const pending = hook(r[kind]);
        if (pending instanceof Promise) await pending;
      }
    }
    perRequestNs.push(Number(process.hrtime.bigint() - started) / PER_ROUND);
  }
  perRequestNs.sort((a, b) => a - b);
  const median = perRequestNs[Math.floor(ROUNDS / 2)]!;
  process.stdout.write(`rate limiter, memory store: ${median.toFixed(0)} ns per request (median of ${ROUNDS} × ${PER_ROUND}; rounds ${perRequestNs.map((n) => n.toFixed(0)).join(', ')} ns)\n`);
}

void main();
