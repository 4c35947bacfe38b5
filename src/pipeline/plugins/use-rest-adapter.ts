/**
 * The legacy REST surface (`/v1/payments/*`) inside the Yoga pipeline.
 *
 * Runs after the signature plugin (so it can never skip auth). A matched
 * route is rewritten into its prebuilt GraphQL operation on the GraphQL
 * endpoint; Yoga parses, validates and executes it like any other request,
 * and this plugin's result processor renders the outcome in the seed's wire
 * format, or as problem details with the contract status.
 */
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, isErrorCode, type ErrorDetails } from '../../shared/errors.js';
import { isRawJsonNumber, parseRequestJson } from '../../shared/json-numbers.js';
import { JSON_MEDIA } from '../transport/body.js';
import { BufferedRequest, NodeHeaders } from '../transport/node-request.js';
import { requestStateOf, type RequestState, type RestRoute } from '../request-state.js';
import { problemResponse, responseHeaders } from '../responses.js';
import { restOperationOf, toRestCalculation, toRestChannel, type GqlChannel } from '../rest-routes.js';
import { REST_ROUTE_BY_PATH, type RestRouteDef } from '../../shared/routes.js';


/** Parse and type-check a POST route's JSON body (`schema`) into its operation's `input` variable. */
export function bodyVariables(
  schema: NonNullable<RestRouteDef['body']>,
  request: { headers: { get(name: string): string | null } },
  body: Uint8Array | undefined,
): Record<string, unknown> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!JSON_MEDIA.test(contentType)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).', { contentType });
  }
  let parsed: unknown;
  try {
    // Numbers keep their exact value (src/shared/json-numbers.ts): one a double would change arrives as its text.
    parsed = parseRequestJson(new TextDecoder('utf-8', { fatal: true }).decode(body ?? new Uint8Array(0)));
  } catch {
    // The parser's position message would echo request bytes; the contract error is enough.
    throw new AppError('INVALID_REQUEST', 'The request body is not valid UTF-8 JSON.', { field: 'body' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AppError('INVALID_REQUEST', 'The request body must be a JSON object.', { field: 'body' });
  }
  const exact = exactNumbersOf(parsed as Record<string, unknown>);
  // The schema checks types; a number kept as its text is a number to it, and travels on as its text (the
  // Decimal scalar and the services judge its value: more decimals than the currency allows → `field`).
  const checked = schema.safeParse(exact === null ? parsed : { ...(parsed as Record<string, unknown>), ...exact.placeholders });
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const field = issue.path.join('.') || 'body';
    const missing = issue.code === 'invalid_type' && (parsed as Record<string, unknown>)[field] === undefined;
    throw new AppError('INVALID_REQUEST', missing ? `${field} is required.` : `${field}: ${issue.message}.`, { field });
  }
  return { input: exact === null ? checked.data : { ...checked.data, ...exact.texts } };
}

/** The body's top-level numbers kept as text (bodies are flat): each with a type-check placeholder; null when none. */
function exactNumbersOf(body: Record<string, unknown>): { placeholders: Record<string, number>; texts: Record<string, unknown> } | null {
  let found: { placeholders: Record<string, number>; texts: Record<string, unknown> } | null = null;
  for (const [key, value] of Object.entries(body)) {
    if (!isRawJsonNumber(value)) continue;
    found ??= { placeholders: {}, texts: {} };
    found.placeholders[key] = 0;
    found.texts[key] = value;
  }
  return found;
}

function restResponse(Response: typeof globalThis.Response, state: RequestState, result: { data?: unknown; errors?: readonly GraphQLError[] }): Response {
  const error = result.errors?.[0];
  if (error) {
    const { code, requestId: _id, http: _http, ...rest } = error.extensions as Record<string, unknown>;
    const appError = new AppError(isErrorCode(code) ? code : 'INTERNAL_ERROR', error.message, rest as ErrorDetails);
    state.errorCode = appError.code;
    return problemResponse(Response, appError, state.id);
  }
  const status = state.rest?.name === undefined ? 200 : (REST_ROUTE_BY_NAME.get(state.rest.name)?.successStatus ?? 200);
  return new Response(restSuccessBody(state.rest?.name, result.data), { status, headers: responseHeaders(REST_SUCCESS_HEADERS) });
}

const REST_ROUTE_BY_NAME: ReadonlyMap<RestRouteDef['name'], RestRouteDef> = new Map([...REST_ROUTE_BY_PATH.values()].map((r) => [r.name, r]));

/** Headers of a successful REST answer. */
export const REST_SUCCESS_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** The seed's wire body for a successful route result. */
export function restSuccessBody(route: RestRoute['name'] | undefined, resultData: unknown): string {
  const data = resultData as { paymentChannels?: GqlChannel[]; calculateFee?: Record<string, unknown>; createCheckoutSession?: Record<string, unknown>; verifyQuote?: Record<string, unknown> };
  // The envelope's `status` mirrors the HTTP status (seed); calculate, quote verification and session creation answer the flat object.
  const body =
    route === 'listChannels'
      ? { status: 200, data: (data.paymentChannels ?? []).map(toRestChannel) }
      : route === 'createCheckoutSession'
        ? data.createCheckoutSession
        : route === 'verifyQuote'
          ? data.verifyQuote
          : toRestCalculation(data.calculateFee);
  return JSON.stringify(body);
}

/** Headers of the GraphQL request a REST route becomes (read-only, shared). */
const GRAPHQL_JSON_HEADERS = new NodeHeaders({ 'content-type': 'application/json', accept: 'application/json' });

/** Options of {@link useRestAdapter}. */
export interface RestAdapterOptions {
  graphqlEndpoint: string;
}

export function useRestAdapter(options: RestAdapterOptions): Plugin {
  if (!options.graphqlEndpoint.startsWith('/')) throw new Error('useRestAdapter: graphqlEndpoint must start with "/"');
  /** The GraphQL endpoint's URL on the origin a request came to (a handful of origins per process). */
  const graphqlUrls = new Map<string, string>();
  const graphqlUrlOf = (url: URL): string => {
    let u = graphqlUrls.get(url.host);
    if (u === undefined) {
      u = new URL(options.graphqlEndpoint, url).toString();
      if (graphqlUrls.size < 64) graphqlUrls.set(url.host, u);
    }
    return u;
  };
  return {
    onRequest({ request, url, serverContext, endResponse, setRequest, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state || state.surface !== 'rest') return;
      try {
        if (!state.principal) throw new Error('REST route reached without a verified principal');
        const route = REST_ROUTE_BY_PATH.get(url.pathname);
        if (!route) throw new AppError('NOT_FOUND', `No route ${url.pathname}.`);
        if (request.method.toUpperCase() !== route.method) {
          throw new AppError('METHOD_NOT_ALLOWED', `${url.pathname} accepts ${route.method} only.`, { allow: route.method }, { Allow: route.method });
        }
        const variables = route.body ? bodyVariables(route.body, request, state.verifiedBody) : undefined;
        state.rest = { name: route.name, variables };
        // The route's prebuilt operation, handed to Yoga as a JSON POST to the GraphQL endpoint; the params are
        // passed already parsed (BufferedRequest.json), so nothing is serialised and parsed again.
        const params = restOperationOf(route.name, variables);
        setRequest(new BufferedRequest(graphqlUrlOf(url), 'POST', GRAPHQL_JSON_HEADERS, null, request, params) as unknown as Request);
      } catch (err) {
        const appError = err instanceof AppError ? err : new AppError('INTERNAL_ERROR', 'Unexpected error.');
        if (!(err instanceof AppError)) state.unexpected = err;
        state.errorCode = appError.code;
        endResponse(problemResponse(fetchAPI.Response, appError, state.id));
      }
    },
    onResultProcess({ serverContext, setResultProcessor }) {
      const state = requestStateOf(serverContext);
      if (!state?.rest) return;
      setResultProcessor((result, fetchAPI) => {
        if (Array.isArray(result) || Symbol.asyncIterator in (result as object)) {
          return problemResponse(fetchAPI.Response, new AppError('INTERNAL_ERROR', 'Unexpected error.'), state.id);
        }
        return restResponse(fetchAPI.Response, state, result as { data?: unknown; errors?: readonly GraphQLError[] });
      }, 'application/json');
    },
  };
}
