/**
 * The order of the pipeline's plugins, declared as data. Yoga runs each hook kind (onRequest, onResponse,
 * …) in plugin-list order, so where two plugins must meet in a given order that is a constraint here, with
 * its reason; createApp checks its list against every constraint once, at start, and refuses a list that
 * breaks one (test/integration/plugin-order.test.ts).
 */

/** `before` must come ahead of `after` in the plugin list. */
export interface OrderConstraint {
  before: string;
  after: string;
  why: string;
}

export const ORDER_CONSTRAINTS: readonly OrderConstraint[] = [
  {
    before: 'answerCacheStore',
    after: 'httpCaching',
    why: 'the answer cache keeps a fresh success in its onResponse before the ETag plugin can turn it into a 304',
  },
  {
    before: 'answerCacheStore',
    after: 'requestContext',
    why: 'the answer cache keeps a fresh success before the request context adds the request id to it (a kept answer must not carry one request’s id)',
  },
  {
    before: 'addressGate',
    after: 'httpCaching',
    why: 'the failed-authentication budget turns a 401 past the budget into 429 before any other hook sees the status',
  },
  {
    before: 'addressGate',
    after: 'requestContext',
    why: 'the request log line and the error code must describe the 429 the client gets, not the 401 it replaced',
  },
  {
    before: 'addressGate',
    after: 'metrics',
    why: 'http_requests_total counts the status the client gets (429), not the 401 it replaced',
  },
  {
    before: 'addressGate',
    after: 'tracing',
    why: 'a SERVER span names the error code the client gets (429 RATE_LIMITED), not the 401 it replaced',
  },
  {
    before: 'httpCaching',
    after: 'requestContext',
    why: 'a 304 is decided before the request log line and X-Request-Id are written, so both describe the 304',
  },
  {
    before: 'answerCacheStore',
    after: 'securityHeaders',
    why: 'the answer cache replaces the response it keeps in onResponse: the replacement is the answer sent and must get the headers',
  },
  {
    before: 'addressGate',
    after: 'securityHeaders',
    why: 'the 429 that replaces a 401 past the address budget is the answer sent: it must carry nosniff and the policy',
  },
  {
    before: 'httpCaching',
    after: 'securityHeaders',
    why: 'the 304 the ETag plugin substitutes is the answer sent: it must carry nosniff and the page or API policy',
  },
  {
    before: 'requestContext',
    after: 'signature',
    why: 'the request context begins the request state (id, raw target, surface) that the signature is checked against',
  },
  {
    before: 'requestContext',
    after: 'checkoutCors',
    why: 'a preflight answered by the CORS plugin is logged and carries a request id like every request',
  },
  {
    before: 'checkoutCors',
    after: 'signature',
    why: 'a browser preflight carries no credentials: it is answered before authentication, and the CORS headers of an answer are decided from what authentication recorded',
  },
  {
    before: 'signature',
    after: 'keyLimit',
    why: 'the per-key budget is the verified key’s: a forged request never spends another key’s budget',
  },
  {
    before: 'keyLimit',
    after: 'answerCacheLookup',
    why: 'a kept answer is only given to a verified caller who spent a token of its budget',
  },
  {
    before: 'keyLimit',
    after: 'liveStreams',
    why: 'opening an event stream is a verified request that spent a token',
  },
  {
    before: 'keyLimit',
    after: 'costBudget',
    why: 'a request spends its first work unit before anything is parsed, the rest of its cost once its document is known (the same budget)',
  },
  {
    before: 'costBudget',
    after: 'jit',
    why: 'a request past its budget or over a session’s cost ceiling is refused before the compiled execution is even looked up',
  },
  {
    before: 'answerCacheLookup',
    after: 'restAdapter',
    why: 'a kept REST answer is served by its path before the REST adapter rewrites the request into its GraphQL operation',
  },
  {
    before: 'signature',
    after: 'restAdapter',
    why: 'REST requests are rewritten only once authenticated: no surface skips authentication',
  },
  {
    before: 'jit',
    after: 'abuseLimits',
    why: 'the execution timeout wraps whatever execute function is current when its hook runs, so it must wrap the JIT’s',
  },
];

/** Every broken constraint of a plugin list, worded for the error (empty: the order is right). */
export function orderViolations(names: readonly string[], constraints: readonly OrderConstraint[] = ORDER_CONSTRAINTS): string[] {
  const position = new Map(names.map((name, i) => [name, i]));
  const problems: string[] = [];
  for (const c of constraints) {
    const before = position.get(c.before);
    const after = position.get(c.after);
    if (before === undefined || after === undefined) {
      problems.push(`constraint ${c.before} → ${c.after} names a plugin that is not in the list`);
    } else if (before > after) {
      problems.push(`${c.before} must come before ${c.after}: ${c.why}`);
    }
  }
  return problems;
}

/** Throws, naming every broken constraint, unless the list satisfies them all. */
export function assertPluginOrder(names: readonly string[], constraints: readonly OrderConstraint[] = ORDER_CONSTRAINTS): void {
  const problems = orderViolations(names, constraints);
  if (problems.length > 0) throw new Error(`plugin order: ${problems.join('; ')}`);
}
