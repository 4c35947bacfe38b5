/**
 * Event templates (contract §8b): pages that differ only in their amount share one execution of a
 * change, and each page computes only the fields its amount decides.
 *
 * At a sale's peak every checkout page asks the channel list with its own amount, so no two pages ask the same
 * question and sharing whole answers (shared-executions.ts) does not help: each page cost a full execution of
 * the component's document (about 260 µs of server CPU, against 16 µs to write its event). But only two fields
 * of a channel read the amount (src/graphql/live-fields.ts): `availability` and `fee`. So the streams of one
 * merchant's key and session scope that run the same document with the same other variables form one
 * **class**; per change, the class's first stream executes the document (its *representative* answer) and
 * every stream takes that answer with its own values in those fields (the *holes*), computed for its amount
 * when its event is delivered and spliced into the answer's text (its *shape*, serialised once).
 *
 * Why a page's answer is an executed answer with the holes refilled, exactly: the fields outside the holes
 * resolve the same values for every stream of the class (live-fields.ts: they read the channel record, the
 * key and the session's currency, methods and locale, all in the class key, and arguments whose variables are
 * in the class key too); the list is the same channels in the same order (checked per page by id); and a page
 * is refilled only from an answer whose holes failed exactly where, and exactly as, its own do (the same
 * contract error: code, message, details; its *signature*), so the errors and the places of their nulls are
 * the same. The first page of a class with a signature no executed page has (an amount above some channels'
 * limits) is executed, and its answer is the shape of the pages like it. A page whose holes cannot be
 * computed this way (a failure that is not a contract error, a value that does not complete) is executed on
 * its own, as before: a template is a shortcut, never a second way to answer.
 *
 * What a template takes (anything else runs as before): a subscription whose only selection is the live list
 * without arguments (a filter may change the list with the amount), no directives and no fragments at its top
 * level, every field of the item classified, and holes whose own selections are leaves (scalars, enums, lists
 * of them) with default resolvers, so a hole's value is its resolver's result serialised field by field.
 *
 * Bounds: a template per (document, operation name), cached in a WeakMap on Yoga's cached documents; a stream
 * keeps its holes' argument values (its amount) and their last values (one string per hole, {@link HoleMemo}:
 * a change recomputes only the channels it touched); a class keeps its executed answers and their shapes (one per
 * signature, so at most one per stream of the class) only for the turn of the change (shared-executions.ts
 * `release`).
 */
import {
  defaultFieldResolver,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  visit,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { hash, randomUUID } from 'node:crypto';
import { itemRecordOf, LIVE_LIST, PAYMENT_FIELDS, SCOPE_FIELDS } from '../../graphql/live-fields.js';
import { answerText, FRAME_HEAD, FRAME_TAIL, REQUEST_ID_MARK_JSON, SERIALIZED, type SerializedAnswer } from './event-stream.js';
import { AppError } from '../../shared/errors.js';

/** A leaf field of a hole's selection. */
interface Leaf {
  readonly field: string;
  /** Its value as JSON (throws NOT_LIKE where the execution would fail), or null for `__typename`. */
  readonly json: LeafJson | null;
  /** What comes before its value in the hole's JSON: `{"key":` for the first leaf, `,"key":` for the others. */
  readonly prefix: string;
}

/** A field of the list's item that is computed per stream. */
interface Hole {
  readonly key: string;
  readonly node: FieldNode;
  readonly field: GraphQLField<unknown, unknown>;
  readonly resolve: GraphQLFieldResolver<unknown, unknown>;
  readonly info: GraphQLResolveInfo;
  readonly objectType: GraphQLObjectType;
  readonly nonNull: boolean;
  readonly leaves: readonly Leaf[];
  /** The JSON of `__typename` in it. */
  readonly typename: string;
  /** It takes no arguments: its value is a function of the channel record and the principal, one of a few. */
  readonly fewValues: boolean;
}

/** What a document's events share and what each stream computes (see the module comment). */
export interface EventTemplate {
  readonly operation: OperationDefinitionNode;
  /** The response key of the live list. */
  readonly rootKey: string;
  readonly rootResolve: GraphQLFieldResolver<unknown, unknown>;
  readonly rootInfo: GraphQLResolveInfo;
  readonly holes: readonly Hole[];
  /** Variables read only by the holes' arguments: a stream's own, left out of its class key. */
  readonly holeVariables: ReadonlySet<string>;
}

const NO_ARGUMENTS: Readonly<Record<string, unknown>> = Object.freeze({});

/** A stream's own part of a template: its holes' argument values (its amount). */
export type HoleArguments = readonly Record<string, unknown>[];

/**
 * An executed answer of a class for one change, ready to be refilled ({@link shapeOf}): the answer of every
 * page of the class whose holes fail exactly where and as this one's did (its `signature`).
 */
export interface Shape {
  readonly result: ExecutionResult;
  readonly items: readonly Record<string, unknown>[];
  /** The failed holes: index (item × holes + hole) and contract error of each, in order ({@link failureText}). */
  readonly signature: string;
  /** Indexes (item × holes + hole) of the failed holes. */
  readonly failed: ReadonlySet<number>;
  /** Its answer's text in pieces, made for the first page refilled from it ({@link textOf}). */
  text?: ShapeText;
}

/**
 * A shape's answer as text pieces around its slots: a hole that did not fail (its index), or the stream's
 * request id (-1, in its errors).
 */
interface ShapeText {
  readonly parts: readonly string[];
  readonly slots: readonly number[];
  /** A digest of the pieces and slots: equal for two shapes exactly when their texts around the holes are. */
  readonly digest: string;
}

/** A page's own holes for one change: each hole's JSON (undefined where it failed) and its failures' signature. */
export interface Outcomes {
  readonly values: readonly (string | undefined)[];
  readonly signature: string;
  /** Changes exactly when a value does ({@link HoleMemo.stamp}). */
  readonly stamp: number;
}

const templates = new WeakMap<DocumentNode, Map<string, EventTemplate | null>>();

/** The template of a document's operation, or null when its events run as before (module comment). */
export function templateOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): EventTemplate | null {
  let byName = templates.get(document);
  if (!byName) templates.set(document, (byName = new Map<string, EventTemplate | null>()));
  const name = operationName ?? '';
  let template = byName.get(name);
  if (template === undefined) {
    template = analyse(schema, document, operationName ?? undefined);
    // Bounded by the document's own operations.
    byName.set(name, template);
  }
  return template;
}

/** A resolver's `info`, fixed per template: the resolvers of the live list and its holes read none of it. */
function infoFor(schema: GraphQLSchema, operation: OperationDefinitionNode, node: FieldNode, parentType: GraphQLObjectType, returnType: GraphQLOutputType): GraphQLResolveInfo {
  return {
    fieldName: node.name.value,
    fieldNodes: [node],
    returnType,
    parentType,
    path: { prev: undefined, key: node.alias?.value ?? node.name.value, typename: parentType.name },
    schema,
    fragments: {},
    rootValue: undefined,
    operation,
    variableValues: {},
  };
}

function analyse(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): EventTemplate | null {
  const operation = getOperationAST(document, operationName);
  const subscription = schema.getSubscriptionType();
  if (!operation || operation.operation !== OperationTypeNode.SUBSCRIPTION || !subscription || operation.directives?.length) return null;
  const [root, ...others] = operation.selectionSet.selections;
  if (!root || others.length > 0 || root.kind !== Kind.FIELD || root.name.value !== LIVE_LIST.field) return null;
  if (root.directives?.length || root.arguments?.length || !root.selectionSet) return null;
  const rootField = subscription.getFields()[LIVE_LIST.field];
  const itemType = schema.getType(LIVE_LIST.itemType);
  if (!rootField?.resolve || !isObjectType(itemType)) return null;
  const itemFields = itemType.getFields();
  const keys = new Set<string>();
  const holes: Hole[] = [];
  for (const selection of root.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return null;
    const key = selection.alias?.value ?? selection.name.value;
    // A key asked twice merges its selections (graphql's field collection): left to the execution.
    if (keys.has(key)) return null;
    keys.add(key);
    const name = selection.name.value;
    if (SCOPE_FIELDS.has(name)) continue;
    if (!PAYMENT_FIELDS.has(name)) return null;
    const field = itemFields[name];
    if (!field?.resolve || !selection.selectionSet) return null;
    const objectType = getNullableType(field.type);
    // An object with at least one field (graphql's validation requires a selection; `{}` is never an answer).
    if (!isObjectType(objectType) || selection.selectionSet.selections.length === 0) return null;
    const leaves: Leaf[] = [];
    const leafKeys = new Set<string>();
    const fields = objectType.getFields();
    for (const sub of selection.selectionSet.selections) {
      if (sub.kind !== Kind.FIELD || sub.directives?.length || sub.arguments?.length || sub.selectionSet) return null;
      const subKey = sub.alias?.value ?? sub.name.value;
      if (leafKeys.has(subKey)) return null;
      leafKeys.add(subKey);
      const prefix = `${leaves.length === 0 ? '{' : ','}${JSON.stringify(subKey)}:`;
      if (sub.name.value === '__typename') {
        leaves.push({ field: '__typename', json: null, prefix });
        continue;
      }
      const leaf = fields[sub.name.value];
      if (!leaf || !isLeafType(getNamedType(leaf.type)) || (leaf.resolve !== undefined && leaf.resolve !== defaultFieldResolver)) return null;
      leaves.push({ field: leaf.name, json: leafJsonOf(leaf.type), prefix });
    }
    holes.push({
      key,
      node: selection,
      field,
      resolve: field.resolve,
      info: infoFor(schema, operation, selection, itemType, field.type),
      objectType,
      nonNull: isNonNullType(field.type),
      leaves,
      typename: JSON.stringify(objectType.name),
      fewValues: field.args.length === 0,
    });
  }
  // Variables every reference of which is in a hole's arguments: the stream's own (its amount).
  const inHoles = new Set<string>();
  for (const hole of holes) visit(hole.node, { Variable: (v) => void inHoles.add(v.name.value) });
  const elsewhere = new Set<string>();
  for (const definition of document.definitions) {
    if (definition === operation) {
      for (const selection of root.selectionSet.selections) {
        if (holes.some((h) => h.node === selection)) continue;
        visit(selection, { Variable: (v) => void elsewhere.add(v.name.value) });
      }
    } else {
      visit(definition, { Variable: (v) => void elsewhere.add(v.name.value) });
    }
  }
  const holeVariables = new Set([...inHoles].filter((v) => !elsewhere.has(v)));
  return {
    operation,
    rootKey: root.alias?.value ?? root.name.value,
    rootResolve: rootField.resolve,
    rootInfo: infoFor(schema, operation, root, subscription, rootField.type),
    holes,
    holeVariables,
  };
}

/**
 * A stream's holes' arguments, from its variables (coerced as the execution coerces them), or undefined when
 * they do not coerce (the stream then runs as before and gets the execution's own error).
 */
export function holeArgumentsOf(schema: GraphQLSchema, template: EventTemplate, variables: ExecutionArgs['variableValues']): HoleArguments | undefined {
  const coerced = getVariableValues(schema, template.operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return undefined;
  try {
    // A field that takes no arguments shares one empty object (a stream keeps these for its life).
    return template.holes.map((h) => (h.field.args.length > 0 ? getArgumentValues(h.field, h.node, coerced.coerced) : NO_ARGUMENTS));
  } catch {
    // An argument that does not coerce: the execution reports it (the stream is not templated).
    return undefined;
  }
}

/** The variables of a class key: the stream's own (its holes' only) left out. */
export function classVariables(template: EventTemplate, variables: ExecutionArgs['variableValues']): Record<string, unknown> | null {
  if (!variables) return null;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables)) if (!template.holeVariables.has(name)) out[name] = value;
  return out;
}

/** Thrown while computing a page's holes: the page is executed on its own instead (made once: no stack per throw). */
const NOT_LIKE = new Error('this page is not like its class');

/** The page's list (also sets the page's context principal, as the event's execution does). */
function listOf(template: EventTemplate, payload: unknown, context: unknown): readonly { id?: unknown }[] | undefined {
  const list = template.rootResolve(payload, {}, context, template.rootInfo);
  return Array.isArray(list) ? list : undefined;
}

/**
 * Short names of shared contract errors (frozen: one object stands for one answer, e.g. a channel in
 * maintenance, pricing/service.ts), so a page's signature does not spell their texts out each time.
 */
const sharedFailures = new WeakMap<AppError, number>();
let nextSharedFailure = 0;

/**
 * One failed hole in a signature: where, and the contract error: its code, message and details (what the
 * answer says of it), or the name of a shared one. Two failures with the same text are the same failure; a
 * shared error and an equal unshared one are told apart, which at worst executes a page that was like its class.
 */
function failureText(index: number, error: AppError): string {
  if (Object.isFrozen(error)) {
    let id = sharedFailures.get(error);
    if (id === undefined) sharedFailures.set(error, (id = nextSharedFailure++));
    return `${index}\u0000#${id}\u0001`;
  }
  return `${index}\u0000${error.code}\u0000${error.message}\u0000${JSON.stringify(error.details)}\u0001`;
}

/** A class's list for one change: its channels' ids and the records they were listed from, in order. */
export interface ClassList {
  readonly ids: readonly unknown[];
  readonly records: readonly object[];
}

/**
 * A class's list for one change (the same channels for every page: the list is not filtered by amount), from
 * any page of it; undefined when the list is not a list.
 */
export function classListOf(template: EventTemplate, payload: unknown, context: unknown): ClassList | undefined {
  try {
    const list = listOf(template, payload, context);
    return list && { ids: list.map((c) => c.id), records: list.map((c) => itemRecordOf(c)) };
  } catch {
    // The execution of this change reports the failure; the class is then not refilled.
    return undefined;
  }
}

/**
 * An executed answer as a shape, or null when it cannot be refilled: no list, or an error inside a hole's
 * selection, or a failed hole that is not a contract error. Errors outside the holes are kept as they are:
 * they are the same for every page of the class.
 */
export function shapeOf(template: EventTemplate, result: ExecutionResult): Shape | null {
  const items: unknown = result.data?.[template.rootKey];
  if (!Array.isArray(items) || items.some((item) => item === null || typeof item !== 'object')) return null;
  const holeIndex = new Map(template.holes.map((h, i) => [h.key, i]));
  const failed: [number, AppError][] = [];
  for (const error of result.errors ?? []) {
    const path = error.path;
    const hole = path !== undefined && path.length >= 3 ? holeIndex.get(String(path[2])) : undefined;
    if (hole === undefined) continue;
    if (path!.length > 3 || typeof path![1] !== 'number' || !(error.originalError instanceof AppError)) return null;
    failed.push([path![1] * template.holes.length + hole, error.originalError]);
  }
  failed.sort((x, y) => x[0] - y[0]);
  return { result, items: items as Record<string, unknown>[], signature: failed.map(([i, e]) => failureText(i, e)).join(''), failed: new Set(failed.map(([i]) => i)) };
}

/** A leaf's value as JSON, serialised as the execution serialises it. */
type LeafJson = (value: unknown) => string;

/**
 * The JSON writer of a leaf type, resolved once per template: graphql's type predicates are not free (outside
 * production mode each failed `instanceof` also compares class names), and a page writes about 80 leaves.
 */
function leafJsonOf(type: GraphQLOutputType): LeafJson {
  if (isNonNullType(type)) {
    const inner = leafJsonOf(type.ofType);
    return (value) => {
      if (value == null) throw NOT_LIKE;
      return inner(value);
    };
  }
  if (isListType(type)) {
    const item = leafJsonOf(type.ofType);
    return (value) => {
      if (value == null) return 'null';
      if (!Array.isArray(value)) throw NOT_LIKE;
      let text = '[';
      for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + item(value[i]);
      return `${text}]`;
    };
  }
  if (!isLeafType(type)) throw NOT_LIKE;
  return (value) => {
    if (value == null) return 'null';
    const serialized: unknown = type.serialize(value);
    // JSON.stringify's own text for each, without its general machinery (a page writes about 80 of them).
    if (typeof serialized === 'number') return Number.isFinite(serialized) ? String(serialized) : 'null';
    if (typeof serialized === 'boolean') return serialized ? 'true' : 'false';
    const text = serialized == null ? undefined : JSON.stringify(serialized);
    if (text === undefined) throw NOT_LIKE;
    return text;
  };
}

/**
 * A hole's value as JSON: what the answer's JSON has at its place (its leaves in the selection's order). Joined,
 * not concatenated: a page keeps it until the next change (HoleMemo), and a concatenated string is a tree of
 * its pieces, about four times the bytes of its text (measured: 7 KB more per stream).
 */
function holeJson(hole: Hole, value: unknown): string {
  if (value == null) {
    if (hole.nonNull) throw NOT_LIKE;
    return 'null';
  }
  if (typeof value !== 'object' || typeof (value as { then?: unknown }).then === 'function') throw NOT_LIKE;
  const { leaves } = hole;
  const pieces = new Array<string>(2 * leaves.length + 1);
  for (let l = 0; l < leaves.length; l++) {
    const leaf = leaves[l]!;
    pieces[2 * l] = leaf.prefix;
    pieces[2 * l + 1] = leaf.json === null ? hole.typename : leaf.json((value as Record<string, unknown>)[leaf.field]);
  }
  pieces[2 * leaves.length] = '}';
  return pieces.join('');
}

/**
 * One copy of each common value of the holes without arguments (a channel's availability: a few values for all
 * pages), so that pages keep references to them rather than copies. Bound: this many texts, then it starts over.
 */
const commonValues = new Map<string, string>();
const MAX_COMMON_VALUES = 1024;

function common(text: string): string {
  const kept = commonValues.get(text);
  if (kept !== undefined) return kept;
  if (commonValues.size >= MAX_COMMON_VALUES) commonValues.clear();
  commonValues.set(text, text);
  return text;
}

/**
 * What a page's holes were last computed from and what they came to (see {@link outcomesOf}): kept by its
 * stream between changes, so a change recomputes only the channels it touched. `slots[item × holes + hole]` is
 * the hole's JSON, or FAILED followed by its failure's text ({@link failureText}).
 */
export interface HoleMemo {
  /** The records the page's items were listed from (its class's list when they are the same: shared). */
  records: readonly object[];
  /** The principal the values were computed for (a stream keeps one while its key and merchant stay the same). */
  principal: unknown;
  readonly slots: (string | undefined)[];
  /**
   * Stands for the slots' contents: a new number (never used before by any page) whenever one of them
   * changes, the same while none does. So a page's answer is told from its last by its shape's digest and
   * this, without hashing the page's text (refill).
   */
  stamp: number;
}

/** The last {@link HoleMemo.stamp} handed out (a double: unique past 2^31 too). */
let stamps = 0;

/** Marks a failed hole in {@link HoleMemo.slots} (no JSON text starts with it). */
const FAILED = '\u0002';
const FAILED_CODE = FAILED.charCodeAt(0);

/**
 * A page's own holes, or undefined when the page must be executed on its own: its list is not its class's
 * (`list.ids`), a hole failed with something other than a contract error, or a value does not complete (a
 * null where none may be). Its answer is then that execution's, errors and all.
 *
 * A hole of an item listed from the same record as at the page's last computation, for the same principal,
 * is taken from `memo` instead of being computed: the payment fields depend on nothing else (live-fields.ts
 * `itemRecordOf`), and a page's arguments are its own for its life. A change to one channel (a status, a fee)
 * recomputes that channel's holes on every page and reuses the others; a page keeps one string per hole for
 * this (contract §8b: memory per stream). The memo is updated in place, or dropped when the page is not like
 * its class (the values are then left half-updated).
 */
export function outcomesOf(template: EventTemplate, list: ClassList, holeArguments: HoleArguments, memo: HoleMemo | undefined, payload: unknown, context: unknown): { outcomes: Outcomes; memo: HoleMemo } | undefined {
  const { holes } = template;
  try {
    const items = listOf(template, payload, context);
    if (!items || items.length !== list.ids.length) return undefined;
    const principal = (context as { principal?: unknown } | undefined)?.principal;
    const size = items.length * holes.length;
    // The memo's slots are overwritten in place and compared as they are (a new principal recomputes them
    // all, and may come to the same values: then the stamp stays); its values are reused for the same principal.
    const same = memo !== undefined && memo.slots.length === size ? memo : undefined;
    const kept = same !== undefined && same.principal === principal ? same : undefined;
    const slots = same?.slots ?? new Array<string | undefined>(size);
    let changed = same === undefined;
    let records: object[] | undefined;
    let signature = '';
    for (let i = 0; i < items.length; i++) {
      const source = items[i]!;
      if (source.id !== list.ids[i]) return undefined;
      const record = itemRecordOf(source);
      if (records === undefined && record !== list.records[i]) records = list.records.slice(0, i);
      records?.push(record);
      if (kept !== undefined && kept.records[i] === record) {
        for (let h = 0; h < holes.length; h++) {
          const slot = slots[i * holes.length + h]!;
          if (slot.charCodeAt(0) === FAILED_CODE) signature += slot.slice(1);
        }
        continue;
      }
      for (let h = 0; h < holes.length; h++) {
        const hole = holes[h]!;
        let value: unknown;
        try {
          value = hole.resolve(source, holeArguments[h], context, hole.info);
        } catch (err) {
          if (!(err instanceof AppError)) return undefined;
          const failure = failureText(i * holes.length + h, err);
          signature += failure;
          const slot = FAILED + failure;
          if (slots[i * holes.length + h] !== slot) {
            slots[i * holes.length + h] = slot;
            changed = true;
          }
          continue;
        }
        const slot = hole.fewValues ? common(holeJson(hole, value)) : holeJson(hole, value);
        if (slots[i * holes.length + h] !== slot) {
          slots[i * holes.length + h] = slot;
          changed = true;
        }
      }
    }
    const next = same ?? { records: list.records, principal, slots, stamp: 0 };
    next.records = records ?? list.records;
    next.principal = principal;
    if (changed) next.stamp = ++stamps;
    return { outcomes: { values: slots, signature, stamp: next.stamp }, memo: next };
  } catch (err) {
    // NOT_LIKE, or the list itself failed: the page's own execution answers it (and reports a bug, if any).
    if (err === NOT_LIKE || err instanceof Error) return undefined;
    throw err;
  }
}

/**
 * A shape's text in pieces: its answer's text (as the event stream makes it, answerText) with a marker in
 * every hole that did not fail, split at the markers and at the request id's. The markers carry a random
 * nonce, so no text of the answer can be taken for one.
 */
function textOf(template: EventTemplate, shape: Shape): ShapeText {
  const { holes } = template;
  const nonce = randomUUID();
  const items = shape.items.map((item, i) => {
    const marked = { ...item };
    for (let h = 0; h < holes.length; h++) if (!shape.failed.has(i * holes.length + h)) marked[holes[h]!.key] = `${nonce}:${i * holes.length + h}`;
    return marked;
  });
  // Its masked failures were reported when its own event was serialised (the stream that executed it).
  const text = answerText({ ...shape.result, data: { ...shape.result.data, [template.rootKey]: items } }, () => undefined);
  const pieces = text.split(new RegExp(`"${nonce}:(\\d+)"`));
  const parts: string[] = [];
  const slots: number[] = [];
  for (let j = 0; j < pieces.length; j += 2) {
    const [first, ...rest] = pieces[j]!.split(REQUEST_ID_MARK_JSON);
    parts.push(first!);
    for (const after of rest) {
      slots.push(-1);
      parts.push(after);
    }
    if (j + 1 < pieces.length) slots.push(Number(pieces[j + 1]));
  }
  return { parts, slots, digest: hash('sha256', JSON.stringify([parts, slots]), 'base64') };
}

/**
 * A page's answer, made for its stream: its whole `event: next` frame, the shape of its failures with its own
 * values in the holes that did not fail and its request id in its errors. The frame is joined in one go (one
 * flat string: concatenated, its pieces were copied again when its length was taken for the socket's write).
 * Its digest is its shape's text's and its values' stamp: a stream's request id is the same in all its frames,
 * and a stamp stays the same exactly while the page's values do, so two answers of a stream have the same
 * digest exactly when they are the same answer (the frame itself is not hashed: that was a tenth of a
 * change's CPU at 15,000 pages).
 */
export function refill(template: EventTemplate, shape: Shape, outcomes: Outcomes, requestId: string): SerializedAnswer {
  const { parts, slots } = (shape.text ??= textOf(template, shape));
  const pieces = new Array<string>(2 * slots.length + 3);
  pieces[0] = FRAME_HEAD;
  pieces[1] = parts[0]!;
  for (let j = 0; j < slots.length; j++) {
    const slot = slots[j]!;
    pieces[2 * j + 2] = slot < 0 ? requestId : outcomes.values[slot]!;
    pieces[2 * j + 3] = parts[j + 1]!;
  }
  pieces[2 * slots.length + 2] = FRAME_TAIL;
  const frame = pieces.join('');
  return { [SERIALIZED]: { frame, digest: `${shape.text.digest}${outcomes.stamp}` } };
}
