/**
 * GraphQL abuse limits: bounded documents and bounded execution.
 *
 * - token, depth, alias and cost limits from graphql-armor: a document over a
 *   limit is rejected before execution (parse / validation error, which the
 *   error normaliser codes INVALID_REQUEST with HTTP 400);
 * - "Did you mean …" suggestions removed from every error message, so the
 *   schema cannot be mapped by typo probing (armor's plugin covers
 *   validation; the result hook below also covers variable coercion);
 * - a per-request execution timeout: an execution still running at the
 *   deadline is answered with SERVICE_UNAVAILABLE (503) and its late result
 *   dropped.
 *
 * Batching is off in the Yoga options and introspection needs a signature
 * like every other operation (useSignatureAuth runs first).
 */
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { answerError } from '../error-normalizer.js';
import type { Plugin } from 'graphql-yoga';

/** Limits of {@link useAbuseLimits}; every value must be a positive integer. */
export interface AbuseLimitOptions {
  /** Most lexical tokens in one document. */
  maxTokens: number;
  /** Deepest field nesting (introspection is exempt: it is authenticated and fixed-shape). */
  maxDepth: number;
  /** Most aliases in one operation. */
  maxAliases: number;
  /** Highest armor cost (objects 2, scalars 1, ×1.5 per level). */
  maxCost: number;
  /** Wall-clock budget of one execution in milliseconds. */
  executionTimeoutMs: number;
}

export const DEFAULT_ABUSE_LIMITS: AbuseLimitOptions = {
  maxTokens: 1000,
  maxDepth: 8,
  maxAliases: 15,
  maxCost: 5000,
  executionTimeoutMs: 5000,
};

const SUGGESTION = /\s*Did you mean[^?]*\?/g;

/** The message without graphql-js "Did you mean …?" hints. */
export function withoutSuggestions(message: string): string {
  return message.replace(SUGGESTION, '').trim();
}

function timeoutError(ms: number): GraphQLError {
  return answerError(`The operation did not complete within ${ms} ms; retry later.`, {
    extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503 } },
  });
}

/** Execution wrapped in a deadline; the executor stops resolving fields once the signal aborts. */
function useExecutionTimeout(ms: number): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((execArgs) => {
        // envelop declares execute as returning `any`; it is graphql-js's result, or a promise of one.
        const result = executeFn(execArgs) as ExecutionResult | Promise<ExecutionResult>;
        // A synchronous result is already complete: nothing to time out. This is the common case (graphql-jit
        // over synchronous resolvers), and arming nothing keeps the hot path free of per-request timers,
        // AbortControllers and `request.signal` (an AbortController per request on the Node transport, src/pipeline/transport/node-request.ts).
        if (!(result instanceof Promise)) return result;
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<ExecutionResult>((resolve) => {
          timer = setTimeout(() => resolve({ errors: [timeoutError(ms)] }), ms);
        });
        // The answer is sent at the deadline; the executor (graphql-jit honours no abort signal) finishes in the
        // background and its late result is dropped. Operations are read-only, so nothing is left half-done.
        return Promise.race([result, timedOut]).finally(() => clearTimeout(timer));
      });
    },
  };
}

/** Removes suggestions that graphql-js adds outside validation (variable coercion). */
function useHiddenSuggestions(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map(scrub) } as typeof result);
    },
  };
}

function scrub(error: GraphQLError): GraphQLError {
  const message = withoutSuggestions(error.message);
  if (message === error.message) return error;
  return answerError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: error.extensions,
  });
}

/**
 * The abuse-limit plugins. Place after authentication: nothing here should
 * cost an unauthenticated caller anything.
 */
export function useAbuseLimits(limits: AbuseLimitOptions = DEFAULT_ABUSE_LIMITS): Plugin {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) throw new Error(`useAbuseLimits: ${name} must be a positive integer`);
  }
  // armor prefixes every rejection with "Syntax Error: "; the documents are syntactically fine.
  const onReject = [(_ctx: unknown, error: GraphQLError) => void (error.message = error.message.replace(/^Syntax Error: /, ''))];
  const plugins: Plugin[] = [
    maxTokensPlugin({ n: limits.maxTokens, onReject }),
    maxDepthPlugin({ n: limits.maxDepth, ignoreIntrospection: true, onReject }),
    // armor exempts `__typename` aliases by default, so `{ a0: __typename … a199: __typename }` passed the limit:
    // each alias is a response key the server builds, whatever the field, so every alias counts.
    maxAliasesPlugin({ n: limits.maxAliases, allowList: [], onReject }),
    costLimitPlugin({ maxCost: limits.maxCost, ignoreIntrospection: true, onReject }),
    blockFieldSuggestionsPlugin({ mask: '' }),
    useHiddenSuggestions(),
    useExecutionTimeout(limits.executionTimeoutMs),
  ];
  return {
    onPluginInit({ addPlugin }) {
      for (const p of plugins) addPlugin(p);
    },
  };
}
