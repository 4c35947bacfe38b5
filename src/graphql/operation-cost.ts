/**
 * What an operation costs to execute, in work units (contract §9, amended 2026-11-25: "budgets spend what a
 * request costs, where a plain list or calculation costs 1").
 *
 * The unit is one pass of the domain's work: listing a merchant's channels (`paymentChannels`, an event of
 * `paymentChannelsChanged`) or one fee calculation (`calculateFee`). Pricing every channel of a list
 * (`PaymentChannel.fee`; each occurrence, so each alias, is another pass) costs 2: measured, it takes about
 * twice the CPU of the list itself. On top of that every selected field (leaf or object, `__typename`
 * excepted) costs 1/{@link FIELDS_PER_UNIT} of a unit, since each is resolved and serialised once per channel.
 * The total is rounded down, and an operation costs at least 1 (parsing, authentication and the answer are
 * work too).
 *
 * Why this model and not graphql-armor's (objects 2, scalars 1, ×1.5 per level, which stays the global
 * document limit in use-abuse-limits.ts): its unit is no request anyone knows, and nesting is not what
 * costs here; list and pricing passes are (measured: README "Decisions", session cost ceiling). A heavy
 * document (15 aliases of the list with fees, breakdowns, rules, availability) costs 50; the
 * drop-in component's subscription costs 3; the REST list and calculate cost 1.
 *
 * Quote work (contract §11; it was free) has units of its own, measured the same way, as server CPU
 * per request against a plain list request's (`npx tsx bench/quote-costs.ts`, three runs, docs/PERFORMANCE.md):
 * one signature (`FeeCalculation.quote` on `calculateFee`) added 0.3–0.55 of a list and costs 1; a signature
 * for every channel of a list (`FeeCalculation.quote` under `PaymentChannel.fee`, ten signatures on the demo
 * data) added 1.4–2.3 lists and costs {@link LIST_SIGNING_UNITS}; one verification (`Query.verifyQuote`, each
 * alias again) added 0.2–0.4 of a list and costs 1. Rounded up: a price never below the work. A subscription
 * signs nothing (its events carry no quote, README "Decisions"), so a `quote` it selects costs nothing there.
 *
 * Only the operation that executes is counted; fragments are followed (each spread counts again, as it
 * executes again). Introspection's root fields cost 1 each (a walk over the schema).
 */
import { getNamedType, getNullableType, getOperationAST, isListType, isObjectType, Kind, OperationTypeNode, type DocumentNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLSchema, type SelectionSetNode } from 'graphql';

/** Work units per field, `Type.field`; absent fields cost 0. */
export const FIELD_WORK_UNITS: Readonly<Record<string, number>> = {
  'Query.paymentChannels': 1,
  'Subscription.paymentChannelsChanged': 1,
  'Query.calculateFee': 1,
  'PaymentChannel.fee': 2,
  // Contract §14: filling and (on a miss) rendering a channel's steps, for each channel of the list.
  'PaymentChannel.instructions': 1,
  'Query.__schema': 1,
  'Query.__type': 1,
  // Quote work (contract §11; module comment): one signature, one verification.
  'FeeCalculation.quote': 1,
  'Query.verifyQuote': 1,
};

/**
 * Work units of a field inside a list of items (each occurrence signs once per item): the quote of every
 * channel of a list (`PaymentChannel.fee { quote }`), measured 1.4–2.3 lists for the demo's ten signatures.
 */
export const LIST_SIGNING_UNITS = 3;
const PER_ITEM_UNITS: Readonly<Record<string, number>> = { 'FeeCalculation.quote': LIST_SIGNING_UNITS };

/** Fields a subscription's events never execute (they answer null there): they cost nothing in one. */
const NOT_IN_EVENTS: ReadonlySet<string> = new Set(['FeeCalculation.quote']);

/** Selected fields that cost one work unit together. */
export const FIELDS_PER_UNIT = 40;

/** Nesting followed at most (validation bounds depth far below this; a guard against fragment cycles). */
const MAX_WALK_DEPTH = 64;

/** Costs per document and operation name; documents are Yoga's cached parse results, so this is a lookup per request. */
const memo = new WeakMap<DocumentNode, Map<string, number>>();

/** The work units of the operation `operationName` of a validated `document` (at least 1). */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): number {
  let byName = memo.get(document);
  const name = operationName ?? '';
  const known = byName?.get(name);
  if (known !== undefined) return known;
  const cost = computeCost(schema, document, operationName);
  if (!byName) memo.set(document, (byName = new Map<string, number>()));
  // Bounded by the document's own operations (a document names each operation once).
  byName.set(name, cost);
  return cost;
}

function computeCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 1;
  const root = schema.getRootType(operation.operation);
  if (!root) return 1;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);

  const inEvents = operation.operation === OperationTypeNode.SUBSCRIPTION;
  let fields = 0;
  /** `inList`: the selection is made once per item of a list (a channel of the list). */
  const walk = (set: SelectionSetNode, type: GraphQLObjectType, depth: number, inList: boolean): number => {
    if (depth > MAX_WALK_DEPTH) return 0;
    let units = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const fieldName = selection.name.value;
        if (fieldName !== '__typename') fields++;
        const key = `${type.name}.${fieldName}`;
        if (!(inEvents && NOT_IN_EVENTS.has(key))) units += (inList ? PER_ITEM_UNITS[key] : undefined) ?? FIELD_WORK_UNITS[key] ?? 0;
        if (!selection.selectionSet) continue;
        const field = type.getFields()[fieldName];
        if (!field) continue;
        const inner = getNamedType(field.type);
        if (isObjectType(inner)) units += walk(selection.selectionSet, inner, depth + 1, inList || isListType(getNullableType(field.type)));
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (!fragment) continue;
        // The schema has no interfaces or unions: a fragment's condition is the enclosing type (or absent).
        const conditionName = fragment.typeCondition?.name.value;
        const conditionType = conditionName ? schema.getType(conditionName) : type;
        if (conditionType && isObjectType(conditionType)) units += walk(fragment.selectionSet, conditionType, depth + 1, inList);
      }
    }
    return units;
  };
  const passes = walk(operation.selectionSet, root, 0, false);
  return Math.max(1, passes + Math.floor(fields / FIELDS_PER_UNIT));
}
