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
import { MAX_LIST_PARAM_VALUES, REST_ROUTE_BY_PATH, type RestRouteDef } from '../../shared/routes.js';
import { CHANNEL_GROUPS } from '../../shared/vocabulary.js';


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

/** A comma-separated list parameter (repeats joined): trimmed values, at most {@link MAX_LIST_PARAM_VALUES}, none empty. */
function listParam(params: URLSearchParams, name: string): string[] | undefined {
  const given = params.getAll(name);
  if (given.length === 0) return undefined;
  const values = given.join(',').split(',').map((v) => v.trim());
  if (values.length > MAX_LIST_PARAM_VALUES) {
    throw new AppError('INVALID_REQUEST', `${name} may name at most ${MAX_LIST_PARAM_VALUES} values (got ${values.length}).`, { field: name, max: MAX_LIST_PARAM_VALUES });
  }
  if (values.some((v) => v === '')) throw new AppError('INVALID_REQUEST', `${name} must be values separated by commas, none empty.`, { field: name });
  return values;
}

/** A single-valued parameter (given twice: INVALID_REQUEST, never a silent choice). */
function oneParam(params: URLSearchParams, name: string): string | undefined {
  const given = params.getAll(name);
  if (given.length > 1) throw new AppError('INVALID_REQUEST', `${name} may be given once.`, { field: name });
  return given[0];
}

/** An amount as REST writes it in a query string: decimal digits, at most 15 significant (exact as a JSON number). */
const QUERY_AMOUNT = /^(?=[0-9.]{1,16}$)[0-9]+(?:\.[0-9]+)?$/;

/**
 * A GET route's query string as its operation's variables (contract §14), or undefined when it takes none.
 * Values the GraphQL schema would refuse with its own wording are checked here, naming the REST parameter.
 */
export function queryVariables(route: RestRouteDef, params: URLSearchParams): Record<string, unknown> | undefined {
  if (route.name === 'listChannels') {
    const codes = listParam(params, 'code');
    const excludeCodes = listParam(params, 'exclude');
    const groups = listParam(params, 'group');
    if (codes === undefined && excludeCodes === undefined && groups === undefined) return undefined;
    const filter: Record<string, unknown> = {};
    if (codes) filter.codes = codes;
    if (excludeCodes) filter.excludeCodes = excludeCodes;
    if (groups) filter.groups = groups.map((g) => restGroup(g));
    return { filter };
  }
  if (route.name === 'channelInstructions') {
    const code = oneParam(params, 'code');
    if (code === undefined || code === '') throw new AppError('INVALID_REQUEST', 'code is required: the channel whose instructions to show.', { field: 'code' });
    const variables: Record<string, unknown> = { filter: { codes: [code] } };
    const locale = oneParam(params, 'locale');
    if (locale !== undefined) variables.locale = locale;
    const payCode = oneParam(params, 'pay_code');
    if (payCode !== undefined) variables.payCode = payCode;
    const amount = oneParam(params, 'amount');
    if (amount !== undefined) {
      if (!QUERY_AMOUNT.test(amount)) throw new AppError('INVALID_REQUEST', 'amount must be a decimal number such as 150000 (at most 15 digits).', { field: 'amount' });
      variables.amount = Number(amount);
    }
    const expiresAt = oneParam(params, 'expires_at');
    if (expiresAt !== undefined) variables.expiresAt = expiresAt;
    const timeZone = oneParam(params, 'time_zone');
    if (timeZone !== undefined) variables.timeZone = timeZone;
    return variables;
  }
  return undefined;
}

/** A REST group name (lower case) as GraphQL's enum value; an unknown one names `group` and the value. */
function restGroup(g: string): string {
  if (!(CHANNEL_GROUPS as readonly string[]).includes(g.toLowerCase())) {
    throw new AppError('INVALID_REQUEST', `group: unknown group "${g.slice(0, 64)}" (one of ${CHANNEL_GROUPS.join(', ')}).`, { field: 'group', value: g.slice(0, 64) });
  }
  return g.toUpperCase();
}

/** The REST parameter a GraphQL argument or filter member stands for, where their names differ. */
const REST_FIELD_NAMES: Readonly<Record<string, string>> = {
  'filter.codes': 'code',
  'filter.excludeCodes': 'exclude',
  'filter.groups': 'group',
  payCode: 'pay_code',
  expiresAt: 'expires_at',
  timeZone: 'time_zone',
};

function restResponse(Response: typeof globalThis.Response, state: RequestState, result: { data?: unknown; errors?: readonly GraphQLError[] }): Response {
  const error = result.errors?.[0];
  if (error) {
    const { code, requestId: _id, http: _http, ...rest } = error.extensions as Record<string, unknown>;
    const field = typeof rest.field === 'string' ? REST_FIELD_NAMES[rest.field] : undefined;
    if (field !== undefined) rest.field = field;
    const appError = new AppError(isErrorCode(code) ? code : 'INTERNAL_ERROR', error.message, rest as ErrorDetails);
    state.errorCode = appError.code;
    return problemResponse(Response, appError, state.id);
  }
  if (state.rest?.name === 'channelInstructions' && ((result.data as { paymentChannels?: unknown[] } | undefined)?.paymentChannels ?? []).length === 0) {
    // Enabled for the merchant (the filter checked the code) but not listed for this caller: KYC not approved, or outside a session's channels.
    const appError = new AppError('CHANNEL_NOT_FOUND', 'This channel is not listed for this caller (its KYC requirement, or outside the checkout session).', { field: 'code' });
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
  if (route === 'channelInstructions') {
    // Contract §14: the sections as `data`, beside the envelope's status, and the placeholders left unfilled.
    const instructions = (resultData as { paymentChannels: { instructions: { sections: unknown[]; unfilled: string[] } }[] }).paymentChannels[0]!.instructions;
    return JSON.stringify({ status: 200, data: instructions.sections, unfilled: instructions.unfilled });
  }
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
        const variables = route.body ? bodyVariables(route.body, request, state.verifiedBody) : queryVariables(route, url.searchParams);
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
