/**
 * The schema's breaking-change guard (`npm run schema:check`, scripts/schema-guard.ts, GraphQL Inspector):
 * on a scratch copy of schema/, removing `FeeCalculation.getBalance` fails and names it, an added optional
 * field passes; each kind of break the README lists is caught; publishing a break needs --allow-breaking.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildASTSchema, Kind, type GraphQLObjectType, parse, type EnumTypeDefinitionNode, type FieldDefinitionNode, type InputValueDefinitionNode, type NamedTypeNode, type TypeDefinitionNode, type TypeNode as TypeRef } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { BASELINE_FILE, compare, schemaOfDir } from '../../scripts/schema-guard.js';
import { SCHEMA_DIR } from '../../src/graphql/sdl.js';
import { makeTempDir } from '../helpers/app.js';

type TypeNode = TypeDefinitionNode;
type FieldNode = FieldDefinitionNode | InputValueDefinitionNode;

const ROOT = path.resolve(import.meta.dirname, '../..');
const scratchDirs: string[] = [];
afterEach(() => {
  for (const dir of scratchDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of schema/ (the SDL files and the published baseline) to break. */
function scratchCopy(): string {
  const dir = makeTempDir('pgw-schema-');
  scratchDirs.push(dir);
  fs.cpSync(SCHEMA_DIR, dir, { recursive: true });
  return dir;
}

function edit(dir: string, file: string, change: (sdl: string) => string): void {
  const where = path.join(dir, file);
  const before = fs.readFileSync(where, 'utf8');
  const after = change(before);
  expect(after, `the edit of ${file} changed nothing`).not.toBe(before);
  fs.writeFileSync(where, after);
}

/** `npm run schema:check` (or publish) on a scratch copy, as CI runs it. */
function guard(dir: string, command: 'check' | 'publish' = 'check', ...extra: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/schema-guard.ts', command, '--schema-dir', dir, '--baseline', path.join(dir, 'published', 'schema.graphql'), ...extra], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm run schema:check on a scratch copy', () => {
  it('removing FeeCalculation.getBalance fails and names the field', () => {
    const dir = scratchCopy();
    edit(dir, 'pricing.graphql', (sdl) => sdl.replace(/\n\s*"What the merchant receives[^"]*"\n\s*getBalance: Decimal!/, ''));
    const run = guard(dir);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain('FeeCalculation.getBalance');
    expect(run.stderr).toMatch(/Field 'getBalance' was removed from object type 'FeeCalculation'/);
    expect(run.stderr).toMatch(/1 breaking change/);
  }, 60_000);

  it('an added optional field passes (and is listed as not published yet)', () => {
    const dir = scratchCopy();
    edit(dir, 'pricing.graphql', (sdl) => sdl.replace('type FeeCalculation {', 'type FeeCalculation {\n  "A note for the checkout, if any."\n  note: String'));
    const run = guard(dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('FeeCalculation.note');
    expect(run.stdout).toMatch(/not published yet/);
  }, 60_000);

  it('publishing a breaking change is refused without --allow-breaking; with it, the check passes again', () => {
    const dir = scratchCopy();
    edit(dir, 'pricing.graphql', (sdl) => sdl.replace(/\n\s*"What the merchant receives[^"]*"\n\s*getBalance: Decimal!/, ''));
    const refused = guard(dir, 'publish');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FeeCalculation.getBalance');
    const published = guard(dir, 'publish', '--allow-breaking');
    expect(published.code, published.stderr).toBe(0);
    // Other types (the verified quote) still carry a getBalance: the one removed is FeeCalculation's.
    const baseline = buildASTSchema(parse(fs.readFileSync(path.join(dir, 'published', 'schema.graphql'), 'utf8')));
    const feeCalculation = baseline.getType('FeeCalculation') as GraphQLObjectType;
    expect(Object.keys(feeCalculation.getFields())).not.toContain('getBalance');
    expect(Object.keys(feeCalculation.getFields())).toContain('totalAmount');
    expect(guard(dir).code).toBe(0);
  }, 120_000);
});

describe('what counts as breaking (GraphQL Inspector over the committed baseline)', () => {
  const baseline = fs.readFileSync(BASELINE_FILE, 'utf8');

  it('the schema as committed breaks nothing published', async () => {
    expect((await compare(baseline, schemaOfDir(SCHEMA_DIR))).breaking).toEqual([]);
  });

  /** Breaking changes from the baseline to the baseline with `edit` applied to its type `name` (AST edit). */
  async function breaking(name: string, edit: (node: TypeNode) => TypeNode | null): Promise<string[]> {
    const document = parse(baseline);
    const definitions = document.definitions.flatMap((d) => ('name' in d && d.name?.value === name ? [edit(d as TypeNode)].filter((n) => n !== null) : [d]));
    const changed = buildASTSchema({ ...document, definitions });
    return (await compare(baseline, changed)).breaking.map((c) => `${c.path}: ${c.message}`);
  }
  const named = (type: NamedTypeNode['name']['value']): NamedTypeNode => ({ kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: type } });
  const nonNull = (type: TypeRef): TypeRef => (type.kind === Kind.NON_NULL_TYPE ? type : { kind: Kind.NON_NULL_TYPE, type });
  const nullable = (type: TypeRef): TypeRef => (type.kind === Kind.NON_NULL_TYPE ? type.type : type);
  /** The type with its field (or input field) `field` changed by `fn` (null removes it). */
  function fieldEdit(field: string, fn: (f: FieldNode) => FieldNode | null) {
    return (node: TypeNode): TypeNode => {
      const fields = (node as { fields?: readonly FieldNode[] }).fields ?? [];
      expect(fields.some((f) => f.name.value === field), `no field ${field} in ${node.name.value}`).toBe(true);
      return { ...node, fields: fields.flatMap((f) => (f.name.value === field ? [fn(f)].filter((x) => x !== null) : [f])) } as TypeNode;
    };
  }

  it.each([
    ['a removed field', 'FeeCalculation', fieldEdit('getBalance', () => null), /FeeCalculation\.getBalance/],
    ['a retyped field', 'FeeCalculation', fieldEdit('totalAmount', (f) => ({ ...f, type: nonNull(named('String')) })), /FeeCalculation\.totalAmount/],
    ['a field made nullable', 'FeeCalculation', fieldEdit('currency', (f) => ({ ...f, type: nullable(f.type) })), /FeeCalculation\.currency/],
    [
      'a removed enum value',
      'ChannelStatus',
      (n: TypeNode) => ({ ...n, values: (n as EnumTypeDefinitionNode).values?.filter((v) => v.name.value !== 'MAINTENANCE') }) as TypeNode,
      /ChannelStatus\.MAINTENANCE/,
    ],
    [
      'an argument made required',
      'Query',
      fieldEdit('paymentChannels', (f) => ({ ...f, arguments: (f as FieldDefinitionNode).arguments?.map((a) => ({ ...a, type: nonNull(a.type) })) }) as FieldNode),
      /Query\.paymentChannels\.filter/,
    ],
    ['an input field made required', 'CalculateFeeInput', fieldEdit('merchantId', (f) => ({ ...f, type: nonNull(f.type) })), /CalculateFeeInput\.merchantId/],
  ])('%s is breaking and named', async (_what, type, edit, path) => {
    const found = await breaking(type, edit);
    expect(found.length, found.join('\n')).toBeGreaterThan(0);
    expect(found.join('\n')).toMatch(path);
  });

  it('a removed type is breaking and named', async () => {
    // ChannelAvailability and the one field that returns it (a schema cannot point at a missing type).
    const document = parse(baseline);
    const definitions = document.definitions
      .filter((d) => !('name' in d && d.name?.value === 'ChannelAvailability'))
      .map((d) => (d.kind === Kind.OBJECT_TYPE_DEFINITION ? { ...d, fields: d.fields?.filter((f) => f.name.value !== 'availability') } : d));
    const found = (await compare(baseline, buildASTSchema({ ...document, definitions }))).breaking.map((c) => `${c.path}: ${c.message}`);
    expect(found.join('\n')).toMatch(/ChannelAvailability: Type 'ChannelAvailability' was removed/);
  });

  it('a required input field added is breaking and named', async () => {
    const changed = baseline.replace('input CalculateFeeInput {', 'input CalculateFeeInput {\n  "x"\n  reference: String!');
    expect(changed).not.toBe(baseline);
    const found = (await compare(baseline, buildASTSchema(parse(changed)))).breaking.map((c) => `${c.path}: ${c.message}`);
    expect(found.join('\n')).toMatch(/CalculateFeeInput\.reference/);
  });

  it('additions are not: an optional argument, an optional input field, a new type and field, a deprecation', async () => {
    const changed = baseline
      .replace('input CalculateFeeInput {', 'input CalculateFeeInput {\n  "x"\n  reference: String')
      .replace('type FeeCalculation {', 'type FeeCalculation {\n  "x"\n  extra: Extra\n  "y"\n  getBalance2: Decimal @deprecated(reason: "y")')
      .concat('\n"x"\ntype Extra {\n  "x"\n  a: Int\n}\n');
    expect((await compare(baseline, buildASTSchema(parse(changed)))).breaking).toEqual([]);
  });
});
