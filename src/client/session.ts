/**
 * The browser-safe session client (contract §9): everything a checkout page or app may do with a checkout
 * session's client secret, and nothing that needs an API secret. The merchant's server creates the session
 * (`createClient(…).createCheckoutSession`) and hands only `clientSecret` to the browser.
 *
 * ```ts
 * const session = createSessionClient({ baseUrl: 'http://127.0.0.1:4000', clientSecret });
 * const { checkoutSession } = await session.graphql<{ checkoutSession: { amount: number } }>('{ checkoutSession { amount } }');
 * const stop = session.subscribeChannels('code status', { next: (channels) => render(channels), error: show });
 * ```
 *
 * Queries are `POST /graphql` with `Authorization: Bearer <clientSecret>`; the subscription runs over
 * Server-Sent Events through The Guild's graphql-sse client ("distinct connections" mode, the protocol
 * GraphQL Yoga serves). A refusal the server states (401 SESSION_EXPIRED / SESSION_INVALID, 403
 * SESSION_SCOPE / ORIGIN_NOT_ALLOWED, a 400) ends the subscription at once with a {@link GatewayError};
 * only a lost connection, a 408, a 429 or a 5xx is retried (growing, jittered delays that honour Retry-After: reconnectDelayMs; `retryAttempts`).
 */
import { createClient as createSseClient, type Client as SseClient } from 'graphql-sse';
import { channelListTarget, instructionsTarget, type Channel, type ChannelListFilter, type InstructionsQuery, type PaymentInstructions } from './wire.js';
import { graphqlData, restError, type GraphQLErrorPayload } from './errors.js';
import { documentText, type TypedDocument } from './typed-document.js';

/** Options of {@link createSessionClient}. */
export interface SessionClientOptions {
  /** The gateway, e.g. `http://127.0.0.1:4000` (its origin is used). */
  baseUrl: string;
  /** The session's client secret (`cs_…_secret_…`), as the merchant's server received it. */
  clientSecret: string;
  /** fetch implementation; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Reconnections of a subscription after a lost connection, a 429 or a 5xx; default 5. */
  retryAttempts?: number;
}

/** Callbacks of a subscription. */
export interface SubscriptionHandlers<T> {
  /** Every event's data (the first event is the current state), with the errors of fields that resolved to null. */
  next(data: T, fieldErrors: GraphQLErrorPayload[]): void;
  /** The subscription ended with an error (a {@link GatewayError} when the server stated one). */
  error?(error: unknown): void;
  /** The server ended the stream (e.g. the session expired or its key was revoked). */
  complete?(): void;
}

/** What a session may do. */
export interface SessionClient {
  /** `POST /graphql` with the session; resolves with `data`, rejects with a GatewayError on any error. */
  graphql<TData = Record<string, unknown>>(query: string, variables?: Record<string, unknown>): Promise<TData>;
  /** The same with a typed document (`TypedDocumentNode`, or graphql-codegen's `TypedDocumentString`). */
  graphql<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, variables?: TVariables): Promise<TResult>;
  /** `GET /v1/payments/channel` with the session: the session's channels (seed field names), narrowed by `filter`. */
  listChannels(filter?: ChannelListFilter): Promise<Channel[]>;
  /** `GET /v1/payments/instruction` with the session: one of its channels' instructions, with its amount and locale by default. */
  getInstructions(query: InstructionsQuery): Promise<PaymentInstructions>;
  /** Any GraphQL subscription over SSE; returns the function that stops it. */
  subscribe<TData = Record<string, unknown>>(query: string, variables: Record<string, unknown> | undefined, handlers: SubscriptionHandlers<TData>): () => void;
  /**
   * `subscription { paymentChannelsChanged { <selection> } }`: the session's channels now, then again after
   * every change (judged against the session's amount and currency). Returns the function that stops it.
   */
  subscribeChannels<TChannel = Record<string, unknown>>(selection: string, handlers: SubscriptionHandlers<TChannel[]>): () => void;
  /** Stops every subscription of this client. */
  dispose(): void;
}

/** Statuses a subscription retries (graphql-sse's NetworkError): 408, 429 and 5xx; any other refusal is final. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The longest wait between two reconnection attempts, ms. */
export const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * How long to wait before reconnection attempt `retries` (0 for the first), in ms (contract §8b): growing
 * (1 s, 2 s, 4 s… up to {@link MAX_RECONNECT_DELAY_MS}) and jittered (between half and all of that), so the
 * thousands of pages a dead replica leaves behind do not all come back in the same instant; never sooner
 * than the server's `Retry-After` (seconds), plus up to a second of jitter for the same reason.
 */
export function reconnectDelayMs(retries: number, retryAfterSeconds?: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_RECONNECT_DELAY_MS, 1000 * 2 ** Math.max(0, retries));
  const grown = base / 2 + random() * (base / 2);
  const stated = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? Math.min(retryAfterSeconds, 3600) * 1000 + random() * 1000 : 0;
  return Math.round(Math.max(grown, stated));
}

/** `Retry-After` in seconds (the delta-seconds form; an HTTP date counts from now), or undefined. */
function retryAfterOf(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

export function createSessionClient(options: SessionClientOptions): SessionClient {
  const { clientSecret } = options;
  if (!clientSecret) throw new TypeError('createSessionClient: clientSecret is required');
  let origin: string;
  try {
    origin = new URL(options.baseUrl).origin;
  } catch {
    throw new TypeError(`createSessionClient: baseUrl is not a URL: ${options.baseUrl}`);
  }
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const authorization = `Bearer ${clientSecret}`;
  const endpoint = `${origin}/graphql`;

  /** Stops of the open subscriptions, for dispose(). */
  const open = new Set<() => void>();

  /**
   * One graphql-sse client per subscription ("distinct connections"), so a refusal belongs to its own
   * subscription: graphql-sse treats any failed fetch as a lost connection and retries it, so a stated
   * refusal is kept aside and the retry hook ends the subscription with it instead of retrying.
   */
  function sseClient(): { client: SseClient; refusal: () => Error | undefined } {
    let refusal: Error | undefined;
    /** The `Retry-After` of the last refused attempt (429, 503: a full replica or no replica ready). */
    let retryAfter: number | undefined;
    const client = createSseClient({
      url: endpoint,
      headers: { authorization },
      retryAttempts: options.retryAttempts ?? 5,
      fetchFn: async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await doFetch(input, init);
        retryAfter = res.ok ? undefined : retryAfterOf(res);
        if (res.ok || retryableStatus(res.status)) return res;
        // A non-2xx answer always rejects (with a GatewayError unless its body could not be read).
        refusal = await graphqlData<never>(res).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        throw refusal;
      },
      retry: async (retries: number) => {
        if (refusal !== undefined) throw refusal;
        // Growing, jittered, and never before the server's Retry-After (contract §8b).
        await new Promise((resolve) => setTimeout(resolve, reconnectDelayMs(retries, retryAfter)));
      },
    });
    return { client, refusal: () => refusal };
  }

  function subscribe<TData>(query: string, variables: Record<string, unknown> | undefined, handlers: SubscriptionHandlers<TData>): () => void {
    const sse = sseClient();
    let unsubscribe = (): void => {};
    let done = false;
    const stop = () => {
      done = true;
      open.delete(stop);
      unsubscribe();
      sse.client.dispose();
    };
    const fail = (err: unknown) => {
      if (done) return;
      stop();
      // Without retries graphql-sse reports the refusal wrapped as a NetworkError: report the refusal itself.
      handlers.error?.(sse.refusal() ?? err);
    };
    open.add(stop);
    unsubscribe = sse.client.subscribe<TData>(
      { query, ...(variables ? { variables } : {}) },
      {
        next(result) {
          if (done) return;
          if (result.data == null) {
            // No data at all: the first error's contract code, the same conversion as a query's answer.
            const body = JSON.stringify({ data: null, errors: result.errors ?? [] });
            graphqlData(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })).catch(fail);
            return;
          }
          // Partial data is data: a field that could not be resolved (a channel that cannot price the
          // amount) is null with its error, and the rest of the event holds.
          const fieldErrors = (result.errors ?? []).map((e): GraphQLErrorPayload => ({ message: e.message, path: e.path ? [...e.path] : undefined, extensions: { ...e.extensions } }));
          handlers.next(result.data, fieldErrors);
        },
        error: fail,
        complete() {
          if (done) return;
          stop();
          handlers.complete?.();
        },
      },
    );
    return stop;
  }

  return {
    async graphql<TData>(document: string | TypedDocument<TData, unknown>, variables?: unknown): Promise<TData> {
      const query = documentText(document);
      const res = await doFetch(endpoint, {
        method: 'POST',
        headers: { authorization, accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify(variables ? { query, variables } : { query }),
      });
      return graphqlData<TData>(res);
    },
    async listChannels(filter) {
      const res = await doFetch(`${origin}${channelListTarget(filter)}`, { headers: { authorization, accept: 'application/json' } });
      if (!res.ok) throw await restError(res);
      return ((await res.json()) as { data: Channel[] }).data;
    },
    async getInstructions(query) {
      const res = await doFetch(`${origin}${instructionsTarget(query)}`, { headers: { authorization, accept: 'application/json' } });
      if (!res.ok) throw await restError(res);
      const body = (await res.json()) as { data: PaymentInstructions['sections']; unfilled: string[] };
      return { sections: body.data, unfilled: body.unfilled };
    },
    subscribe,
    subscribeChannels<TChannel>(selection: string, handlers: SubscriptionHandlers<TChannel[]>) {
      return subscribe<{ paymentChannelsChanged: TChannel[] }>(`subscription { paymentChannelsChanged { ${selection} } }`, undefined, {
        next: (data, fieldErrors) => handlers.next(data.paymentChannelsChanged, fieldErrors),
        error: handlers.error ? (e) => handlers.error!(e) : undefined,
        complete: handlers.complete ? () => handlers.complete!() : undefined,
      });
    },
    dispose() {
      for (const stop of [...open]) stop();
    },
  };
}
