/**
 * GraphQL over GET: the operation's parameters from the query string (GraphQL over HTTP), parsed without
 * trusting them. Yoga's own GET parser calls `JSON.parse` on `variables` and `extensions` unguarded, so
 * `?variables=%7Bx` became an unexpected SyntaxError: a masked 500 and an error log line with a stack, for
 * what is the client's mistake (contract §4: malformed input is 400 INVALID_REQUEST naming the `field`).
 */
import type { GraphQLParams } from 'graphql-yoga';
import { invalidRequest } from '../shared/errors.js';
import { parseRequestJson } from '../shared/json-numbers.js';

/** The parameters whose value is JSON text of an object. */
type JsonParam = 'variables' | 'extensions';

/** The JSON object a parameter carries; absent, empty or `null` is no value (as Yoga treats them). */
function jsonObjectParam(search: URLSearchParams, name: JsonParam): Record<string, unknown> | undefined {
  const text = search.get(name);
  if (!text) return undefined;
  let value: unknown;
  try {
    // Numbers keep their exact value (src/shared/json-numbers.ts), as in a POST body.
    value = parseRequestJson(text);
  } catch {
    // The parser's own message (positions in the client's text) adds nothing the client can act on.
    throw invalidRequest(name, `The "${name}" query parameter is not valid JSON; send a URL-encoded JSON object.`);
  }
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidRequest(name, `The "${name}" query parameter must be a JSON object, not ${Array.isArray(value) ? 'an array' : typeof value}.`);
  }
  return value as Record<string, unknown>;
}

/** `query`, `operationName`, `variables`, `extensions` of a GET request's query string; throws INVALID_REQUEST naming the parameter. */
export function parseGraphQLSearchParams(search: URLSearchParams): GraphQLParams {
  return {
    query: search.get('query') || undefined,
    operationName: search.get('operationName') || undefined,
    variables: jsonObjectParam(search, 'variables'),
    extensions: jsonObjectParam(search, 'extensions'),
  };
}

/** Yoga request parser for GET requests, over {@link parseGraphQLSearchParams}. */
export function parseGraphQLGetRequest(request: Request): GraphQLParams {
  const at = request.url.indexOf('?');
  return parseGraphQLSearchParams(new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1)));
}
