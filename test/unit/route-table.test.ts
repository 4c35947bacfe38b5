/**
 * The route table (src/shared/routes.ts) is the one statement of the public routes: metric labels, public
 * paths, REST routing and the OpenAPI paths derive from it; and the calculate body, declared once as the
 * zod schema the REST adapter validates with, cannot drift from the GraphQL input it becomes.
 */
import { GraphQLInputObjectType, GraphQLNonNull, getNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildSchema } from '../../src/graphql/schema.js';
import { buildOpenApiDocument } from '../../src/modules/docs/openapi-document.js';
import { ERROR_STATUS } from '../../src/shared/errors.js';
import { calculateRequestBody, GRAPHQL_ENDPOINT, IMAGE_PREFIX, PUBLIC_PATHS, REST_ROUTES, ROUTES, routeTemplateOf } from '../../src/shared/routes.js';

describe('the route table', () => {
  it('labels every route by its own path, a prefix route as <prefix>:file, and nothing else', () => {
    for (const r of ROUTES) {
      if (r.path.endsWith('/') && r.path !== '/') expect(routeTemplateOf(`${r.path}x.svg`)).toBe(`${r.path}:file`);
      else expect(routeTemplateOf(r.path)).toBe(r.path);
    }
    expect(routeTemplateOf(`${IMAGE_PREFIX}qris.svg`)).toBe(`${IMAGE_PREFIX}:file`);
    expect(routeTemplateOf('/')).toBe('/'); // the home page: exact, not a prefix of everything
    for (const raw of ['//', '/x', '/graphql/x', '/v1/payments/channels', '/v1/payments', '/health/', '/etc/passwd']) expect(routeTemplateOf(raw)).toBe('unmatched');
  });

  it('serves without a signature exactly the public routes', () => {
    expect(PUBLIC_PATHS).toEqual(expect.arrayContaining(['/health', '/ready', '/metrics', '/docs', '/v1/openapi.json', IMAGE_PREFIX]));
    expect(PUBLIC_PATHS).not.toContain(GRAPHQL_ENDPOINT);
    for (const r of REST_ROUTES) expect(PUBLIC_PATHS).not.toContain(r.path);
  });

  it('gives the OpenAPI document its REST paths, methods and the statuses of each route’s error codes', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths).sort()).toEqual(REST_ROUTES.map((r) => r.path).sort());
    for (const r of REST_ROUTES) {
      const op = doc.paths[r.path]![r.method.toLowerCase()]!;
      expect(op.operationId).toBe(r.name);
      const statuses = new Set(r.errorCodes.map((c) => String(ERROR_STATUS[c])));
      expect(new Set(Object.keys(op.responses).filter((s) => Number(s) >= 400))).toEqual(statuses);
    }
  });
});

describe('the calculate body, declared once', () => {
  /** What a zod field accepts, as a GraphQL type name would say it. */
  function zodKind(field: z.ZodType): { type: string; required: boolean } {
    const json = z.toJSONSchema(field, { io: 'input' }) as { type?: string | string[] };
    const types = Array.isArray(json.type) ? json.type : [json.type];
    const required = !field.safeParse(undefined).success;
    return { type: types.filter((t) => t !== 'null')[0]!, required };
  }

  /** The JSON type a GraphQL input type arrives as on the REST wire. */
  const JSON_OF_GRAPHQL: Record<string, string> = { Decimal: 'number', String: 'string', ID: 'string', Boolean: 'boolean' };

  it('has the fields, types and required-ness of GraphQL CalculateFeeInput (merchantId: required in REST only, contract §5)', () => {
    const input = buildSchema().getType('CalculateFeeInput') as GraphQLInputObjectType;
    const sdl = Object.fromEntries(
      Object.values(input.getFields()).map((f) => [f.name, { type: JSON_OF_GRAPHQL[getNamedType(f.type).name], required: f.type instanceof GraphQLNonNull }]),
    );
    // `quote` (contract §11) is not an input of the calculation: it selects the signed quote into the answer.
    const { quote, ...fields } = calculateRequestBody.shape;
    expect(zodKind(quote)).toEqual({ type: 'boolean', required: false });
    const rest = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, zodKind(field)]));
    expect(Object.keys(rest).sort()).toEqual(Object.keys(sdl).sort());
    expect(rest).toEqual({ ...sdl, merchantId: { ...sdl.merchantId, required: true } });
  });

  it('is the schema the OpenAPI document publishes', () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, { required: string[]; properties: Record<string, unknown> }> } };
    const published = doc.components.schemas.CalculateRequest!;
    expect(published.required.sort()).toEqual(['amount', 'currency', 'merchantId', 'method']);
    expect(Object.keys(published.properties).sort()).toEqual(Object.keys(calculateRequestBody.shape).sort());
  });
});
